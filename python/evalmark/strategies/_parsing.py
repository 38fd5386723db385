"""Reading judges' replies: yes/no verdicts, grades and JSON judgments.

Deterministic and tolerant of the usual decoration (markdown, punctuation, chatter), strict
about meaning: a reply that does not say yes or no, or a grade out of range, is a
:class:`JudgeParseError` carrying the raw reply, never a guess.

* :func:`parse_yes_no` — the first word, markdown and punctuation stripped: ``"Yes."``,
  ``"**Yes**"``, ``"yes, because…"``, ``"True"`` → True.
* :func:`parse_grade` — the first standalone number: ``"4/5"``, ``"Score: 4 - good"`` → 4;
  ``"10"`` on a 1–5 scale is an error, or 5 with ``clamp=True``.
* :func:`parse_json_judgment` — ``{"score", "passed", "explanation"}`` from a code fence or
  from chatty text, found by brace-balanced scanning.
* :func:`parse_verdict_reply` / :func:`parse_grade_reply` — for replies to evalmark's own
  templates: the last ``VERDICT: yes|no`` / ``GRADE: n`` line when there is one, else the rules
  above.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from evalmark.errors import JudgeParseError
from evalmark.models._prompts import VERDICT_WORDS, parse_verdict
from evalmark.models._structured import json_object_texts

__all__ = [
    "JudgeParseError",
    "Judgment",
    "parse_grade",
    "parse_grade_reply",
    "parse_json_judgment",
    "parse_verdict_reply",
    "parse_yes_no",
]


def _excerpt(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


_LEADING_NOISE = re.compile(r"^[\s*_#>`\"'“”‘’\-(\[]+")
_FIRST_WORD = re.compile(r"[^\W\d_]+")


def parse_yes_no(text: str) -> bool:
    """True for a reply whose first word is yes, False for no (case, markdown, quotes and
    punctuation ignored). ``true``/``false``, ``pass``/``fail``, ``passed``/``failed`` and
    ``correct``/``incorrect`` are read the same way (the table
    :data:`~evalmark.models._prompts.templates.VERDICT_WORDS`). Anything else raises
    :class:`JudgeParseError`."""
    stripped = _LEADING_NOISE.sub("", text)
    match = _FIRST_WORD.match(stripped)
    word = match.group(0).casefold() if match else ""
    verdict = VERDICT_WORDS.get(word)
    if verdict is None:
        raise JudgeParseError(
            "the judge's reply does not start with a verdict (yes/no, true/false, pass/fail)",
            text,
        )
    return verdict


_NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w]|\.\d)")


def parse_grade(text: str, low: int = 1, high: int = 5, *, clamp: bool = False) -> int:
    """The first standalone whole number of ``text`` on the scale ``low``..``high``.

    Out of range: :class:`JudgeParseError`, or the nearest end of the scale with ``clamp``.
    A fractional first number (``"3.5"``) is an error: grades are whole numbers.
    """
    if low >= high:
        raise ValueError(f"a grade scale needs low < high, got {low}..{high}")
    match = _NUMBER.search(text)
    if match is None:
        raise JudgeParseError(f"the judge's reply holds no grade from {low} to {high}", text)
    value = float(match.group(1))
    if not value.is_integer():
        raise JudgeParseError(
            f"the judge gave {match.group(1)}, not a whole grade from {low} to {high}", text
        )
    grade = int(value)
    if low <= grade <= high:
        return grade
    if clamp:
        return min(high, max(low, grade))
    raise JudgeParseError(
        f"the judge gave {grade}, outside the scale {low}..{high} (pass clamp=True to clamp)",
        text,
    )


def parse_verdict_reply(text: str) -> bool:
    """A yes/no verdict: the last ``VERDICT: yes|no`` line if the reply has one, else
    :func:`parse_yes_no`."""
    verdict = parse_verdict(text)
    if verdict is not None and verdict.kind == "binary" and verdict.passed is not None:
        return verdict.passed
    return parse_yes_no(text)


def parse_grade_reply(text: str, low: int = 1, high: int = 5, *, clamp: bool = False) -> int:
    """A grade: the last ``GRADE: n`` line if the reply has one, else :func:`parse_grade`."""
    verdict = parse_verdict(text)
    if verdict is not None and verdict.kind == "graded" and verdict.grade is not None:
        return parse_grade(str(verdict.grade), low, high, clamp=clamp)
    return parse_grade(text, low, high, clamp=clamp)


@dataclass(frozen=True, slots=True)
class Judgment:
    """A judgment read from JSON: pass/fail, a score in [0, 1] and the judge's explanation."""

    passed: bool
    score: float
    explanation: str


def _json_objects(text: str) -> list[str]:
    """Candidate JSON object texts: those in code fences first, then every other one (the
    brace-balanced scan of :mod:`evalmark.models._structured`)."""
    return list(json_object_texts(text))


# a JSON "passed" may also be "1"/"0", on top of the verdict words
_JSON_VERDICTS = {**VERDICT_WORDS, "1": True, "0": False}


def _as_bool(value: Any, raw: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in _JSON_VERDICTS:
        return _JSON_VERDICTS[value.strip().casefold()]
    raise JudgeParseError(f'"passed" must be true or false, got {value!r}', raw)


def check_score_range(score_range: tuple[float, float]) -> tuple[float, float]:
    """``score_range`` as two finite floats (low, high) with low < high; ValueError otherwise."""
    try:
        low, high = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise ValueError(f"score_range must be (low, high), got {score_range!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(
            f"score_range must be (low, high) of finite numbers with low < high, got "
            f"{score_range!r}"
        )
    return low, high


def parse_json_judgment(
    text: str, *, threshold: float = 0.5, score_range: tuple[float, float] = (0.0, 1.0)
) -> Judgment:
    """The first JSON object in ``text`` with a ``score`` or ``passed`` field.

    ``score`` must be a number in ``score_range`` (default [0, 1]); it is normalised to [0, 1]
    as (score - low) / (high - low), so ``{"score": 85}`` with ``score_range=(0, 100)`` is
    0.85. ``passed`` is a boolean (or a verdict word such as "yes"/"no", "true"/"false").
    When only one is given the other is derived: passed = normalised score >= ``threshold``;
    score = 1.0 or 0.0.
    ``explanation`` (or ``reasoning``, ``reason``) defaults to "".
    """
    low, high = check_score_range(score_range)
    for candidate in _json_objects(text):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict) or not ({"score", "passed"} & data.keys()):
            continue
        score = data.get("score")
        if score is not None:
            if isinstance(score, bool) or not isinstance(score, int | float):
                raise JudgeParseError(f'"score" must be a number, got {score!r}', text)
            if not (math.isfinite(score) and low <= score <= high):
                hint = (
                    "; a judge on another scale needs score_range=(low, high)"
                    if (low, high) == (0.0, 1.0) and math.isfinite(score) and score > 1
                    else ""
                )
                raise JudgeParseError(
                    f'"score" must be in [{low:g}, {high:g}], got {score!r}{hint}', text
                )
            score = (float(score) - low) / (high - low)
        passed = _as_bool(data["passed"], text) if "passed" in data else None
        if passed is None:
            assert score is not None
            passed = float(score) >= threshold
        explanation = next(
            (
                data[k]
                for k in ("explanation", "reasoning", "reason")
                if isinstance(data.get(k), str)
            ),
            "",
        )
        return Judgment(
            passed=passed,
            score=float(score) if score is not None else (1.0 if passed else 0.0),
            explanation=explanation,
        )
    raise JudgeParseError('the judge\'s reply holds no JSON object with "score" or "passed"', text)
