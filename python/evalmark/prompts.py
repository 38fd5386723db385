"""``evalmark.prompts``: the judge prompt catalog (the public name of
:mod:`evalmark.models.prompts`).

::

    from evalmark.prompts import CATALOG, get_prompt

    for name, prompt in CATALOG.items():
        print(name, prompt.group, prompt.summary)
    messages = get_prompt("conciseness").render(inputs="...", outputs="...")

Judge with a prompt through :class:`evalmark.strategies.llm_judge.LLMJudge`; list them with
``evalmark prompts ls`` and read one with ``evalmark prompts show NAME``.
"""

from evalmark.models.prompts import (
    CATALOG,
    CATALOG_DIR,
    CORRECTNESS,
    GROUNDEDNESS,
    GROUPS,
    PROMPTS,
    RELEVANCY,
    RUBRIC,
    VARIABLES,
    CatalogPrompt,
    FewShotExample,
    JudgePrompt,
    PromptFileError,
    PromptVariable,
    PromptVariableError,
    RenderedCatalogPrompt,
    RenderedPrompt,
    Verdict,
    get_prompt,
    load_prompt,
    parse_prompt,
    parse_verdict,
    read_catalog_prompt,
    read_prompt,
    replace_verdict,
)

__all__ = [
    "CATALOG",
    "CATALOG_DIR",
    "CORRECTNESS",
    "GROUNDEDNESS",
    "GROUPS",
    "PROMPTS",
    "RELEVANCY",
    "RUBRIC",
    "VARIABLES",
    "CatalogPrompt",
    "FewShotExample",
    "JudgePrompt",
    "PromptFileError",
    "PromptVariable",
    "PromptVariableError",
    "RenderedCatalogPrompt",
    "RenderedPrompt",
    "Verdict",
    "get_prompt",
    "load_prompt",
    "parse_prompt",
    "parse_verdict",
    "read_catalog_prompt",
    "read_prompt",
    "replace_verdict",
]
