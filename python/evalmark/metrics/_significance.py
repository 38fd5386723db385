"""Paired significance of two systems on corpus BLEU or chrF, as ``sacrebleu.significance``.

Each sentence's sufficient statistics are computed once per system; a resample (or a random
swap of the two systems' sentences) is then a sum of rows, done as one matrix product, and the
kernel scores every summed row. The random draws are numpy's ``default_rng(seed)`` calls in
sacrebleu's order, so the p-values and intervals are sacrebleu's for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import bool_arg, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core
from evalmark.metrics._reference import ReferenceBatch, _references, bleu_statistics

SignificanceMetric = Literal["bleu", "chrf"]
_BLEU_STATS = ("tokenize", "lowercase")
_BLEU_SCORE = ("smooth_method", "smooth_value", "effective_order", "max_ngram_order")
_CHRF_STATS = ("whitespace", "lowercase")
_CHRF_SCORE = ("char_order", "word_order", "beta", "eps_smoothing")
_CHUNK = 256


@dataclass(frozen=True, slots=True)
class SystemEstimate:
    """One system's corpus score and its bootstrap estimate, all in [0, 1] (sacrebleu's / 100).

    ``mean`` is the mean over resamples; ``low`` and ``high`` are the resample scores at ranks
    ``n // 40`` and ``n - n // 40 - 1`` of the sorted n (the 95% interval sacrebleu's
    ``estimate_ci`` takes), and ``ci`` is its half-width, the "± ci" sacrebleu prints."""

    score: float
    mean: float
    low: float
    high: float

    @property
    def ci(self) -> float:
        """Half the width of the 95% interval: sacrebleu's ``Result.ci`` / 100."""
        return 0.5 * (self.high - self.low)


@dataclass(frozen=True, slots=True)
class PairedSignificance:
    """The outcome of a paired test: ``p_value`` that the candidate's difference from the
    baseline is due to chance, and each system's score with its 95% interval."""

    p_value: float
    baseline: SystemEstimate
    candidate: SystemEstimate
    test: Literal["paired_bootstrap", "paired_approximate_randomization"]
    metric: SignificanceMetric
    resamples: int
    seed: int


def _split(options: dict[str, Any], stats: tuple[str, ...], score: tuple[str, ...]) -> Any:
    unknown = sorted(set(options) - set(stats) - set(score))
    if unknown:
        raise TypeError(
            f"unknown option(s) {', '.join(unknown)}; this metric takes {stats + score}"
        )
    return {k: options[k] for k in stats if k in options}, {
        k: options[k] for k in score if k in options
    }


def _chrf_statistics(expected: Any, actual: Any, **kw: Any) -> npt.NDArray[np.int64]:
    order = (kw.get("char_order", 6), kw.get("word_order", 0), kw.get("beta", 2))
    return _core.chrf_statistics(
        _references(expected, actual),
        texts_arg(actual),
        *order,
        bool_arg("whitespace", kw.get("whitespace", False)),
        bool_arg("eps_smoothing", kw.get("eps_smoothing", False)),
        bool_arg("lowercase", kw.get("lowercase", False)),
        resolve_workers(None),
        None,
    )


def _scorer(
    metric: str, references: ReferenceBatch, baseline: Texts, candidate: Texts, options: Any
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], Callable[[Any], Any]]:
    """Both systems' per-sentence statistics (as float64, exact for integer sums below 2**53)
    and the function scoring each row of summed statistics."""
    if len(baseline) != len(candidate):
        raise MetricInputError(
            f"baseline has {len(baseline)} hypotheses and candidate {len(candidate)}; "
            "a paired test needs one of each per reference row"
        )
    if len(baseline) == 0:
        raise MetricInputError("a paired test needs at least one row")
    if metric == "bleu":
        stat_kw, score_kw = _split(options, _BLEU_STATS, _BLEU_SCORE)
        stat_kw["max_ngram_order"] = score_kw.get("max_ngram_order", 4)
        base_stats = bleu_statistics(references, baseline, **stat_kw)
        cand_stats = bleu_statistics(references, candidate, **stat_kw)

        def score(rows: Any) -> Any:
            return _core.bleu_row_scores(
                np.ascontiguousarray(rows, dtype=np.int64),
                score_kw.get("smooth_method", "exp"),
                score_kw.get("smooth_value"),
                bool_arg("effective_order", score_kw.get("effective_order", False)),
                score_kw.get("max_ngram_order", 4),
            )

    elif metric == "chrf":
        stat_kw, score_kw = _split(options, _CHRF_STATS, _CHRF_SCORE)
        base_stats = _chrf_statistics(references, baseline, **stat_kw, **score_kw)
        cand_stats = _chrf_statistics(references, candidate, **stat_kw, **score_kw)

        def score(rows: Any) -> Any:
            return _core.chrf_row_scores(
                np.ascontiguousarray(rows, dtype=np.int64),
                score_kw.get("char_order", 6),
                score_kw.get("word_order", 0),
                score_kw.get("beta", 2),
                bool_arg("eps_smoothing", score_kw.get("eps_smoothing", False)),
            )

    else:
        raise MetricInputError(f"metric must be 'bleu' or 'chrf', got {metric!r}")
    return base_stats.astype(np.float64), cand_stats.astype(np.float64), score


def _sums(weights: Callable[[int, int], Any], rows: int, stats: Any) -> Any:
    """Row sums of ``weights(start, stop) @ stats`` over chunks of resamples, as int64."""
    out = np.empty((rows, stats.shape[1]), dtype=np.int64)
    for start in range(0, rows, _CHUNK):
        stop = min(rows, start + _CHUNK)
        out[start:stop] = np.rint(weights(start, stop) @ stats)
    return out


