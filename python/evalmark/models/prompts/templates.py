"""The line-verdict judge templates (relevancy, groundedness, correctness, rubric), their
rendering, and reading the verdict out of a judge's reply.

Every rendered prompt starts with a line ``evalmark-judge: <name>`` and puts each input in a
delimited block::

    <<<BEGIN DOCUMENT>>>
    ...
    <<<END DOCUMENT>>>

so the prompt can be read back deterministically (``RuleJudge`` does); see
:mod:`evalmark.models.prompts.fence` for how values are fenced.
A binary judge ends its reply with ``VERDICT: yes`` or ``VERDICT: no``; a graded judge with
``GRADE: n``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from evalmark.models.prompts.fence import defuse, first_line_value, read_blocks

VARIABLES = ("question", "response", "expected_output", "context")

_HEADER = "evalmark-judge: "
_VERDICT = re.compile(
    r"^[ \t]*\**[ \t]*verdict[ \t]*\**[ \t]*:[ \t]*\**[ \t]*(yes|no)\b", re.I | re.M
)
_GRADE = re.compile(r"^[ \t]*\**[ \t]*grade[ \t]*\**[ \t]*:[ \t]*\**[ \t]*(\d+)\b", re.I | re.M)


class JudgePrompt(msgspec.Struct, frozen=True):
    """A judge prompt: a system message, a user template with ``{variables}``, the kind of
    verdict it asks for, and which blocks hold the claim and the evidence."""

    name: str
    kind: Literal["binary", "graded"]
    system: str
    template: str
    claim_block: str
    evidence_block: str
    grades: tuple[int, ...] = ()

    @property
    def variables(self) -> tuple[str, ...]:
        """The variables the template needs, in order of first use."""
        seen: list[str] = []
        for _, field, _, _ in string.Formatter().parse(self.template):
            if field and field not in seen:
                seen.append(field)
        return tuple(seen)

    def render(self, **values: str | Sequence[str]) -> list[dict[str, str]]:
        """The chat messages for ``values``. A ``context`` may be a list of passages.

        Raises ``ValueError`` listing the variables the template needs when one is missing, and
        naming any variable evalmark does not know (a typo).
        """
        needed = self.variables
        unknown = sorted(set(values) - set(VARIABLES))
        if unknown:
            raise ValueError(
                f"judge prompt {self.name!r}: unknown variable(s) {', '.join(unknown)}; "
                f"it needs {_listing(needed)}"
            )
        missing = [name for name in needed if values.get(name) is None]
        if missing:
            raise ValueError(
                f"judge prompt {self.name!r} needs {_listing(needed)}; missing {_listing(missing)}"
            )
        filled = {name: defuse(_as_text(name, values[name])) for name in needed}
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.template.format_map(filled)},
        ]


def _listing(names: Sequence[str]) -> str:
    return ", ".join("{" + name + "}" for name in names)


def _as_text(name: str, value: str | Sequence[str]) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return "\n\n".join(value)
    raise TypeError(f"judge prompt variable {name!r} must be a str or a list of str")


def _block(name: str, variable: str) -> str:
    return f"<<<BEGIN {name}>>>\n{{{variable}}}\n<<<END {name}>>>"


_BINARY_ANSWER = (
    "Think it through briefly, then end your answer with one line that reads exactly "
    "`VERDICT: yes` or `VERDICT: no`."
)

RELEVANCY = JudgePrompt(
    name="relevancy",
    kind="binary",
    system=(
        "You review answers given by an assistant. You decide only whether an answer "
        "addresses what was asked, not whether it is true."
    ),
    template="\n\n".join(
        [
            _HEADER + "relevancy",
            "Someone asked the question below and received the response below.",
            _block("QUESTION", "question"),
            _block("RESPONSE", "response"),
            "Does the response deal with the question that was asked, rather than with "
            "something else, and does it attempt to answer it? An answer that is on topic but "
            "evasive counts as no. " + _BINARY_ANSWER,
        ]
    ),
    claim_block="QUESTION",
    evidence_block="RESPONSE",
)

GROUNDEDNESS = JudgePrompt(
    name="groundedness",
    kind="binary",
    system=(
        "You are a careful fact-checker. You compare a claim with a source document and "
        "accept only what the document itself states or directly implies."
    ),
    template="\n\n".join(
        [
            _HEADER + "groundedness",
            "Here is a source document and a claim made from it.",
            _block("DOCUMENT", "context"),
            _block("CLAIM", "response"),
            "Is every statement in the claim supported by the document? Knowledge from outside "
            "the document does not count as support; a claim that contradicts the document, or "
            "adds facts it does not contain, is not supported. " + _BINARY_ANSWER,
        ]
    ),
    claim_block="CLAIM",
    evidence_block="DOCUMENT",
)

CORRECTNESS = JudgePrompt(
    name="correctness",
    kind="binary",
    system=(
        "You grade answers against a reference answer written by an expert. Wording may "
        "differ; meaning must not."
    ),
    template="\n\n".join(
        [
            _HEADER + "correctness",
            _block("QUESTION", "question"),
            _block("REFERENCE", "expected_output"),
            _block("RESPONSE", "response"),
            "Does the response give the same answer as the reference, with no statement that "
            "conflicts with it? Missing a fact the reference treats as essential counts as "
            "incorrect; extra detail that does not conflict is fine. " + _BINARY_ANSWER,
        ]
    ),
    claim_block="REFERENCE",
    evidence_block="RESPONSE",
)

RUBRIC = JudgePrompt(
    name="rubric",
    kind="graded",
    system="You grade answers on a scale from 1 to 5 using the rubric you are given.",
    template="\n\n".join(
        [
            _HEADER + "rubric",
            _block("QUESTION", "question"),
            _block("REFERENCE", "expected_output"),
            _block("RESPONSE", "response"),
            "Grade the response against the reference:\n"
            "5: as correct and complete as the reference;\n"
            "4: correct, with a minor omission;\n"
            "3: partly correct, missing something important;\n"
            "2: mostly wrong, with some correct elements;\n"
            "1: wrong, off topic or empty.\n"
            "Explain in a sentence or two, then end with one line that reads exactly "
            "`GRADE: n` where n is a whole number from 1 to 5.",
        ]
    ),
    claim_block="REFERENCE",
    evidence_block="RESPONSE",
    grades=(1, 2, 3, 4, 5),
)

PROMPTS: Mapping[str, JudgePrompt] = {
    prompt.name: prompt for prompt in (RELEVANCY, GROUNDEDNESS, CORRECTNESS, RUBRIC)
}


class RenderedPrompt(msgspec.Struct, frozen=True):
    """What can be read back from a rendered judge prompt: its name and its blocks."""

    name: str
    blocks: dict[str, str]


def read_prompt(text: str) -> RenderedPrompt | None:
    """Read the template name and blocks out of a prompt rendered here; None if it is not one."""
    name = first_line_value(text, _HEADER)
    if name is None:
        return None
    return RenderedPrompt(name=name, blocks=read_blocks(text))


class Verdict(msgspec.Struct, frozen=True):
    """A judge's verdict: ``passed`` for a yes/no answer, or ``grade`` for a graded one."""

    kind: Literal["binary", "graded"]
    passed: bool | None = None
    grade: int | None = None


