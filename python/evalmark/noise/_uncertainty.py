"""Gate risk when the judge's rates are known only from counts: a mean and an interval.

Each rate measured as errors out of trials has the posterior Beta(errors + ½, trials − errors + ½).
The risk of a gate is a function of the two rates; its posterior mean and central interval are
computed on a deterministic grid: the rates a build's risk depends on are set to the midpoints
of equal-probability slices of their posteriors (``points`` slices for one rate, √(4·points)
per rate for two), every grid point carries the same weight, and at each point
the risk is exact. No random draws are involved; ``simulate_gates(..., draw_rates=True)`` checks
the mean by simulation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise._exact import (
    check_repeats,
    distribution_of_kinds,
    fail_probabilities,
    kind_pass_probability,
    suite_kinds,
)
from evalmark.noise._gates import Gate
from evalmark.noise._rates import JudgeRates, RateCounts
from evalmark.noise._suite import BuildTruth

Array = npt.NDArray[np.float64]

_BATCH_CELLS = 2_000_000  # grid points × (cases + 1) held at once


@dataclass(frozen=True, slots=True)
class RiskInterval:
    """A probability known with uncertainty: its posterior mean and central interval."""

    mean: float
    low: float
    high: float
    confidence: float


@dataclass(frozen=True, slots=True)
class UncertainRow:
    """A gate's false-alarm (healthy build fails) and miss (regressed build passes) risks."""

    gate: Gate
    false_alarm: RiskInterval
    miss: RiskInterval


def posterior_fail_risks(
    suite: BuildTruth,
    measured: JudgeRates,
    gates: Sequence[Gate],
    *,
    repeats: int = 1,
    confidence: float = 0.95,
    points: int = 1024,
) -> list[RiskInterval]:
    """For each gate, the posterior mean and interval of the probability it fails ``suite``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    if isinstance(points, bool) or not isinstance(points, int) or points < 4:
        raise ValueError(f"points must be a whole number ≥ 4, got {points!r}")
    repeats = check_repeats(repeats)
    kinds = suite_kinds(suite, needs_rates=False)
    uses_ff = any(kind.passing for kind in kinds)
    uses_fp = any(kind.failing for kind in kinds)
    false_pass, false_fail = _grid(measured, uses_fp, uses_ff, points)
    rho = measured.overdispersion or 0.0
    batch = max(1, _BATCH_CELLS // (len(suite) + 1))
    risks = np.empty((false_pass.size, len(gates)))
    needed = np.array([gate.min_passing for gate in gates], dtype=np.intp)
    for start in range(0, false_pass.size, batch):
        fp = false_pass[start : start + batch]
        ff = false_fail[start : start + batch]
        parts = [
            (kind_pass_probability(kind, fp, ff, rho, repeats), n) for kind, n in kinds.items()
        ]
        below = fail_probabilities(distribution_of_kinds(parts))
        risks[start : start + batch] = below[:, needed]
    return [_summarise(risks[:, i], confidence) for i in range(len(gates))]


def posterior_rows(
    healthy: BuildTruth,
    regressed: BuildTruth,
    measured: JudgeRates,
    gates: Sequence[Gate],
    *,
    repeats: int = 1,
    confidence: float = 0.95,
    points: int = 1024,
) -> tuple[UncertainRow, ...]:
    """For each gate, the posterior false alarm (healthy fails) and miss (regressed passes)."""
    alarms, fails = (
        posterior_fail_risks(
            build, measured, gates, repeats=repeats, confidence=confidence, points=points
        )
        for build in (healthy, regressed)
    )
    return tuple(
        UncertainRow(gate, alarm, RiskInterval(1.0 - f.mean, 1.0 - f.high, 1.0 - f.low, confidence))
        for gate, alarm, f in zip(gates, alarms, fails, strict=True)
    )


@functools.lru_cache(maxsize=64)
def _midpoints(counts: RateCounts, slices: int) -> Array:
    values = np.array([counts.quantile((i + 0.5) / slices) for i in range(slices)])
    values.setflags(write=False)
    return values


def _grid(measured: JudgeRates, uses_fp: bool, uses_ff: bool, points: int) -> tuple[Array, Array]:
    """Grid points (false pass, false fail): only the rates the build depends on vary."""
    fp_mean = np.array([measured.false_pass.mean])
    ff_mean = np.array([measured.false_fail.mean])
    if uses_fp and uses_ff:
        side = max(2, math.isqrt(points * 4))  # a finer grid for two rates: 4 × points in all
        fp = _midpoints(measured.false_pass, side)
        ff = _midpoints(measured.false_fail, side)
        return np.repeat(fp, side), np.tile(ff, side)
    if uses_fp:
        fp = _midpoints(measured.false_pass, points)
        return fp, np.full(fp.size, ff_mean[0])
    if uses_ff:
        ff = _midpoints(measured.false_fail, points)
        return np.full(ff.size, fp_mean[0]), ff
    return fp_mean, ff_mean


def _summarise(values: Array, confidence: float) -> RiskInterval:
    """Mean and central quantiles of equally weighted values (midpoint convention)."""
    ordered = np.sort(values)
    n = ordered.size
    tail = (1.0 - confidence) / 2.0

    def quantile(q: float) -> float:
        position = min(max(q * n - 0.5, 0.0), n - 1.0)
        low = math.floor(position)
        high = min(low + 1, n - 1)
        weight = position - low
        return float(ordered[low] * (1.0 - weight) + ordered[high] * weight)

    mean = math.fsum(ordered.tolist()) / n
    return RiskInterval(
        mean=min(max(mean, 0.0), 1.0),
        low=quantile(tail),
        high=quantile(1.0 - tail),
        confidence=confidence,
    )
