"""Judge prompts: the catalog (``evalmark.prompts``) and the line-verdict templates.

Every judge prompt is a :class:`JudgePrompt`. The catalog (:data:`CATALOG`) holds evalmark's
own judge prompts, grouped as quality, rag, safety, security, trajectory and conversation.
Each is a Markdown file with a YAML front matter under ``catalog/`` that declares its
variables; :meth:`JudgePrompt.render` fills them in, each in a fenced block, and asks for a
reply in a parse mode (by default a JSON reply of a given shape; see
:mod:`evalmark.models._structured`). ``catalog.sha256`` pins the text of every prompt. List
them with ``evalmark prompts ls``.

The four line-verdict prompts (:data:`PROMPTS`: relevancy, groundedness, agreement, rubric)
are catalog files too, pinned by the same checksums; they ask for a reply that ends with
``VERDICT: yes|no`` or ``GRADE: n``, and their rendered text starts with ``evalmark-judge:``
(the bytes recorded cassettes hold); the suite checks of the same names use them.
:func:`template_prompt` makes a prompt of your own string. Any of them judges through the one
judge check, :class:`evalmark.strategies._llm_judge.LLMJudge`, in any parse mode
(:mod:`evalmark.models._prompts.answers`). :func:`get_prompt` finds a prompt by name; a name
means one prompt.
"""

from evalmark.errors import PromptFileError, PromptVariableError
from evalmark.models._prompts import catalog as _catalog
from evalmark.models._prompts.answers import PARSE_MODES, ParseMode
from evalmark.models._prompts.catalog import (
    CATALOG,
    CATALOG_DIR,
    GROUPS,
    PROMPTS,
    get_prompt,
    prompt_names,
)
from evalmark.models._prompts.files import load_prompt, parse_prompt
from evalmark.models._prompts.model import (
    FewShotExample,
    JudgePrompt,
    PromptVariable,
    RenderedPrompt,
    read_prompt,
)
from evalmark.models._prompts.templates import (
    VARIABLES,
    VERDICT_WORDS,
    Verdict,
    parse_verdict,
    replace_verdict,
    template_prompt,
)

__all__ = [
    "AGREEMENT",
    "CATALOG",
    "CATALOG_DIR",
    "GROUNDEDNESS",
    "GROUPS",
    "PARSE_MODES",
    "PROMPTS",
    "RELEVANCY",
    "RUBRIC",
    "VARIABLES",
    "VERDICT_WORDS",
    "FewShotExample",
    "JudgePrompt",
    "ParseMode",
    "PromptFileError",
    "PromptVariable",
    "PromptVariableError",
    "RenderedPrompt",
    "Verdict",
    "get_prompt",
    "load_prompt",
    "parse_prompt",
    "parse_verdict",
    "prompt_names",
    "read_prompt",
    "replace_verdict",
    "template_prompt",
]


def __getattr__(name: str) -> JudgePrompt:
    """The line-verdict prompts ``RELEVANCY``, ``GROUNDEDNESS``, ``AGREEMENT``, ``RUBRIC``,
    read on first use (:mod:`evalmark.models._prompts.catalog`)."""
    prompt: JudgePrompt = getattr(_catalog, name)
    return prompt
