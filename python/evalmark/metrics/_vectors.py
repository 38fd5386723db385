"""Cosine similarity of embedding vectors: one pair, row by row, all pairs, best k per row."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import FloatArray, resolve_workers
from evalmark.metrics._native import core as _core


def _matrix(x: npt.ArrayLike, name: str) -> npt.NDArray[np.floating[Any]]:
    arr = np.asarray(x)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if arr.ndim != 2:
        raise MetricInputError(f"{name} must be 2-D (rows of vectors), got {arr.ndim}-D")
    return np.ascontiguousarray(arr)


def _vector(x: npt.ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise MetricInputError(f"{name} must be a 1-D vector, got {arr.ndim}-D")
    return np.ascontiguousarray(arr)


def cosine(expected: npt.ArrayLike, actual: npt.ArrayLike) -> float:
    """Cosine similarity of two vectors; 0.0 when either is zero."""
    return _core.cosine(_vector(expected, "expected"), _vector(actual, "actual"))


def _same_dtype(
    x: npt.NDArray[np.floating[Any]], y: npt.NDArray[np.floating[Any]]
) -> tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.floating[Any]]]:
    if x.dtype != y.dtype:
        return x.astype(np.float64), y.astype(np.float64)
    return x, y


def cosine_batch(
    expected: npt.ArrayLike, actual: npt.ArrayLike, *, workers: int | None = None
) -> FloatArray:
    """Cosine similarity of row i of ``expected`` with row i of ``actual``."""
    e, a = _same_dtype(_matrix(expected, "expected"), _matrix(actual, "actual"))
    return _core.cosine_batch(e, a, resolve_workers(workers))


def cosine_matrix(
    expected: npt.ArrayLike, actual: npt.ArrayLike, *, workers: int | None = None
) -> FloatArray:
    """Cosine similarity of every row of ``expected`` with every row of ``actual``: shape
    (len expected, len actual)."""
    e, a = _same_dtype(_matrix(expected, "expected"), _matrix(actual, "actual"))
    return _core.cosine_matrix(e, a, resolve_workers(workers))


def cosine_top_k(
    queries: npt.ArrayLike, choices: npt.ArrayLike, k: int, *, workers: int | None = None
) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """The ``k`` most similar rows of ``choices`` for each row of ``queries``.

    Returns ``(indices, scores)``, both of shape (len queries, min(k, len choices)): each row
    by score descending, ties broken by the lower index. The scores are bit for bit those of
    :func:`cosine_matrix`, but the whole matrix is never held: it is computed a block at a
    time, in memory bounded by the rows in flight and ``k``.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise MetricInputError(f"k must be a whole number >= 0, got {k!r}")
    e, a = _same_dtype(_matrix(queries, "queries"), _matrix(choices, "choices"))
    return _core.cosine_top_k(e, a, int(k), resolve_workers(workers))