def parse_verdict(text: str) -> Verdict | None:
    """The last ``VERDICT: yes|no`` or ``GRADE: n`` line of a reply, or None if there is none."""
    verdicts = list(_VERDICT.finditer(text))
    grades = list(_GRADE.finditer(text))
    last_verdict = verdicts[-1] if verdicts else None
    last_grade = grades[-1] if grades else None
    if last_verdict is None and last_grade is None:
        return None
    if last_grade is None or (
        last_verdict is not None and last_verdict.start() > last_grade.start()
    ):
        assert last_verdict is not None
        return Verdict(kind="binary", passed=last_verdict.group(1).lower() == "yes")
    return Verdict(kind="graded", grade=int(last_grade.group(1)))


def replace_verdict(text: str, verdict: Verdict) -> str:
    """``text`` with its last verdict line rewritten to ``verdict``."""
    pattern = _VERDICT if verdict.kind == "binary" else _GRADE
    matches = list(pattern.finditer(text))
    new_line = (
        f"VERDICT: {'yes' if verdict.passed else 'no'}"
        if verdict.kind == "binary"
        else f"GRADE: {verdict.grade}"
    )
    if not matches:
        return f"{text.rstrip()}\n{new_line}"
    last = matches[-1]
    line_end = text.find("\n", last.start())
    end = len(text) if line_end < 0 else line_end
    return text[: last.start()] + new_line + text[end:]
