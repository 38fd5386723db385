"""Edit distances over Unicode code points or over sequences of hashable items, as RapidFuzz's
``Levenshtein`` and ``Indel``: distances with weights and a cutoff, normalized distances, the
alignment (as edits or as blocks), the all-pairs matrix and the best matches of a query."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Literal, cast, overload

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import FloatArray, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._edit_forms import (
    EditSequence,
    Opcode,
    by_rows,
    holds_sequences,
    pair,
    shared,
)
from evalmark.metrics._native import core as _core

Weights = tuple[int, int, int]
"""The costs of an insertion, a deletion and a substitution (RapidFuzz's ``weights``)."""
Editop = tuple[str, int, int]
"""One edit: ``("insert" | "delete" | "replace", position in expected, position in actual)``."""
IntArray = npt.NDArray[np.int64]
EditTexts = Texts | Sequence[EditSequence]
"""A batch of texts, or (as a list or tuple) of sequences of hashable items."""


def _weights(weights: Weights) -> Weights:
    if (
        not isinstance(weights, tuple | list)
        or len(weights) != 3
        or not all(isinstance(w, int) and not isinstance(w, bool) for w in weights)
    ):
        raise TypeError(f"weights must be a tuple of three ints, got {weights!r}")
    if min(weights) < 0:
        raise MetricInputError(f"weights must be at least 0, got {tuple(weights)}")
    return (weights[0], weights[1], weights[2])


def _count_cutoff(score_cutoff: int | None) -> int | None:
    if score_cutoff is None:
        return None
    if not isinstance(score_cutoff, int) or isinstance(score_cutoff, bool):
        raise TypeError(f"score_cutoff must be an int or None, got {score_cutoff!r}")
    if score_cutoff < 0:
        raise MetricInputError(f"score_cutoff must be at least 0, got {score_cutoff}")
    return score_cutoff


def _fraction_cutoff(score_cutoff: float | None) -> float | None:
    if score_cutoff is None:
        return None
    if isinstance(score_cutoff, bool) or not isinstance(score_cutoff, int | float):
        raise TypeError(f"score_cutoff must be a number or None, got {score_cutoff!r}")
    if not score_cutoff >= 0.0:
        raise MetricInputError(f"score_cutoff must be at least 0, got {score_cutoff}")
    return float(score_cutoff)


def levenshtein_distance(
    expected: EditSequence,
    actual: EditSequence,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: int | None = None,
    max_chars: int | None = None,
) -> int:
    """Weighted edit distance turning ``expected`` into ``actual`` (``weights`` are the costs
    of an insertion, a deletion and a substitution); above ``score_cutoff``, ``score_cutoff +
    1``. RapidFuzz's ``Levenshtein.distance(expected, actual, weights=..., score_cutoff=...)``."""
    return _core.levenshtein_distance(
        *pair(expected, actual), _weights(weights), _count_cutoff(score_cutoff), max_chars
    )


def levenshtein_distance_batch(
    expected: EditTexts,
    actual: EditTexts,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: int | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> IntArray:
    """Levenshtein distance for each pair of a batch."""
    return by_rows(
        _core.levenshtein_distance_batch,
        expected,
        actual,
        _weights(weights),
        _count_cutoff(score_cutoff),
        resolve_workers(workers),
        max_chars,
    )


def levenshtein_similarity(
    expected: EditSequence,
    actual: EditSequence,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: float | None = None,
    max_chars: int | None = None,
) -> float:
    """1 − the normalized distance (1 − distance / max(len expected, len actual) for unit
    weights); 1.0 when both are empty; 0.0 below ``score_cutoff``. Texts compare by code
    point, sequences of hashable items item by item. RapidFuzz's
    ``Levenshtein.normalized_similarity``; weights (1, 1, 2) give Indel's."""
    cutoff = _fraction_cutoff(score_cutoff)
    if cutoff is None and tuple(_weights(weights)) == (1, 1, 1):
        return float(_core.levenshtein_similarity(*pair(expected, actual), max_chars))
    distance = _core.levenshtein_normalized_distance(
        *pair(expected, actual), _weights(weights), None, max_chars
    )
    return float(_similarity(np.float64(distance), cutoff))


def levenshtein_similarity_batch(
    expected: EditTexts,
    actual: EditTexts,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: float | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Levenshtein similarity for each pair of a batch (texts, or sequences of items)."""
    cutoff = _fraction_cutoff(score_cutoff)
    threads = resolve_workers(workers)
    if cutoff is None and tuple(_weights(weights)) == (1, 1, 1):
        return by_rows(_core.levenshtein_similarity_batch, expected, actual, threads, max_chars)
    distances = by_rows(
        _core.levenshtein_normalized_distance_batch,
        expected,
        actual,
        _weights(weights),
        None,
        threads,
        max_chars,
    )
    return np.asarray(_similarity(np.asarray(distances, dtype=np.float64), cutoff))


def _similarity(distance: FloatArray | np.float64, cutoff: float | None) -> FloatArray:
    """1 − the normalized distance, 0.0 where that is below ``cutoff``."""
    similarity = 1.0 - distance
    if cutoff is None:
        return np.asarray(similarity)
    return np.asarray(np.where(similarity >= cutoff, similarity, 0.0))


def levenshtein_normalized_distance(
    expected: EditSequence,
    actual: EditSequence,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: float | None = None,
    max_chars: int | None = None,
) -> float:
    """The distance over the largest distance texts of these lengths can have, computed as
    one division (0.2, not 1 − 0.8); 0.0 for two empty texts; above ``score_cutoff``, 1.0.
    RapidFuzz's ``Levenshtein.normalized_distance``."""
    return _core.levenshtein_normalized_distance(
        *pair(expected, actual), _weights(weights), _fraction_cutoff(score_cutoff), max_chars
    )


def levenshtein_normalized_distance_batch(
    expected: EditTexts,
    actual: EditTexts,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: float | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Normalized Levenshtein distance for each pair of a batch."""
    return by_rows(
        _core.levenshtein_normalized_distance_batch,
        expected,
        actual,
        _weights(weights),
        _fraction_cutoff(score_cutoff),
        resolve_workers(workers),
        max_chars,
    )


def indel_distance(
    expected: EditSequence,
    actual: EditSequence,
    *,
    score_cutoff: int | None = None,
    max_chars: int | None = None,
) -> int:
    """Insertions and deletions only (len expected + len actual − 2·LCS); above
    ``score_cutoff``, ``score_cutoff + 1``. RapidFuzz's ``Indel.distance``."""
    return _core.indel_distance(*pair(expected, actual), _count_cutoff(score_cutoff), max_chars)


def indel_distance_batch(
    expected: EditTexts,
    actual: EditTexts,
    *,
    score_cutoff: int | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> IntArray:
    """Indel distance for each pair of a batch."""
    return by_rows(
        _core.indel_distance_batch,
        expected,
        actual,
        _count_cutoff(score_cutoff),
        resolve_workers(workers),
        max_chars,
    )


def indel_normalized_distance(
    expected: EditSequence,
    actual: EditSequence,
    *,
    score_cutoff: float | None = None,
    max_chars: int | None = None,
) -> float:
    """Indel distance over the two lengths' sum (0.0 for two empty texts); above
    ``score_cutoff``, 1.0. RapidFuzz's ``Indel.normalized_distance``."""
    return _core.indel_normalized_distance(
        *pair(expected, actual), _fraction_cutoff(score_cutoff), max_chars
    )


def indel_normalized_distance_batch(
    expected: EditTexts,
    actual: EditTexts,
    *,
    score_cutoff: float | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Normalized Indel distance for each pair of a batch."""
    return by_rows(
        _core.indel_normalized_distance_batch,
        expected,
        actual,
        _fraction_cutoff(score_cutoff),
        resolve_workers(workers),
        max_chars,
    )


@overload
def levenshtein_editops(
    expected: EditSequence,
    actual: EditSequence,
    *,
    form: Literal["editops"] = ...,
    max_chars: int | None = None,
) -> list[Editop]: ...
@overload
def levenshtein_editops(
    expected: EditSequence,
    actual: EditSequence,
    *,
    form: Literal["opcodes"],
    max_chars: int | None = None,
) -> list[Opcode]: ...
def levenshtein_editops(
    expected: EditSequence,
    actual: EditSequence,
    *,
    form: Literal["editops", "opcodes"] = "editops",
    max_chars: int | None = None,
) -> list[Editop] | list[Opcode]:
    """The edits of a minimal unit-cost alignment turning ``expected`` into ``actual``:
    RapidFuzz's ``Levenshtein.editops(expected, actual).as_list()``, the same alignment among
    equal ones. ``form="opcodes"``: the same alignment as blocks ``(tag, expected_start,
    expected_end, actual_start, actual_end)`` covering both, ``"equal"`` ones included:
    ``Levenshtein.opcodes(expected, actual).as_list()``. Pairs whose lengths multiply past 2^30
    raise ``MetricInputError``."""
    if form not in ("editops", "opcodes"):
        raise MetricInputError(f"form must be 'editops' or 'opcodes', got {form!r}")
    if form == "opcodes":
        return _core.levenshtein_opcodes(*pair(expected, actual), max_chars)
    return _core.levenshtein_editops(*pair(expected, actual), max_chars)


def levenshtein_cdist(
    queries: EditTexts,
    choices: EditTexts,
    *,
    weights: Weights = (1, 1, 1),
    score_cutoff: int | None = None,
    workers: int | None = None,
) -> IntArray:
    """The matrix of distances, ``[i, j]`` from ``queries[i]`` to ``choices[j]``:
    RapidFuzz's ``process.cdist(queries, choices, scorer=Levenshtein.distance)`` (int64).
    Rows may be sequences of hashable items (in a list or tuple), compared item by item."""
    left, right = shared(queries, choices)
    return _core.levenshtein_cdist(
        left,
        right,
        _weights(weights),
        _count_cutoff(score_cutoff),
        resolve_workers(workers),
    )


def levenshtein_extract(
    query: EditSequence,
    choices: Sequence[EditSequence],
    *,
    limit: int | None = 5,
    weights: Weights = (1, 1, 1),
    score_cutoff: int | None = None,
    workers: int | None = None,
) -> list[tuple[EditSequence, int, int]]:
    """The ``limit`` choices nearest to ``query`` (all with ``None``), as ``(choice, distance,
    index)``, nearest first and equal distances by index; choices past ``score_cutoff`` are
    left out. RapidFuzz's ``process.extract(query, choices, scorer=Levenshtein.distance)``;
    with ``limit=1``, a list of the one tuple ``process.extractOne`` returns (empty where it
    returns ``None``). The query and choices may be sequences of hashable items."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise MetricInputError(f"limit must be a whole number >= 0 or None, got {limit!r}")
    cutoff = _count_cutoff(score_cutoff)
    # Past any length or distance a machine word holds, a limit or cut-off changes nothing.
    limit = limit if limit is None else min(limit, sys.maxsize)
    cutoff = cutoff if cutoff is None else min(cutoff, sys.maxsize)
    options = (_weights(weights), cutoff, resolve_workers(workers))
    if isinstance(query, str):
        # Texts as they are; a TypeError from a row that is not a str means sequences.
        try:
            return _core.levenshtein_extract(
                query, texts_arg(cast(Texts, choices)), limit, *options, choices
            )
        except TypeError:
            if not holds_sequences(choices):
                raise
    queries, texts = shared([query], choices)
    return _core.levenshtein_extract(queries[0], texts, limit, *options, choices)
