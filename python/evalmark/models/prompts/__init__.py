"""Judge prompts: the line-verdict templates the suite checks use, and (soon) the catalog."""

from evalmark.models.prompts.templates import (
    CORRECTNESS,
    GROUNDEDNESS,
    PROMPTS,
    RELEVANCY,
    RUBRIC,
    VARIABLES,
    JudgePrompt,
    RenderedPrompt,
    Verdict,
    parse_verdict,
    read_prompt,
    replace_verdict,
)

__all__ = [
    "CORRECTNESS",
    "GROUNDEDNESS",
    "PROMPTS",
    "RELEVANCY",
    "RUBRIC",
    "VARIABLES",
    "JudgePrompt",
    "RenderedPrompt",
    "Verdict",
    "parse_verdict",
    "read_prompt",
    "replace_verdict",
]
