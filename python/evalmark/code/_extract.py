"""Getting the code out of a model's reply.

Four ways: ``"none"`` takes the whole reply as the code; ``"markdown"`` takes fenced code
blocks (```` ``` ```` or ``~~~``), filtered by language, skipping shell, console, text and JSON
blocks unless asked for; ``"llm"`` asks a chat model to copy the code out (recorded like any
judge call; see :func:`llm_extract`); or any function ``(reply) -> str | None``.
Finding nothing is not an error: :class:`Extraction` says why, and the evaluators turn that
into a failed result whose metadata ``reason`` is ``code_extraction_failed``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

from evalmark.models._protocols import ChatModel
from evalmark.results._results import EvaluationResult

__all__ = [
    "DEFAULT_SKIP",
    "EXTRACTION_PROMPT",
    "NO_CODE",
    "CodeBlock",
    "Extraction",
    "Extractor",
    "Select",
    "extract_code",
    "extraction_failed",
    "language_aliases",
    "llm_extract",
    "markdown_blocks",
]

Extractor = Literal["none", "markdown", "llm"] | Callable[[str], "str | None"]
Select = Literal["first", "last", "all"]

DEFAULT_SKIP: frozenset[str] = frozenset(
    {
        "sh",
        "bash",
        "shell",
        "zsh",
        "console",
        "shell-session",
        "shellsession",
        "sh-session",
        "text",
        "txt",
        "plain",
        "plaintext",
        "output",
        "json",
        "jsonc",
        "json5",
    }
)
"""Block languages ``"markdown"`` extraction skips unless a language filter asks for them."""

_ALIASES: dict[str, frozenset[str]] = {
    "python": frozenset({"python", "py", "python3", "py3"}),
    "javascript": frozenset({"javascript", "js", "node", "mjs"}),
    "typescript": frozenset({"typescript", "ts"}),
    "shell": frozenset({"shell", "sh", "bash", "zsh"}),
    "json": frozenset({"json", "jsonc", "json5"}),
    "yaml": frozenset({"yaml", "yml"}),
    "toml": frozenset({"toml"}),
}


def language_aliases(language: str) -> frozenset[str]:
    """The info-string words that mean ``language`` (``python`` -> python, py, python3...)."""
    folded = language.strip().lower()
    for names in _ALIASES.values():
        if folded in names:
            return names
    return frozenset({folded})


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """One fenced block: its language (the info string's first word, lowercased; empty when
    none), its code, and the 1-based line of its opening fence."""

    language: str
    code: str
    line: int


@dataclass(frozen=True, slots=True)
class Extraction:
    """The code found in a reply, or None with ``reason`` saying why nothing was found."""

    code: str | None
    reason: str = ""
    language: str = ""
    blocks: int = 0  # fenced blocks seen in the reply

    @property
    def ok(self) -> bool:
        """True when there is code to check."""
        return self.code is not None


_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def markdown_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block of a Markdown text, in order.

    An opening fence is three or more backticks or tildes (indentation allowed, as inside list
    items); it closes at a line holding only a fence of the same character at least as long.
    A block left open runs to the end of the text (a reply cut short). The opening fence's
    indentation is removed from the block's lines.
    """
    blocks: list[CodeBlock] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if match is None or (match["fence"][0] == "`" and "`" in match["info"]):
            index += 1
            continue
        fence, indent = match["fence"], len(match["indent"])
        info = match["info"].strip()
        language = info.split()[0].strip("{}.").lower() if info else ""
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body: list[str] = []
        start = index + 1
        index += 1
        while index < len(lines) and not closing.match(lines[index]):
            body.append(_dedent(lines[index], indent))
            index += 1
        index += 1  # past the closing fence
        blocks.append(CodeBlock(language, "\n".join(body) + ("\n" if body else ""), start))
    return blocks


def _dedent(line: str, width: int) -> str:
    cut = 0
    while cut < width and cut < len(line) and line[cut] in " \t":
        cut += 1
    return line[cut:]


