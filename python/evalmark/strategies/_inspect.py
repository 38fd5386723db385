"""inspect_ai's text scorers ``match`` and ``includes``, re-scored offline with their
semantics (not evalmark's ``exact-match`` or ``contains``).

``match``: both texts trimmed of whitespace, case-folded unless ``ignore-case`` is false,
then whitespace and punctuation stripped from both ends, and the target found at
``location`` of the answer (``begin``, ``end``, ``any`` or ``exact``). ``includes``: the
target (case-folded unless ``ignore-case`` is false) is a substring of the answer. A sample
passes when one of its targets matches. inspect's numeric ``match`` is not reproduced.

A column is judged in one native call (``evalmark._core.inspect_match_batch``): ASCII texts by
byte rules, and the other characters by a table made here from this Python's own
``str.casefold`` and ``str.isspace`` (``_CHARS``, filled as characters are first seen), so the
two agree under any Unicode version. A text the native side cannot read (a lone surrogate)
goes through the Python definition, :func:`_python_found`.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import eq
from typing import Any

import numpy as np

from evalmark.metrics._native import core as _core
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import expected_texts, output_text

__all__ = [
    "INSPECT_LOCATIONS",
    "INSPECT_SCORERS",
    "InspectScorer",
    "inspect_match",
    "inspect_match_column",
    "inspect_match_pairs",
]

INSPECT_SCORERS: tuple[str, ...] = ("match", "includes")
"""The inspect_ai scorers re-scored offline."""
INSPECT_LOCATIONS: tuple[str, ...] = ("begin", "end", "any", "exact")
"""Where inspect's ``match`` looks for the target."""

_EDGES = string.whitespace + string.punctuation


_COMPARE: dict[str, Callable[[str, str], bool]] = {
    "begin": str.startswith,
    "end": str.endswith,
    "exact": eq,
    "any": str.__contains__,
}


def _prepared(texts: Iterable[str], scorer: str, ignore_case: bool) -> list[str]:
    """The texts as ``scorer`` compares them (trimmed, case-folded, edges stripped)."""
    if scorer == "includes":
        return list(map(str.casefold, texts)) if ignore_case else list(texts)
    values = map(str.strip, texts)
    if ignore_case:
        values = map(str.casefold, values)
    return list(map(str.strip, values, repeat(_EDGES)))


_CHARS: dict[int, tuple[str, bool]] = {}
"""A non-ASCII code point to its ``casefold()`` and ``isspace()``, for the native call."""


def _learn(codes: list[int]) -> None:
    """Add the rules of ``codes`` to ``_CHARS``."""
    for code in codes:
        char = chr(code)
        _CHARS[code] = (char.casefold(), char.isspace())


def _python_found(
    answers: Sequence[str], targets: Sequence[str], scorer: str, location: str, ignore_case: bool
) -> list[bool]:
    """Whether each answer matches its target (flat columns, pair by pair), by the Python
    definition of the scorer."""
    values = _prepared(answers, scorer, ignore_case)
    wanted_texts = _prepared(targets, scorer, ignore_case)
    compare = _COMPARE["any" if scorer == "includes" else location]
    return list(map(compare, values, wanted_texts))


def inspect_match_pairs(
    answers: Sequence[str], targets: Sequence[str], scorer: str, location: str, ignore_case: bool
) -> list[bool]:
    """Whether each answer matches its one target (two flat columns) as inspect_ai's
    ``scorer`` decides, in one native call (two when characters are seen for the first
    time); a pair with a lone surrogate in Python."""
    where = "any" if scorer == "includes" else location
    _COMPARE[where]  # an unknown location is a KeyError, as in the Python definition
    kind = "includes" if scorer == "includes" else "match"
    case = bool(ignore_case)
    raw, pending, missing = _core.inspect_match_batch(answers, targets, where, kind, case, _CHARS)
    found: list[bool] = np.frombuffer(raw, dtype=np.bool_).tolist()
    if missing:  # characters seen for the first time: learn them, then judge those pairs again
        _learn(missing)
        raw, left, _ = _core.inspect_match_batch(
            [answers[k] for k in pending], [targets[k] for k in pending], where, kind, case, _CHARS
        )
        for k, verdict in zip(pending, raw, strict=True):
            found[k] = verdict == 1
        pending = [pending[j] for j in left]
    if pending:
        again = _python_found(
            [answers[k] for k in pending],
            [targets[k] for k in pending],
            scorer,
            location,
            ignore_case,
        )
        for k, verdict in zip(pending, again, strict=True):
            found[k] = verdict
    return found


def inspect_match_column(
    answers: Sequence[str],
    targets: Sequence[Sequence[str]],
    *,
    scorer: str = "match",
    location: str = "end",
    ignore_case: bool = True,
) -> list[bool]:
    """Whether each answer matches one of its targets as inspect_ai's ``scorer`` decides
    (the same verdicts as :func:`inspect_match` per pair; no target: no match), in one pass
    over the column."""
    if len(answers) != len(targets):
        raise ValueError("answers and targets must have the same length")
    owners: list[int] | None = None
    flat_answers: Sequence[str] = answers
    try:  # one target each (or no pairs), read in one pass
        flat_targets = [target for (target,) in targets]
    except ValueError:  # several (or no) targets: one pair per target, a sample passes on any
        owners = [i for i, wanted in enumerate(targets) for _ in wanted]
        flat_answers = [answers[i] for i in owners]
        flat_targets = [target for wanted in targets for target in wanted]
    found = inspect_match_pairs(flat_answers, flat_targets, scorer, location, ignore_case)
    if owners is None:
        return found
    verdicts = [False] * len(answers)
    for owner, hit in zip(owners, found, strict=True):
        if hit:
            verdicts[owner] = True
    return verdicts


def inspect_match(
    answer: str,
    target: str,
    *,
    scorer: str = "match",
    location: str = "end",
    ignore_case: bool = True,
) -> bool:
    """Whether ``answer`` matches ``target`` as inspect_ai's ``scorer`` decides."""
    return inspect_match_column(
        [answer], [[target]], scorer=scorer, location=location, ignore_case=ignore_case
    )[0]


class InspectScorer:
    """One inspect_ai text scorer (``match`` or ``includes``) against the sample's targets
    (its expected output or outputs)."""

    def __init__(
        self,
        scorer: str = "match",
        *,
        location: str = "end",
        ignore_case: bool = True,
        name: str | None = None,
    ) -> None:
        if scorer not in INSPECT_SCORERS:
            raise ValueError(f"scorer must be one of {', '.join(INSPECT_SCORERS)}")
        if location not in INSPECT_LOCATIONS:
            raise ValueError(f"location must be one of {', '.join(INSPECT_LOCATIONS)}")
        self.scorer = scorer
        self.location = location
        self.ignore_case = ignore_case
        self.name = name or "inspect-scorer"

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """1 (inspect's C) when the answer matches a target, else 0 (I)."""
        answer = output_text(output, strategy=self.name, sample=sample)
        targets = expected_texts(sample, strategy=self.name)
        if inspect_match_column(
            [answer],
            [targets],
            scorer=self.scorer,
            location=self.location,
            ignore_case=self.ignore_case,
        )[0]:
            return EvaluationResult.passing(1.0, f"{self.scorer}: C")
        return EvaluationResult.failing(0.0, f"{self.scorer}: I, no target matches")
