"""How far a judge agrees with people: the confusion matrix, accuracy, Cohen's kappa, and the
true-pass and true-fail rates with Wilson intervals.

Cohen's kappa is (p_o − p_e) / (1 − p_e): p_o the share of items where judge and label agree,
p_e the share expected by chance from the two sides' label frequencies (the definition
scikit-learn's ``cohen_kappa_score`` computes). It is undefined (None here) when chance
agreement is already total, e.g. when every label and every verdict is the same class.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from evalmark.noise._estimate import wilson_interval

__all__ = ["Agreement", "Rate", "agreement", "rate"]


@dataclass(frozen=True, slots=True)
class Agreement:
    """The agreement of ``predicted`` with ``truth`` over the classes ``labels``:
    ``matrix[i][j]`` counts items whose truth is ``labels[i]`` and prediction ``labels[j]``."""

    labels: tuple[Hashable, ...]
    matrix: tuple[tuple[int, ...], ...]
    accuracy: float
    kappa: float | None

    @property
    def total(self) -> int:
        """The number of items."""
        return sum(map(sum, self.matrix))


def agreement(
    truth: Sequence[Hashable],
    predicted: Sequence[Hashable],
    labels: Sequence[Hashable] | None = None,
) -> Agreement:
    """The confusion matrix, accuracy and Cohen's kappa of ``predicted`` against ``truth``.
    ``labels`` orders the classes (by default in order of first appearance, truth first)."""
    if len(truth) != len(predicted):
        raise ValueError(
            f"truth and predictions must be of equal length, got {len(truth)} and {len(predicted)}"
        )
    if not truth:
        raise ValueError("no items to compare: the calibration set is empty")
    classes = tuple(labels) if labels is not None else tuple(dict.fromkeys([*truth, *predicted]))
    index = {label: position for position, label in enumerate(classes)}
    for value in (*truth, *predicted):
        if value not in index:
            raise ValueError(f"{value!r} is not one of the labels {list(classes)!r}")
    counts = [[0] * len(classes) for _ in classes]
    for t, p in zip(truth, predicted, strict=True):
        counts[index[t]][index[p]] += 1
    n = len(truth)
    observed = sum(counts[i][i] for i in range(len(classes))) / n
    rows = [sum(row) for row in counts]
    columns = [sum(counts[i][j] for i in range(len(classes))) for j in range(len(classes))]
    chance = math.fsum(rows[k] * columns[k] for k in range(len(classes))) / (n * n)
    kappa = None if chance >= 1.0 else (observed - chance) / (1.0 - chance)
    return Agreement(classes, tuple(map(tuple, counts)), observed, kappa)


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion ``hits`` / ``trials`` with its Wilson score interval (None without trials)."""

    hits: int
    trials: int
    low: float | None
    high: float | None

    @property
    def value(self) -> float | None:
        """The proportion, None without trials."""
        return self.hits / self.trials if self.trials else None


def rate(hits: int, trials: int, confidence: float = 0.95) -> Rate:
    """``hits`` out of ``trials`` with its Wilson interval at ``confidence``."""
    if trials == 0:
        return Rate(0, 0, None, None)
    low, high = wilson_interval(hits / trials, trials, confidence)
    return Rate(hits, trials, low, high)
