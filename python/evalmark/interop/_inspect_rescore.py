"""Reading an inspect_ai log's answers and recorded scores, and re-scoring its ``match`` and
``includes`` scorers over whole columns: each scorer re-scores its column in one pass
(:func:`evalmark.strategies._inspect.inspect_match_column`) after the answers and recorded
scores are read (only what is compared is decoded from the samples' JSON text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter, methodcaller
from typing import Any

import msgspec

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._inspect_log import decode
from evalmark.interop._model import as_mapping
from evalmark.strategies._inspect import inspect_match_column

__all__ = ["Score", "answers", "check_parity", "recorded_scores"]

_NULL = msgspec.Raw(b"null")


class _Output(msgspec.Struct, gc=False):
    """What the answer is read from in a sample's ``output`` (the rest is skipped)."""

    completion: Any = None
    choices: msgspec.Raw = _NULL


class Score(msgspec.Struct, gc=False):
    """What the re-score compares in a recorded score: its value (the rest is skipped)."""

    value: Any = None


_OUTPUT = msgspec.json.Decoder(_Output)
_SCORES = msgspec.json.Decoder(dict[str, Score] | None)
_SCORE_VALUE, _COMPLETION = attrgetter("value"), attrgetter("completion")
_VERDICTS = {"C": True, "I": False}
_LETTERS = {True: "C", False: "I"}


def _error(message: str, where: str, field: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=where, record=field)])


def _completion(output: Mapping[str, Any], where: str) -> str:
    """The answer text: ``output.completion``, else the first choice's text content."""
    if isinstance(output.get("completion"), str):
        return str(output["completion"])
    choices = output.get("choices") or []
    message = as_mapping(as_mapping(choices[0]).get("message")) if choices else {}
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    raise _error("the sample has no output text", where, "output")


def _answer(output: Any, where: str) -> str:
    """The answer text of a sample's ``output`` (JSON text or decoded)."""
    if type(output) is msgspec.Raw:
        try:
            found = _OUTPUT.decode(output)
        except msgspec.ValidationError:  # not an object
            return _completion({}, where)
        return _found_answer(found, where)
    return _completion(output if type(output) is dict else {}, where)


def _found_answer(found: _Output, where: str) -> str:
    if type(found.completion) is str:
        return found.completion
    return _completion({"completion": found.completion, "choices": decode(found.choices)}, where)


def answers(
    outputs: Sequence[Any], wheres: Sequence[str]
) -> tuple[list[str], ImportFormatError | None]:
    """The answer text of each sample's ``output`` (JSON text or decoded), in order, up to
    the first sample that has none, and the error naming that one (None when all have one)."""
    found = _column(outputs, _OUTPUT)
    if found is not None:
        completions = list(map(_COMPLETION, found))
        if set(map(type, completions)) <= {str}:  # every answer is its completion text
            return completions, None
    texts: list[str] = []
    add = texts.append
    try:
        for output, where in zip(outputs, wheres, strict=False):  # wheres: every sample read
            add(_answer(output, where))
    except ImportFormatError as exc:
        return texts, exc
    return texts, None


def _scores(scores: Any) -> Mapping[str, Any]:
    """The recorded scores by scorer (each score's value only, when it is JSON text)."""
    if type(scores) is msgspec.Raw:
        try:
            return _SCORES.decode(scores) or {}
        except msgspec.ValidationError:  # not an object of objects: read as it is
            scores = decode(scores)
    return scores if type(scores) is dict else {}


def recorded_scores(column: Sequence[Any]) -> list[Mapping[str, Any]]:
    """The recorded scores of each sample by scorer, in order."""
    found = _column(column, _SCORES)
    if found is not None:
        return [scores or {} for scores in found]
    return [_scores(scores) for scores in column]


def _column(column: Sequence[Any], decoder: msgspec.json.Decoder[Any]) -> list[Any] | None:
    """Each value of ``column`` (JSON texts) decoded by ``decoder``, with no Python step per
    value; None when one is decoded already or is not of the decoder's type."""
    try:
        return list(map(decoder.decode, column))
    except (TypeError, msgspec.ValidationError):  # not all texts; not all of the type
        return None


def _value(score: Any) -> Any:
    if type(score) is Score:
        return score.value
    return score.get("value") if type(score) is dict else None


def check_parity(
    checks: Sequence[tuple[str, str, str, bool]],
    names: Sequence[str],
    targets: Sequence[list[str]],
    texts: Sequence[str],
    scores: Sequence[Mapping[str, Any]],
    wheres: Sequence[str],
) -> None:
    """Refuse when a re-scored scorer disagrees with the score the log recorded (the first
    sample that does, and its first such scorer)."""
    first: tuple[int, int, Any, bool] | None = None
    for order, (scorer, kind, location, ignore_case) in enumerate(checks):
        recorded = list(map(methodcaller("get", scorer), scores))
        if None not in recorded and set(map(type, recorded)) == {Score}:
            count = len(scores)  # every sample read: the columns as they are
            rows: Sequence[int] = range(count)
            answers = texts if len(texts) == count else texts[:count]
            goals = targets if len(targets) == count else targets[:count]
            values = list(map(_SCORE_VALUE, recorded))
            if [] in goals:
                goals = [found or [""] for found in goals]
        else:
            rows = [i for i, found in enumerate(scores) if scorer in found]
            if not rows:
                continue
            answers = [texts[i] for i in rows]
            goals = [targets[i] or [""] for i in rows]
            values = [_value(scores[i][scorer]) for i in rows]
        got = inspect_match_column(
            answers, goals, scorer=kind, location=location, ignore_case=ignore_case
        )
        if values == [_LETTERS[verdict] for verdict in got]:  # every recorded score agrees
            continue
        for i, value, verdict in zip(rows, values, got, strict=True):
            wanted = _VERDICTS.get(value) if isinstance(value, str) else None
            if wanted is None or wanted != verdict:
                if first is None or (i, order) < first[:2]:
                    first = (i, order, value, verdict)
                break
    if first is not None:
        i, order, value, verdict = first
        scorer = checks[order][0]
        raise _error(
            f"sample {names[i]}: the recorded {scorer} score {value!r} differs from the "
            f"re-score {'C' if verdict else 'I'}; the log's scorer options may not be the ones "
            "it ran with",
            wheres[i],
            f"scores.{scorer}",
        )
