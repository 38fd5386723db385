"""Judge prompts: the catalog (``evalmark.prompts``) and the line-verdict templates.

The catalog (:data:`CATALOG`) holds evalmark's own judge prompts, grouped as quality, rag,
safety, security, trajectory and conversation. Each is a Markdown file with a YAML front matter
under ``catalog/`` that declares its variables; :meth:`CatalogPrompt.render` fills them in,
each in a fenced block, and asks for a JSON reply of a given shape (see
:mod:`evalmark.models.structured`). ``catalog.sha256`` pins the text of every prompt. Judge
with one through :class:`evalmark.strategies.llm_judge.LLMJudge`; list them with
``evalmark prompts ls``.

The four line-verdict templates (:data:`PROMPTS`: relevancy, groundedness, correctness,
rubric) end their replies with ``VERDICT: yes|no`` or ``GRADE: n``; the suite checks of the
same names and :class:`~evalmark.strategies.JudgeStrategy` use them.
"""

from evalmark.errors import PromptFileError, PromptVariableError
from evalmark.models.prompts.catalog import CATALOG, CATALOG_DIR, GROUPS, get_prompt
from evalmark.models.prompts.files import load_prompt, parse_prompt
from evalmark.models.prompts.model import (
    CatalogPrompt,
    FewShotExample,
    PromptVariable,
    RenderedCatalogPrompt,
    read_catalog_prompt,
)
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
