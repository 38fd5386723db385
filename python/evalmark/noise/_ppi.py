"""Prediction-powered inference of a mean (Angelopoulos et al., 2023) and its power-tuned form,
PPI++ (Angelopoulos, Duchi and Zrnic, 2023).

A judge's verdicts ``f`` are cheap and cover all ``N`` cases; people's labels ``Y`` are dear and
cover ``n`` of them. The papers keep the two sets apart: the ``n`` labelled cases, and the
``M = N − n`` unlabelled ones. ``judged`` holds the verdicts on every case, so the unlabelled
cases' mean and variance are taken from ``judged`` less ``judged_labeled`` (exact for 0/1
verdicts, whose variance follows from their count of ones). With ``f̄_M`` the mean verdict over
the unlabelled cases, and ``Ȳ_n``, ``f̄_n`` the means of labels and verdicts over the labelled:

* PPI: ``θ̂ = f̄_M − (f̄_n − Ȳ_n)``, the judge's mean with its measured bias (the rectifier)
  removed; variance ``σ̂²_{f,M} / M + σ̂²_{f−Y} / n``.
* PPI++: ``θ̂_λ = Ȳ_n + λ (f̄_M − f̄_n)`` with the power-tuning parameter
  ``λ̂ = Ĉov(Y, f) / ((1 + n/M) V̂ar(f))``, the λ that minimises the estimator's variance;
  variance ``σ̂²_{Y−λf} / n + λ² σ̂²_{f,M} / M``. λ = 1 is PPI, λ = 0 the labels alone, so
  PPI++ does no worse than either (asymptotically).

The interval is ``θ̂ ± z_{1−α/2} · √variance`` (the normal approximation of both papers).
Here: variances and the covariance are sample ones (divisor count − 1); ``V̂ar(f)`` of λ̂ is
taken over every case, ``Ĉov(Y, f)`` over the labelled ones; λ̂ is not clipped. The estimate
and the interval are clipped to [0, 1], where a mean of 0/1 values lies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__all__ = ["PPIEstimate", "ppi_mean"]

Method = Literal["ppi", "ppi++"]


@dataclass(frozen=True, slots=True)
class PPIEstimate:
    """A prediction-powered mean: ``estimate`` with its ``1 − alpha`` interval ``low``–``high``,
    the method, its ``lam`` (1 for PPI, λ̂ for PPI++), the counts, the classical interval from
    the labels alone (``classical_low``–``classical_high``) for comparison."""

    estimate: float
    low: float
    high: float
    method: str
    lam: float
    cases: int
    labelled: int
    alpha: float
    classical_low: float
    classical_high: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "method": self.method,
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "lambda": self.lam,
            "cases": self.cases,
            "labelled": self.labelled,
            "alpha": self.alpha,
            "classical": {"low": self.classical_low, "high": self.classical_high},
        }


def _binary(values: Sequence[Any], name: str) -> npt.NDArray[np.float64]:
    array = np.asarray([v for v in values], dtype=np.float64)
    if array.ndim != 1 or not np.all((array == 0.0) | (array == 1.0)):
        raise ValueError(f"{name} must be a sequence of 0/1 (or False/True) values")
    return array


def _clip(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def ppi_mean(
    judged: Sequence[Any],
    judged_labeled: Sequence[Any],
    labels: Sequence[Any],
    alpha: float = 0.05,
    method: Method = "ppi",
) -> PPIEstimate:
    """The prediction-powered mean of ``labels`` (see the module docstring): ``judged`` holds
    the judge's verdicts on every case, ``judged_labeled`` its verdicts on the labelled cases
    and ``labels`` the people's labels there, in the same order (all 0/1)."""
    if method not in ("ppi", "ppi++"):
        raise ValueError(f"method must be 'ppi' or 'ppi++', got {method!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}")
    f_all = _binary(judged, "judged")
    f_lab = _binary(judged_labeled, "judged_labeled")
    y = _binary(labels, "labels")
    if len(f_lab) != len(y):
        raise ValueError(
            f"judged_labeled has {len(f_lab)} verdicts but labels has {len(y)}: give the "
            "judge's verdict for each labelled case, in the labels' order"
        )
    n, big_n = len(y), len(f_all)
    m = big_n - n
    ones_unlabelled = float(f_all.sum() - f_lab.sum())
    if m < 2 or n < 2:
        raise ValueError(
            f"need at least 2 labelled and 2 unlabelled cases; got {n} labelled of {big_n}: "
            "judged holds the verdicts on every case, the labelled ones included"
        )
    if not 0.0 <= ones_unlabelled <= m:
        raise ValueError(
            "judged_labeled is not part of judged: judged must hold the verdicts on every "
            "case, the labelled ones included"
        )
    mean_m = ones_unlabelled / m
    var_m = mean_m * (1.0 - mean_m) * m / (m - 1)
    var_f = float(np.var(f_all, ddof=1))
    if method == "ppi":
        lam = 1.0
    else:
        cov = float(np.cov(y, f_lab, ddof=1)[0, 1])
        lam = 0.0 if var_f == 0.0 else cov / ((1.0 + n / m) * var_f)
    estimate = float(np.mean(y) + lam * (mean_m - np.mean(f_lab)))
    variance = float(np.var(y - lam * f_lab, ddof=1)) / n + lam * lam * var_m / m
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    half = z * math.sqrt(max(variance, 0.0))
    classical_half = z * math.sqrt(float(np.var(y, ddof=1)) / n)
    mean_y = float(np.mean(y))
    return PPIEstimate(
        estimate=_clip(estimate),
        low=_clip(estimate - half),
        high=_clip(estimate + half),
        method=method,
        lam=lam,
        cases=big_n,
        labelled=n,
        alpha=alpha,
        classical_low=_clip(mean_y - classical_half),
        classical_high=_clip(mean_y + classical_half),
    )