def _counts(idxs: npt.NDArray[np.int64], n: int) -> Callable[[int, int], Any]:
    def weights(start: int, stop: int) -> Any:
        block = idxs[start:stop]
        flat = (block + (np.arange(block.shape[0]) * n)[:, None]).ravel()
        return np.bincount(flat, minlength=block.shape[0] * n).reshape(-1, n).astype(np.float64)

    return weights


def _estimate(score: float, samples: npt.NDArray[np.float64]) -> SystemEstimate:
    ordered = np.sort(samples)
    lower = len(ordered) // 40
    return SystemEstimate(
        float(score),
        float(ordered.mean()),
        float(ordered[lower]),
        float(ordered[len(ordered) - lower - 1]),
    )


def _bootstrap_scores(stats: Any, idxs: Any, score: Callable[[Any], Any]) -> Any:
    n = stats.shape[0]
    return score(_sums(_counts(idxs, n), idxs.shape[0], stats)) * 100.0


def _p_value(statistics: npt.NDArray[np.float64], observed: float) -> float:
    return (int(np.sum(statistics > observed)) + 1) / (len(statistics) + 1)


def _check(resamples: int, seed: int, name: str = "resamples") -> None:
    if not isinstance(resamples, int) or isinstance(resamples, bool):
        raise TypeError(f"{name} must be an int, got {type(resamples).__name__}")
    if resamples < 1:
        raise MetricInputError(f"{name} must be at least 1, got {resamples}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")


def paired_bootstrap(
    references: ReferenceBatch,
    baseline: Texts,
    candidate: Texts,
    metric: SignificanceMetric = "bleu",
    resamples: int = 1000,
    seed: int = 12345,
    **options: Any,
) -> PairedSignificance:
    """Paired bootstrap resampling (sacrebleu's ``paired-bs``): ``resamples`` draws of the
    sentence indices with replacement, shared by both systems; the p-value of the candidate's
    corpus-score difference and each system's mean and 95% interval, as sacrebleu's
    ``PairedTest(..., test_type='bs')`` with ``SACREBLEU_SEED=seed`` reports them. ``options``
    are the corpus metric's (``corpus_bleu``'s or ``corpus_chrf``'s, without ``workers``)."""
    _check(resamples, seed)
    base, cand, score = _scorer(metric, references, baseline, candidate, options)
    n = base.shape[0]
    idxs = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    base_full, cand_full = score(np.vstack([base.sum(0), cand.sum(0)])) * 100.0
    both = _sums(_counts(idxs, n), resamples, np.hstack([base, cand]))
    width = base.shape[1]
    base_scores = score(both[:, :width]) * 100.0
    cand_scores = score(both[:, width:]) * 100.0
    diffs = np.abs(cand_scores - base_scores)
    p = _p_value(diffs - diffs.mean(), abs(base_full - cand_full))
    return PairedSignificance(
        p,
        _estimate(base_full / 100, base_scores / 100),
        _estimate(cand_full / 100, cand_scores / 100),
        "paired_bootstrap",
        metric,
        resamples,
        seed,
    )


def paired_approximate_randomization(
    references: ReferenceBatch,
    baseline: Texts,
    candidate: Texts,
    metric: SignificanceMetric = "bleu",
    resamples: int = 10000,
    seed: int = 12345,
    confidence_resamples: int = 1000,
    **options: Any,
) -> PairedSignificance:
    """Paired approximate randomization (sacrebleu's ``paired-ar``): ``resamples`` trials, each
    swapping every sentence between the systems with probability 1/2; the p-value of the
    observed corpus-score difference, and each system's 95% interval from
    ``confidence_resamples`` bootstrap draws, as sacrebleu's ``PairedTest(...,
    test_type='ar', n_ar_confidence=confidence_resamples)`` reports them."""
    _check(resamples, seed)
    _check(confidence_resamples, seed, "confidence_resamples")
    base, cand, score = _scorer(metric, references, baseline, candidate, options)
    n = base.shape[0]
    rng = np.random.default_rng(seed)
    pick = rng.integers(2, size=(resamples, n), dtype=bool)
    cand_idxs = rng.choice(n, size=(confidence_resamples, n), replace=True)
    base_idxs = np.random.default_rng(seed).choice(n, size=(confidence_resamples, n), replace=True)
    base_full, cand_full = score(np.vstack([base.sum(0), cand.sum(0)])) * 100.0

    def weights(start: int, stop: int) -> Any:
        return pick[start:stop].astype(np.float64)

    # Trial t's pseudo-system a takes the baseline's sentence where pick[t] is set and the
    # candidate's elsewhere, b the others: a = cand total + pick @ (base - cand), b = the rest.
    shuffled_a = cand.sum(0).astype(np.int64) + _sums(weights, resamples, base - cand)
    shuffled_b = (base.sum(0) + cand.sum(0)).astype(np.int64) - shuffled_a
    scores_a = score(shuffled_a) * 100.0
    scores_b = score(shuffled_b) * 100.0
    p = _p_value(np.abs(scores_a - scores_b), abs(base_full - cand_full))
    return PairedSignificance(
        p,
        _estimate(base_full / 100, _bootstrap_scores(base, base_idxs, score) / 100),
        _estimate(cand_full / 100, _bootstrap_scores(cand, cand_idxs, score) / 100),
        "paired_approximate_randomization",
        metric,
        resamples,
        seed,
    )
