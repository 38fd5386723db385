"""GLEU and METEOR as NLTK computes them, and BERTScore over token embeddings you provide.

GLEU and METEOR split texts into tokens on whitespace, as ``str.split()`` does (NLTK takes
token lists; ``gleu(e, a)`` is ``sentence_gleu([e.split()], a.split())``). METEOR matches exact
and Porter-stem words only: NLTK's WordNet synonym stage is left out (its data is a separate
download), so scores equal NLTK's with a WordNet that knows no synonyms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import FloatArray, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core
from evalmark.metrics._reference import ReferenceBatch, References, _references


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise MetricInputError(f"{name} must be 1 or more, got {value}")
    return value


def _orders(min_len: int, max_len: int) -> tuple[int, int]:
    return _count("min_len", min_len), _count("max_len", max_len)


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    return float(value)


def gleu(
    expected: References,
    actual: str,
    *,
    min_len: int = 1,
    max_len: int = 4,
    max_chars: int | None = None,
) -> float:
    """Sentence GLEU of ``actual`` against ``expected`` (one reference or a list), in [0, 1]:
    NLTK's ``sentence_gleu`` on whitespace tokens, n-grams of ``min_len`` to ``max_len``."""
    return _core.gleu(expected, actual, *_orders(min_len, max_len), max_chars)


def gleu_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    min_len: int = 1,
    max_len: int = 4,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Sentence GLEU for each row; row i's references are ``expected[i]``."""
    return _core.gleu_batch(
        _references(expected, actual),
        texts_arg(actual),
        *_orders(min_len, max_len),
        resolve_workers(workers),
        max_chars,
    )


def corpus_gleu(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    min_len: int = 1,
    max_len: int = 4,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Corpus GLEU in [0, 1]: NLTK's ``corpus_gleu`` (matches and totals summed over rows
    before dividing), references given per row."""
    return _core.corpus_gleu(
        _references(expected, actual),
        texts_arg(actual),
        *_orders(min_len, max_len),
        resolve_workers(workers),
        max_chars,
    )


def _meteor_args(alpha: float, beta: float, gamma: float) -> tuple[float, float, float]:
    return _number("alpha", alpha), _number("beta", beta), _number("gamma", gamma)


def meteor(
    expected: References,
    actual: str,
    *,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    max_chars: int | None = None,
) -> float:
    """METEOR of ``actual`` against ``expected`` (one reference or a list: the best), in
    [0, 1]: NLTK's ``meteor_score`` on whitespace tokens, exact and stem matches only."""
    return _core.meteor(expected, actual, *_meteor_args(alpha, beta, gamma), max_chars)


def meteor_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """METEOR for each row; row i's references are ``expected[i]``."""
    return _core.meteor_batch(
        _references(expected, actual),
        texts_arg(actual),
        *_meteor_args(alpha, beta, gamma),
        resolve_workers(workers),
        max_chars,
    )


Embeddings = npt.ArrayLike
"""One text's token embeddings: a 2-D array, one row per token."""