def extract_code(
    text: str,
    extract: Extractor = "markdown",
    *,
    language: str | None = None,
    select: Select = "first",
    skip: Collection[str] = DEFAULT_SKIP,
    unlabeled: bool = True,
    model: ChatModel | None = None,
) -> Extraction:
    """The code in ``text``.

    With ``"markdown"``: blocks whose language is ``language`` (any alias: ``py`` for
    ``python``), plus unlabeled blocks unless ``unlabeled=False``; without ``language``, every
    block whose language is not in ``skip``. ``select`` picks the ``first`` or ``last`` block,
    or joins ``all`` of them with a blank line. With ``"llm"``: ``model`` copies the code out.
    A function extractor returns the code, or None (or an empty string) for nothing.
    """
    if callable(extract):
        found = extract(text)
        if found is None or not found.strip():
            return Extraction(None, "the extractor function found no code")
        return Extraction(found, language=language or "")
    if extract == "none":
        if not text.strip():
            return Extraction(None, "the output is empty")
        return Extraction(text, language=language or "")
    if extract == "llm":
        if model is None:
            raise ValueError("extract='llm' needs model= (a chat model; a cassette records it)")
        return llm_extract(text, model, language=language)
    if extract != "markdown":
        raise ValueError(
            f"unknown extractor {extract!r}; use 'none', 'markdown', 'llm' or a function "
            "(reply) -> str | None"
        )
    if select not in ("first", "last", "all"):
        raise ValueError(f"select must be 'first', 'last' or 'all', got {select!r}")
    blocks = markdown_blocks(text)
    if not blocks:
        return Extraction(None, "no fenced code block in the output")
    if language is not None:
        wanted = language_aliases(language)
        chosen = [b for b in blocks if b.language in wanted or (unlabeled and not b.language)]
    else:
        skipped = {name.lower() for name in skip}
        chosen = [b for b in blocks if b.language not in skipped]
    if not chosen:
        seen = ", ".join(dict.fromkeys(b.language or "unlabeled" for b in blocks))
        what = f"{language} code block" if language is not None else "code block to check"
        return Extraction(None, f"no {what} in the output (found: {seen})", blocks=len(blocks))
    if select == "first":
        picked = chosen[:1]
    elif select == "last":
        picked = chosen[-1:]
    else:
        picked = chosen
    code = "\n".join(block.code for block in picked)
    if not code.strip():
        return Extraction(None, "the code block is empty", blocks=len(blocks))
    found_language = language or picked[0].language
    return Extraction(code, language=found_language, blocks=len(blocks))


def extraction_failed(reason: str, **metadata: Any) -> EvaluationResult:
    """The failed result for an output with no code in it: metadata ``reason`` is
    ``code_extraction_failed`` and ``extraction`` says what was missing."""
    return EvaluationResult.failing(
        f"no code to check: {reason}",
        metadata={"reason": "code_extraction_failed", "extraction": reason, **metadata},
    )


# --------------------------------------------------------------------------- by a model
# For replies whose code is not fenced, or is spread over prose, a chat model copies the code
# out verbatim; the call goes through the model like any judge call, so a cassette records it.

NO_CODE = "NONE"

EXTRACTION_PROMPT = """You copy source code out of an assistant's reply so that it can be run.

Return the {language} code of the reply below, exactly as written: keep every line, its
indentation and its order, and change nothing. Leave out the prose around it, and any example
output or shell commands that are not part of the program. When the code comes in several
pieces, return them in order, separated by one blank line. When the reply holds no code at all,
answer with the single word {no_code}.

Answer with the code only: no explanation, no Markdown fence.

<reply>
{reply}
</reply>"""


def llm_extract(text: str, model: ChatModel, *, language: str | None = None) -> Extraction:
    """The code of ``text`` as ``model`` copies it out (temperature 0)."""
    if not text.strip():
        return Extraction(None, "the output is empty")
    prompt = EXTRACTION_PROMPT.format(language=language or "program", no_code=NO_CODE, reply=text)
    reply = model.chat([{"role": "user", "content": prompt}], temperature=0).text
    answer = reply.strip()
    if not answer or answer.strip(".").upper() == NO_CODE:
        return Extraction(None, f"the extraction model {model.model_id!r} found no code")
    blocks = markdown_blocks(answer)
    if blocks and answer.lstrip().startswith(("```", "~~~")):
        code = "\n".join(block.code for block in blocks)
    else:
        code = answer + "\n"
    if not code.strip():
        return Extraction(None, f"the extraction model {model.model_id!r} returned an empty block")
    return Extraction(code, language=language or "")
