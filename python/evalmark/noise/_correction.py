"""A judged pass rate corrected for the judge's errors: the Rogan–Gladen estimator.

A judge that passes a truly failing check with probability ``fp`` (false pass) and fails a truly
passing one with probability ``ff`` (false fail) passes a check with probability
``q = π (1 − ff) + (1 − π) fp``, where ``π`` is the true pass rate. Solving for ``π`` gives the
Rogan–Gladen estimator ``π̂ = (q̂ − fp) / (1 − fp − ff)``, clipped to [0, 1]. It is defined
while the judge does better than chance (``fp + ff < 1``).

The interval (:func:`corrected_rate`) carries both the run's sampling error and the
uncertainty of the measured rates. Each of the three proportions gets its Jeffreys posterior,
Beta(k + ½, n − k + ½): the judged pass rate ``q`` from the run's counts, the false-pass and
false-fail rates from the calibration's counts. The interval holds the central ``confidence``
share of the corrected rate ``π = clip((q − fp) / (1 − fp − ff), 0, 1)`` under those three
independent posteriors, computed without randomness:

* for a given ``t`` < 1, ``P(π ≤ t) = E[F_q(fp + t (1 − fp − ff))]`` over the two rates, where
  ``F_q`` is the Beta distribution function of ``q`` (tabulated with the regularised
  incomplete beta function at 2,001 points spanning its posterior, linearly interpolated);
* the expectation is the mean over a ``grid`` × ``grid`` product of equal-probability points
  of the two rates' posteriors (their quantiles at (i + ½) / grid);
* a grid point where the judge is no better than chance (fp + ff ≥ 1) says nothing about π:
  it puts half its weight on 0 and half on 1, which widens the interval instead of hiding
  the problem;
* the bounds are found by bisection on ``t`` (to 1e-9). Should the point estimate fall outside
  them (the posteriors are centred a little apart from the raw counts), the interval is
  stretched to hold it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.noise._rates import RateCounts, check_probability
from evalmark.noise._special import betainc, betaincinv

__all__ = ["DEFAULT_GRID", "CorrectedRate", "corrected_pass_rate", "corrected_rate"]

DEFAULT_GRID = 200
_TABLE = 2001

Array = npt.NDArray[np.float64]


def corrected_pass_rate(observed: float, false_pass_rate: float, false_fail_rate: float) -> float:
    """The Rogan–Gladen corrected pass rate ``(observed − fp) / (1 − fp − ff)``, clipped to
    [0, 1]; a ``ValueError`` when the judge is no better than chance (``fp + ff ≥ 1``)."""
    q = check_probability(observed, "observed")
    fp = check_probability(false_pass_rate, "false_pass_rate")
    ff = check_probability(false_fail_rate, "false_fail_rate")
    informative = 1.0 - fp - ff
    if informative <= 0.0:
        raise ValueError(
            f"a judge with false-pass rate {fp:g} and false-fail rate {ff:g} is no better than "
            "chance (their sum is 1 or more): its verdicts say nothing about the true pass rate"
        )
    return min(max((q - fp) / informative, 0.0), 1.0)


@dataclass(frozen=True, slots=True)
class CorrectedRate:
    """A judged pass rate and the same rate corrected for the judge.

    ``raw`` is passed / judged; ``estimate`` the Rogan–Gladen point estimate from the raw rates
    (errors / trials of the calibration); ``low`` and ``high`` the interval of the module
    docstring at ``confidence``.
    """

    passed: int
    judged: int
    raw: float
    estimate: float
    low: float
    high: float
    false_pass: RateCounts
    false_fail: RateCounts
    confidence: float
    grid: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "passed": self.passed,
            "judged": self.judged,
            "raw": self.raw,
            "corrected": self.estimate,
            "low": self.low,
            "high": self.high,
        }


def _quantile_grid(counts: RateCounts, grid: int) -> Array:
    points = (np.arange(grid, dtype=np.float64) + 0.5) / grid
    return np.array([betaincinv(counts.alpha, counts.beta, float(p)) for p in points])


def _distribution_table(counts: RateCounts, points: int = _TABLE) -> tuple[Array, Array]:
    """``(x, F(x))`` of the posterior of ``counts``, over the range holding all but 2e-10."""
    a, b = counts.alpha, counts.beta
    low, high = betaincinv(a, b, 1e-10), betaincinv(a, b, 1.0 - 1e-10)
    x = np.linspace(low, high, points)
    return x, np.array([betainc(a, b, float(v)) for v in x])


def _bound(share: float, cdf: Any) -> float:
    """The smallest t in [0, 1] with cdf(t) ≥ share (bisection)."""
    if cdf(0.0) >= share:
        return 0.0
    low, high = 0.0, 1.0
    while high - low > 1e-9:
        middle = (low + high) / 2.0
        if cdf(middle) >= share:
            high = middle
        else:
            low = middle
    return high


def corrected_rate(
    passed: int,
    judged: int,
    false_pass: RateCounts,
    false_fail: RateCounts,
    *,
    confidence: float = 0.95,
    grid: int = DEFAULT_GRID,
) -> CorrectedRate:
    """The raw and corrected pass rate of ``passed`` of ``judged`` checks, with the interval of
    the module docstring. ``false_pass`` and ``false_fail`` are the calibration's counts."""
    RateCounts(passed, judged)  # checks both counts
    if judged == 0:
        raise ValueError("no judged checks: there is no pass rate to correct")
    for name, counts in (("false_pass", false_pass), ("false_fail", false_fail)):
        if counts.trials == 0:
            raise ValueError(f"{name} was measured on no items; calibrate the judge first")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    if isinstance(grid, bool) or not isinstance(grid, int) or grid < 2:
        raise ValueError(f"grid must be a whole number ≥ 2, got {grid!r}")
    raw = passed / judged
    estimate = corrected_pass_rate(
        raw, false_pass.errors / false_pass.trials, false_fail.errors / false_fail.trials
    )
    x, f_q = _distribution_table(RateCounts(passed, judged))
    fp = np.repeat(_quantile_grid(false_pass, grid), grid)
    ff = np.tile(_quantile_grid(false_fail, grid), grid)
    informative = 1.0 - fp - ff
    good = informative > 0.0
    fp, informative = fp[good], informative[good]
    chance = 1.0 - len(fp) / (grid * grid)  # the weight of the uninformative points

    def cdf(t: float) -> float:
        if t >= 1.0:
            return 1.0
        informed = float(np.interp(fp + t * informative, x, f_q, left=0.0, right=1.0).sum())
        return informed / (grid * grid) + chance / 2.0

    tail = (1.0 - confidence) / 2.0
    low, high = _bound(tail, cdf), _bound(1.0 - tail, cdf)
    return CorrectedRate(
        passed=passed,
        judged=judged,
        raw=raw,
        estimate=estimate,
        low=min(low, estimate),
        high=max(high, estimate),
        false_pass=false_pass,
        false_fail=false_fail,
        confidence=confidence,
        grid=grid,
    )
