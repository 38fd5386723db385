"""Your own judge templates (:func:`template_prompt`) and reading the verdict out of a judge's
line reply. A template is a :class:`~evalmark.models._prompts.model.JudgePrompt`, like the
catalog's prompts; the catalog's line-verdict prompts (relevancy, groundedness, agreement,
rubric: :data:`~evalmark.models._prompts.catalog.PROMPTS`) are files of the catalog whose
rendered text starts with a line ``evalmark-judge: <name>``.

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

from evalmark.models._prompts.model import JudgePrompt, PromptVariable

VARIABLES = ("question", "response", "expected_output", "context")

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
