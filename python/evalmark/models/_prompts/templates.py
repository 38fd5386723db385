"""The line-verdict judge prompts (relevancy, groundedness, agreement, rubric), your own
templates (:func:`template_prompt`), and reading the verdict out of a judge's reply. All are
:class:`~evalmark.models._prompts.model.JudgePrompt` s, like the catalog's.

Every rendered line-verdict prompt starts with a line ``evalmark-judge: <name>`` and puts each
input in a delimited block::

    <<<BEGIN DOCUMENT>>>
    ...
    <<<END DOCUMENT>>>

so the prompt can be read back deterministically (``RuleJudge`` does); see
:mod:`evalmark.models._prompts.fence` for how values are fenced.
A binary judge ends its reply with ``VERDICT: yes`` or ``VERDICT: no`` (true/false, pass/fail,
passed/failed and correct/incorrect are read the same way: :data:`VERDICT_WORDS`); a graded
judge with ``GRADE: n``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection, Mapping
from typing import Literal

import msgspec

from evalmark.models._prompts.fence import first_line_value, read_blocks
from evalmark.models._prompts.model import JudgePrompt, PromptVariable

VARIABLES = ("question", "response", "expected_output", "context")

LINE_HEADER = "evalmark-judge: "
# The words a binary verdict may be given in, and what each means: one table for the
# VERDICT line and for a reply's first word (strategies._parsing.parse_yes_no), compared
# case-insensitively. Nothing else is read as a verdict.
VERDICT_WORDS: Mapping[str, bool] = {
    "yes": True,
    "true": True,
    "pass": True,
    "passed": True,
    "correct": True,
    "no": False,
    "false": False,
    "fail": False,
    "failed": False,
    "incorrect": False,
}
_VERDICT = re.compile(
    r"^[ \t]*\**[ \t]*verdict[ \t]*\**[ \t]*:[ \t]*\**[ \t]*("
    + "|".join(sorted(VERDICT_WORDS, key=len, reverse=True))
    + r")\b",
    re.I | re.M,
)
_GRADE = re.compile(r"^[ \t]*\**[ \t]*grade[ \t]*\**[ \t]*:[ \t]*\**[ \t]*(\d+)\b", re.I | re.M)

_DESCRIPTIONS = {
    "question": "the question that was asked",
    "response": "the answer under test",
    "expected_output": "the reference answer",
    "context": "the source documents",
}


def _line_prompt(
    name: str,
    *,
    group: str,
    title: str,
    system: str,
    paragraphs: list[str],
    labels: Mapping[str, str],
    claim: str,
    evidence: str,
    reply: str = "verdict",
) -> JudgePrompt:
    body = "\n\n".join(paragraphs)
    used = re.findall(r"\{\{(\w+)\}\}", body)
    variables = tuple(
        PromptVariable(v, _DESCRIPTIONS[v], label=labels[v]) for v in dict.fromkeys(used)
    )
    return JudgePrompt(
        name=name,
        group=group,
        title=title,
        summary=title,
        system=system,
        body=body,
        variables=variables,
        rule={"kind": "line", "claim": claim, "evidence": evidence},
        source="evalmark",
        reply="grade" if reply == "grade" else "verdict",
        header=LINE_HEADER,
    )


RELEVANCY = _line_prompt(
    "relevancy",
    group="quality",
    title="Does the answer address the question?",
    system=(
        "You review answers given by an assistant. You decide only whether an answer "
        "addresses what was asked, not whether it is true."
    ),
    paragraphs=[
        "Someone asked the question below and received the response below.",
        "{{question}}",
        "{{response}}",
        "Does the response deal with the question that was asked, rather than with "
        "something else, and does it attempt to answer it? An answer that is on topic but "
        "evasive counts as no.",
    ],
    labels={"question": "QUESTION", "response": "RESPONSE"},
    claim="QUESTION",
    evidence="RESPONSE",
)

GROUNDEDNESS = _line_prompt(
    "groundedness",
    group="rag",
    title="Is every statement of the answer supported by the context?",
    system=(
        "You are a careful fact-checker. You compare a claim with a source document and "
        "accept only what the document itself states or directly implies."
    ),
    paragraphs=[
        "Here is a source document and a claim made from it.",
        "{{context}}",
        "{{response}}",
        "Is every statement in the claim supported by the document? Knowledge from outside "
        "the document does not count as support; a claim that contradicts the document, or "
        "adds facts it does not contain, is not supported.",
    ],
    labels={"context": "DOCUMENT", "response": "CLAIM"},
    claim="CLAIM",
    evidence="DOCUMENT",
)

AGREEMENT = _line_prompt(
    "agreement",
    group="quality",
    title="Does the answer agree with the reference?",
    system=(
        "You grade answers against a reference answer written by an expert. Wording may "
        "differ; meaning must not."
    ),
    paragraphs=[
        "{{question}}",
        "{{expected_output}}",
        "{{response}}",
        "Does the response give the same answer as the reference, with no statement that "
        "conflicts with it? Missing a fact the reference treats as essential counts as "
        "incorrect; extra detail that does not conflict is fine.",
    ],
    labels={"question": "QUESTION", "expected_output": "REFERENCE", "response": "RESPONSE"},
    claim="REFERENCE",
    evidence="RESPONSE",
)

RUBRIC = _line_prompt(
    "rubric",
    group="quality",
    title="A grade from 1 to 5 against the reference",
    system="You grade answers on a scale from 1 to 5 using the rubric you are given.",
    paragraphs=[
        "{{question}}",
        "{{expected_output}}",
        "{{response}}",
        "Grade the response against the reference:\n"
        "5: as correct and complete as the reference;\n"
        "4: correct, with a minor omission;\n"
        "3: partly correct, missing something important;\n"
        "2: mostly wrong, with some correct elements;\n"
        "1: wrong, off topic or empty.",
    ],
    labels={"question": "QUESTION", "expected_output": "REFERENCE", "response": "RESPONSE"},
    claim="REFERENCE",
    evidence="RESPONSE",
    reply="grade",
)

PROMPTS: Mapping[str, JudgePrompt] = {
    prompt.name: prompt for prompt in (RELEVANCY, GROUNDEDNESS, AGREEMENT, RUBRIC)
}


def template_prompt(template: str, *, extra: Collection[str] | None = ()) -> JudgePrompt:
    """Your own judge prompt from a string with ``{variables}`` (``str.format`` syntax): one
    user message, the values as they are (a list joined by blank lines). The variables are
    :data:`VARIABLES` and the ``extra`` names (None: any name). ValueError naming an unknown
    variable."""
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
    unknown = sorted(set(fields) - set(VARIABLES) - set(extra or ()))
    if unknown and extra is not None:
        raise ValueError(
            f"judge template uses unknown variable(s) {', '.join(unknown)}; the variables "
            f"are {', '.join('{' + v + '}' for v in VARIABLES)}"
        )
    variables = tuple(PromptVariable(name, name) for name in dict.fromkeys(fields))
    return JudgePrompt(
        name="custom",
        group="custom",
        title="your own template",
        summary="your own template",
        system="",
        body=template,
        variables=variables,
        reply="verdict",
        header="",
        fenced=False,
    )


class RenderedPrompt(msgspec.Struct, frozen=True):
    """What can be read back from a rendered judge prompt: its name and its blocks."""

    name: str
    blocks: dict[str, str]


def read_prompt(text: str) -> RenderedPrompt | None:
    """Read the template name and blocks out of a prompt rendered here; None if it is not one."""
    name = first_line_value(text, LINE_HEADER)
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
        return Verdict(kind="binary", passed=VERDICT_WORDS[last_verdict.group(1).lower()])
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
