"""Exact gate risk: the number of passing cases is Poisson-binomial; no sampling involved."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise.gates import Gate, make_gates
from evalmark.noise.suite import Suite, check_flip_rate


@dataclass(frozen=True, slots=True)
class GateRisk:
    """A gate and the exact probability that it fails a build."""

    gate: Gate
    fails: float


def effective_flip_rate(check_rate: float | None, flip_rate: float | None, where: str) -> float:
    """The flip rate of one judged check: its own rate, else the noise level studied."""
    if check_rate is not None:
        return check_rate
    if flip_rate is None:
        raise ValueError(
            f"{where} has no flip_rate of its own: pass flip_rate= to set the judge's noise level"
        )
    return flip_rate


def case_pass_probabilities(suite: Suite, flip_rate: float | None = None) -> tuple[float, ...]:
    """For each case, the probability that every check of the case is reported passing."""
    if flip_rate is not None:
        flip_rate = check_flip_rate(flip_rate, "flip_rate")
    result = []
    for case in suite.cases:
        probability = 1.0
        for check in case.checks:
            if check.judged:
                where = f"judged check {check.name!r} of case {case.name!r}"
                p = effective_flip_rate(check.flip_rate, flip_rate, where)
                probability *= (1.0 - p) if check.passes else p
            elif not check.passes:
                probability = 0.0
        result.append(probability)
    return tuple(result)


def passing_distribution(probabilities: Sequence[float]) -> npt.NDArray[np.float64]:
    """P(exactly k cases pass) for k = 0..n, for independent cases with these pass probabilities."""
    pmf = np.zeros(len(probabilities) + 1)
    pmf[0] = 1.0
    for n, q in enumerate(probabilities, start=1):
        pmf[1 : n + 1] = pmf[1 : n + 1] * (1.0 - q) + pmf[:n] * q
        pmf[0] *= 1.0 - q
    return pmf


def fail_probability(pmf: npt.NDArray[np.float64], min_passing: int) -> float:
    """P(fewer than ``min_passing`` cases pass), summed from the lower tail for accuracy."""
    return min(math.fsum(pmf[:min_passing].tolist()), 1.0)


def gate_risk(
    suite: Suite,
    flip_rate: float | None = None,
    thresholds: Sequence[float] | None = None,
) -> tuple[GateRisk, ...]:
    """The exact probability that each gate fails a build whose true verdicts are ``suite``.

    ``flip_rate`` is the judge's noise level for judged checks that carry no rate of their own.
    ``thresholds`` are pass rates (1.0 is "every case passes"); by default every distinct gate.
    Each result's gate lists the other thresholds that are the same gate.
    """
    pmf = passing_distribution(case_pass_probabilities(suite, flip_rate))
    return tuple(
        GateRisk(gate, fail_probability(pmf, gate.min_passing))
        for gate in make_gates(len(suite), thresholds)
    )
