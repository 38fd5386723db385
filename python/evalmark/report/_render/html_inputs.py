"""What a case was asked and what it should have answered, for the HTML report.

A report holds each case's output and verdicts, not its sample; the page shows the question,
the expected answer, the expected facts and the context when the caller passes the samples
(``samples=``, matched by name). Samples and test cases are read by their attributes, so a
:class:`~evalmark.samples._sample.Sample` and a :class:`~evalmark.samples._case.TestCase` both work.
A judge's explanation is cleaned for display: its trailing ``VERDICT: yes|no`` or
``GRADE: n`` line is what the verdict column already says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CaseInput", "input_of", "judge_reason", "samples_by_name"]

# A judge's closing verdict, possibly in Markdown bold, at the very end of its reply. It holds
# the reply's last colon, so it is looked for only just before that colon.
_TAIL = 80
_BEFORE_COLON = 16
_CLOSING_VERDICT = re.compile(
    r"(?<![^\s*])(?:verdict\s*\**\s*:\s*\**\s*(?:yes|no)|grade\s*\**\s*:\s*\**\s*\d+)\b"
    r"\**\.?\s*\Z",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class CaseInput:
    """The reviewable inputs of one case; empty fields are not shown."""

    question: str | None = None
    expected: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    retrieved: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when there is nothing to show."""
        return not (
            self.question is not None
            or self.expected
            or self.facts
            or self.context
            or self.retrieved
        )


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _texts(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(_text(item) for item in value)
    return (_text(value),)


def _question(sample: Any) -> str | None:
    given = getattr(sample, "input", None)
    if given is not None:
        return _text(given)
    parameters = getattr(sample, "parameters", None)
    if parameters is None:
        return None
    values = list(parameters)
    if len(values) == 1:
        return _text(values[0])
    return _text(values)


def input_of(sample: Any) -> CaseInput:
    """The inputs of a sample or test case, read from its attributes."""
    expected = getattr(sample, "expected_output", None)
    return CaseInput(
        question=_question(sample),
        expected=_texts(expected)
        if expected is not None
        else _texts(getattr(sample, "expected_outputs", None)),
        facts=_texts(getattr(sample, "expected_facts", None)),
        context=_texts(getattr(sample, "context", None)),
        retrieved=_texts(getattr(sample, "retrieval_context", None)),
    )


def samples_by_name(samples: Iterable[Any] | Mapping[str, Any] | None) -> dict[str, Any]:
    """``samples`` by case name (a mapping is taken as name -> sample); the first sample of a
    name wins. Raises ``TypeError`` for a sample without a name."""
    if samples is None:
        return {}
    if isinstance(samples, Mapping):
        pairs: Iterable[tuple[Any, Any]] = samples.items()
    else:
        pairs = ((getattr(sample, "name", None), sample) for sample in samples)
    found: dict[str, Any] = {}
    for name, sample in pairs:
        if not isinstance(name, str):
            raise TypeError(
                f"samples= for the HTML report: every sample needs a name (a str), got "
                f"{type(sample).__name__} named {name!r}"
            )
        found.setdefault(name, sample)
    return found


def judge_reason(text: str) -> str:
    """``text`` without a closing ``VERDICT: yes|no`` or ``GRADE: n`` (the reason alone)."""
    colon = text.rfind(":", max(0, len(text) - _TAIL))
    if colon < 0:
        return text
    found = _CLOSING_VERDICT.search(text, max(0, colon - _BEFORE_COLON))
    if found is None:
        return text
    cut = found.start()
    while cut and text[cut - 1] == "*":
        cut -= 1
    if cut and not text[cut - 1].isspace():
        return text  # "**" glued to a word: not a verdict line
    return text[:cut].rstrip()
