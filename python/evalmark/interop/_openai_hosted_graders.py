"""The hosted OpenAI Evals model graders, ``label_model`` and ``score_model``, imported as
``openai-grader`` checks (:mod:`evalmark.strategies._openai_graders`) that the suite's judge
decides.

The grader's ``input`` messages are kept as the user wrote them: each message's role and text
(a text content, or an ``input_text`` / ``output_text`` content's ``text``), with their
``{{item.FIELD}}`` and ``{{sample.output_text}}`` variables, unfilled. ``labels`` and
``passing_labels`` (``label_model``), ``range`` and ``pass_threshold`` (``score_model``) are the
check's options; the grader's ``model`` stays in ``source.json`` (the judge is the suite's).
The reply a run's grader recorded (its result's ``sample.output``) is decided as the check
decides a judge's reply, so the import can refuse a run the carried options do not reproduce.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, JudgeParseError, Problem
from evalmark.interop._model import Losses, as_mapping
from evalmark.strategies._openai_graders import VARIABLE, read_grade
from evalmark.strategies._registry import build_strategy

__all__ = ["graded_check", "recorded_grade"]

_KEYS = {
    "label_model": frozenset({"type", "name", "id", "model", "input", "labels", "passing_labels"}),
    "score_model": frozenset({"type", "name", "id", "model", "input", "range", "pass_threshold"}),
}
_ROLES = ("system", "developer", "user", "assistant")
_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _error(message: str, path: Path, record: str) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=str(path), record=record)])


def _content(content: Any) -> str | None:
    """A message's text: a text, or a text content part's ``text``; None for anything else."""
    if isinstance(content, str):
        return content
    if (
        isinstance(content, Mapping)
        and content.get("type") in ("input_text", "output_text")
        and isinstance(content.get("text"), str)
        and set(content) == {"type", "text"}
    ):
        return str(content["text"])
    return None


def _messages(
    criterion: Mapping[str, Any], where: str, name: str, path: Path, losses: Losses
) -> list[dict[str, str]] | None:
    raw = criterion.get("input")
    if not isinstance(raw, list) or not raw:
        raise _error(f"{criterion.get('type')} needs 'input' messages", path, f"{where}.input")
    messages = []
    for number, message in enumerate(raw):
        at = f"{where}.input[{number}]"
        if not isinstance(message, Mapping) or message.get("role") not in _ROLES:
            raise _error(f"a message needs a role ({', '.join(_ROLES)})", path, at)
        text = _content(message.get("content"))
        extra = set(message) - {"role", "content", "type"}
        if text is None or extra or message.get("type", "message") != "message":
            what = (
                f"grader {name!r}: message {number} is not a text message (images, audio or "
                "other parts are not carried)"
            )
            losses.refuse(f"criterion:{name}", what, str(path), None, at)
            return None
        unknown = [v for v in _TEMPLATE.findall(text) if not VARIABLE.fullmatch(v)]
        if unknown:
            what = (
                f"grader {name!r} uses {unknown[0]}; evalmark fills {{{{item.FIELD}}}} and "
                "{{sample.output_text}} only"
            )
            losses.refuse(f"criterion:{name}", what, str(path), None, at)
            return None
        messages.append({"role": str(message["role"]), "content": text})
    return messages


def _labels(value: Any, key: str, path: Path, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _error(f"'{key}' must be a list of texts", path, f"{where}.{key}")
    return list(dict.fromkeys(value))


def graded_check(
    criterion: Mapping[str, Any], where: str, check: str, path: Path, losses: Losses
) -> dict[str, Any] | None:
    """The ``openai-grader`` check of a ``label_model`` or ``score_model`` criterion named
    ``check`` in the suite; None when a loss was allowed."""
    kind = str(criterion["type"])
    name = str(criterion.get("name") or check)
    for key in sorted(set(criterion) - _KEYS[kind]):
        what = f"{kind} option {key!r} is not carried (the suite's judge answers as it is set)"
        losses.refuse(f"criterion.{key}", what, str(path), None, f"{where}.{key}")
    messages = _messages(criterion, where, name, path, losses)
    if messages is None:
        return None
    options: dict[str, Any] = {"grader": kind, "input": messages}
    if kind == "label_model":
        labels = _labels(criterion.get("labels"), "labels", path, where)
        passing = _labels(criterion.get("passing_labels"), "passing_labels", path, where)
        if not labels or not set(passing) <= set(labels):
            raise _error("passing_labels must be among the labels", path, f"{where}.labels")
        options.update({"labels": labels, "passing-labels": passing})
        return {"openai-grader": {**options, "name": check}}
    low, high = criterion.get("range", [0, 1]) or [0, 1]
    numbers = [low, high, criterion.get("pass_threshold", low)]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in numbers):
        raise _error("range and pass_threshold must be numbers", path, where)
    if not low < high:
        raise _error(f"range [{low}, {high}] is empty", path, f"{where}.range")
    options["range"] = [low, high]
    if "pass_threshold" in criterion:
        options["pass-threshold"] = criterion["pass_threshold"]
    else:
        what = f"score_model {name!r} has no pass_threshold: every grade passes"
        losses.refuse(f"criterion:{name}", what, str(path), None, where)
    return {"openai-grader": {**options, "name": check}}


def recorded_grade(
    options: Mapping[str, Any], result: Mapping[str, Any]
) -> tuple[bool, float] | None:
    """The verdict and score the check gives the reply the run's grader recorded (``result``'s
    ``sample.output``): a ``score_model``'s grade, a ``label_model``'s 1 or 0; None when the
    result holds no reply the check can read."""
    output = as_mapping(result.get("sample")).get("output")
    if not isinstance(output, list) or not output:
        return None
    text = as_mapping(output[0]).get("content")
    if not isinstance(text, str):
        return None
    grader = build_strategy("openai-grader", options)
    try:
        passed, score, grade = grader.decide(read_grade(text), text)
    except JudgeParseError:
        return None
    return passed, float(grade["result"]) if "result" in grade else score