def _side(
    rows: Sequence[Embeddings], weights: Sequence[npt.ArrayLike] | None, name: str
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """One side of a batch stacked: the token rows, each pair's offsets and the weights."""
    mats = [np.asarray(x, dtype=np.float64) for x in rows]
    for i, m in enumerate(mats):
        if m.ndim != 2 or m.shape[0] == 0:
            raise MetricInputError(
                f"row {i} of {name} must be a 2-D array of token embeddings with at least one "
                f"row, got shape {m.shape}"
            )
    offsets = np.zeros(len(mats) + 1, dtype=np.int64)
    np.cumsum([m.shape[0] for m in mats], out=offsets[1:])
    try:
        stacked = np.ascontiguousarray(np.concatenate(mats))
    except ValueError:
        dims = sorted({m.shape[1] for m in mats})
        raise MetricInputError(f"{name}: token embeddings of different dimensions {dims}") from None
    finite = np.isfinite(stacked).all(axis=1)
    if not finite.all():
        row = int(np.searchsorted(offsets, int(np.argmin(finite)), side="right")) - 1
        raise MetricInputError(
            f"row {row} of {name} contains NaN or infinity; embeddings must be finite"
        )
    if weights is None:
        return stacked, offsets, np.ones(len(stacked), dtype=np.float64)
    w = [np.asarray(x, dtype=np.float64) for x in weights]
    for i, (x, m) in enumerate(zip(w, mats, strict=True)):
        if x.shape != (m.shape[0],) or not np.isfinite(x).all() or (x < 0).any() or x.sum() <= 0:
            raise MetricInputError(
                f"row {i} of the {name} idf needs one finite, non-negative weight per token "
                f"({m.shape[0]}), not all zero; got shape {x.shape}"
            )
    return stacked, offsets, np.ascontiguousarray(np.concatenate(w))


def _baseline(baseline: Sequence[float] | None) -> npt.NDArray[np.float64] | None:
    if baseline is None:
        return None
    arr = np.asarray(baseline, dtype=np.float64)
    if arr.shape != (3,) or not np.isfinite(arr).all() or (arr >= 1).any():
        raise MetricInputError(
            "baseline must be three finite numbers below 1 (precision, recall, F1), "
            f"got {baseline!r}"
        )
    return arr


def bertscore_batch(
    expected: Sequence[Embeddings],
    actual: Sequence[Embeddings],
    *,
    idf: tuple[Sequence[npt.ArrayLike], Sequence[npt.ArrayLike]] | None = None,
    baseline: Sequence[float] | None = None,
    workers: int | None = None,
) -> FloatArray:
    """BERTScore of each pair from token embeddings: an (n, 3) array of precision, recall and
    F1 (the ``bert_score`` package's greedy cosine matching). ``idf`` gives per-token weights
    as (expected weights, actual weights), one 1-D array per row; ``baseline`` rescales each
    column as ``(score - b) / (1 - b)``, as ``rescale_with_baseline`` does."""
    if len(expected) != len(actual):
        raise MetricInputError(
            f"expected has {len(expected)} rows and actual {len(actual)}; they must pair up"
        )
    if idf is not None and (
        len(idf) != 2 or len(idf[0]) != len(expected) or len(idf[1]) != len(actual)
    ):
        raise MetricInputError("idf must be (expected weights, actual weights), one array per row")
    base = _baseline(baseline)
    if not expected:
        return np.zeros((0, 3), dtype=np.float64)
    scores: FloatArray | None = None
    if idf is None:
        # float64 matrices read in place; anything else, or a bad row, takes the checked path.
        try:
            scores = _core.bertscore_lists(list(expected), list(actual), resolve_workers(workers))
        except MetricInputError:
            scores = None
    if scores is None:
        scores = _checked_bertscore(expected, actual, idf, workers)
    if base is not None:
        scores = (scores - base) / (1.0 - base)
    return scores


def _checked_bertscore(
    expected: Sequence[Embeddings],
    actual: Sequence[Embeddings],
    idf: tuple[Sequence[npt.ArrayLike], Sequence[npt.ArrayLike]] | None,
    workers: int | None,
) -> FloatArray:
    """BERTScore of each pair after converting and checking every row in Python."""
    e, eo, ew = _side(expected, None if idf is None else idf[0], "expected")
    a, ao, aw = _side(actual, None if idf is None else idf[1], "actual")
    if e.shape[1] != a.shape[1]:
        raise MetricInputError(
            f"expected and actual token embeddings differ in dimension: {e.shape[1]} and "
            f"{a.shape[1]}"
        )
    scores: FloatArray = _core.bertscore_rows(e, eo, a, ao, ew, aw, resolve_workers(workers))
    return scores


def bertscore(
    expected: Embeddings,
    actual: Embeddings,
    *,
    idf: tuple[npt.ArrayLike, npt.ArrayLike] | None = None,
    baseline: Sequence[float] | None = None,
) -> tuple[float, float, float]:
    """BERTScore (precision, recall, F1) of ``actual``'s token embeddings (one row per token)
    against ``expected``'s; see :func:`bertscore_batch` for ``idf`` and ``baseline``."""
    weights = None if idf is None else ([idf[0]], [idf[1]])
    row = bertscore_batch([expected], [actual], idf=weights, baseline=baseline, workers=1)[0]
    return float(row[0]), float(row[1]), float(row[2])
