"""ROUGE over a corpus with bootstrap confidence intervals (rouge-score's
``scoring.BootstrapAggregator``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import FloatArray, Stemmer, Tokenizer
from evalmark.metrics._column import Texts
from evalmark.metrics._multi import TargetBatch
from evalmark.metrics._overlap import rouge_l_batch, rouge_lsum_batch, rouge_n_batch

_MEASURES = ("precision", "recall", "fmeasure")
_TYPE = re.compile(r"rouge([1-9])|rougeL|rougeLsum")


@dataclass(frozen=True, slots=True)
class RougeScore:
    """Precision, recall and F-measure of one ROUGE type (rouge-score's ``Score``)."""

    precision: float
    recall: float
    fmeasure: float


@dataclass(frozen=True, slots=True)
class RougeAggregate:
    """The bootstrap interval of one ROUGE type over a corpus (rouge-score's
    ``AggregateScore``): ``low`` and ``high`` are the percentiles bounding the confidence
    interval of the resample means, ``mid`` their 50th percentile."""

    low: RougeScore
    mid: RougeScore
    high: RougeScore


def _scores(
    rouge_type: str,
    expected: TargetBatch,
    actual: Texts,
    tokenizer: Tokenizer,
    stemmer: Stemmer | None,
) -> npt.NDArray[np.float64]:
    """An (n, 3) matrix of each row's precision, recall and F-measure."""
    match = _TYPE.fullmatch(rouge_type) if isinstance(rouge_type, str) else None
    if match is None:
        raise MetricInputError(
            f"unknown ROUGE type {rouge_type!r}: use rouge1 to rouge9, rougeL or rougeLsum"
        )
    columns: list[FloatArray] = []
    for measure in _MEASURES:
        kw = {"tokenizer": tokenizer, "stemmer": stemmer, "measure": measure}
        if match.group(1):
            columns.append(rouge_n_batch(expected, actual, n=int(match.group(1)), **kw))  # type: ignore[arg-type]
        elif rouge_type == "rougeL":
            columns.append(rouge_l_batch(expected, actual, **kw))  # type: ignore[arg-type]
        else:
            columns.append(rouge_lsum_batch(expected, actual, **kw))  # type: ignore[arg-type]
    return np.column_stack(columns)


def rouge_bootstrap(
    expected: TargetBatch,
    actual: Texts,
    rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    resamples: int = 1000,
    confidence_interval: float = 0.95,
    seed: int = 0,
) -> dict[str, RougeAggregate]:
    """Bootstrap intervals of each ROUGE type's mean precision, recall and F-measure over the
    rows, as rouge-score's ``BootstrapAggregator(confidence_interval, n_samples=resamples)``
    after ``numpy.random.seed(seed)``: each resample draws the rows with replacement from
    numpy's ``RandomState(seed)`` (the same draws), ``low``/``mid``/``high`` are
    ``numpy.percentile`` of the resample means at (1 - ci) / 2, 50% and (1 + ci) / 2. Each type
    draws its own resamples in turn, as rouge-score does in the order of ``rouge_types``."""
    if isinstance(resamples, bool) or not isinstance(resamples, int):
        raise TypeError(f"resamples must be an int, got {type(resamples).__name__}")
    if resamples < 1:
        raise MetricInputError(f"resamples must be at least 1, got {resamples}")
    if not 0 <= confidence_interval <= 1:
        raise MetricInputError(f"confidence_interval must be in [0, 1], got {confidence_interval}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if isinstance(rouge_types, str):
        rouge_types = (rouge_types,)
    n = len(actual)
    if n == 0:
        raise MetricInputError("rouge_bootstrap needs at least one row")
    delta = (1 - confidence_interval) / 2
    q = 100 * np.array([delta, 0.5, 1 - delta])
    rng = np.random.RandomState(seed)
    out: dict[str, RougeAggregate] = {}
    for rouge_type in rouge_types:
        matrix = _scores(rouge_type, expected, actual, tokenizer, stemmer)
        means = np.empty((resamples, 3))
        for i in range(resamples):
            means[i] = matrix[rng.randint(0, n, size=n)].mean(axis=0)
        bounds = np.percentile(means, q, axis=0)
        low, mid, high = (RougeScore(*(float(x) for x in row)) for row in bounds)
        out[rouge_type] = RougeAggregate(low, mid, high)
    return out
