"""``evalmark.prompts``: the judge prompt catalog (its values live in
:mod:`evalmark.models._prompts`).

::

    from evalmark.prompts import get_prompt, prompt_names

    for name in prompt_names():
        print(name, get_prompt(name).summary)
    messages = get_prompt("conciseness").render(inputs="...", outputs="...")

Judge with a prompt through :class:`evalmark.strategies.LLMJudge`; list them with
``evalmark prompts ls`` and read one with ``evalmark prompts show NAME``.
"""

from evalmark.models._prompts import (
    FewShotExample,
    JudgePrompt,
    ParseMode,
    Verdict,
    get_prompt,
    load_prompt,
    prompt_names,
)

__all__ = [
    "FewShotExample",
    "JudgePrompt",
    "ParseMode",
    "Verdict",
    "get_prompt",
    "load_prompt",
    "prompt_names",
]
