"""``evalmark.prompts``: the judge prompt catalog (the public name of
:mod:`evalmark.models._prompts`).

::

    from evalmark.prompts import CATALOG, get_prompt

    for name, prompt in CATALOG.items():
        print(name, prompt.group, prompt.summary)
    messages = get_prompt("conciseness").render(inputs="...", outputs="...")

Judge with a prompt through :class:`evalmark.strategies._llm_judge.LLMJudge`; list them with
``evalmark prompts ls`` and read one with ``evalmark prompts show NAME``.
"""

from evalmark.models._prompts import *  # noqa: F403
from evalmark.models._prompts import __all__ as __all__
