"""Levenshtein distance and similarity over Unicode code points."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from evalmark.metrics._args import FloatArray, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core


def levenshtein_distance(expected: str, actual: str, *, max_chars: int | None = None) -> int:
    """Unit-cost edit distance over Unicode code points."""
    return _core.levenshtein_distance(expected, actual, max_chars)


def levenshtein_similarity(expected: str, actual: str, *, max_chars: int | None = None) -> float:
    """1 − distance / max(len expected, len actual); 1.0 when both are empty."""
    return _core.levenshtein_similarity(expected, actual, max_chars)


def levenshtein_distance_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> npt.NDArray[np.int64]:
    """Levenshtein distance for each pair of a batch."""
    return _core.levenshtein_distance_batch(
        texts_arg(expected), texts_arg(actual), resolve_workers(workers), max_chars
    )


def levenshtein_similarity_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Levenshtein similarity for each pair of a batch."""
    return _core.levenshtein_similarity_batch(
        texts_arg(expected), texts_arg(actual), resolve_workers(workers), max_chars
    )
