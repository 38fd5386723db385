"""How many cases a suite needs: the smallest suite of the same mix of cases that some gate
keeps within both the false-alarm and the miss target.

A suite of N cases keeps the mix of the given one by adding its kinds of case (a healthy and a
regressed pass probability) one at a time, each to the kind furthest below its share; the pass
counts' distributions grow by one case per step, so every N up to the limit costs one update.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise._exact import RatesLike, case_pass_probabilities, fail_probability
from evalmark.noise._suite import BuildTruth

__all__ = ["CasesNeeded", "cases_needed", "scaled_kind_counts"]


@dataclass(frozen=True, slots=True)
class CasesNeeded:
    """The smallest suite (same mix of cases, scaled) reaching both targets with some gate.

    ``cases`` is ``None`` when no suite of ``searched_from`` to ``searched_up_to`` cases does.
    With ``searched_from`` 1 it is the fewest cases that meet both targets: a minimum, which
    may be smaller than the suite studied (a suite larger than it still meets them, more
    safely), never advice to drop cases.
    """

    cases: int | None
    min_passing: int | None
    false_alarm: float | None
    miss: float | None
    searched_up_to: int
    searched_from: int = 1


def cases_needed(
    healthy: BuildTruth,
    regressed: BuildTruth,
    rates: RatesLike,
    max_false_alarm: float,
    max_miss: float,
    *,
    max_cases: int = 5_000,
    repeats: int = 1,
    at_least: int = 1,
) -> CasesNeeded:
    """The fewest cases, ``at_least`` or more, for which some gate keeps both the false-alarm
    and the miss rate in bounds.

    A suite of N cases keeps the mix of the given one: its kinds of case (a healthy and a
    regressed pass probability) are added one at a time, each time to the kind furthest below
    its share, so at N equal to the suite's size the suite itself is analysed. ``at_least``
    the suite's size asks how many cases a suite that misses the targets would need to grow to.
    """
    if isinstance(at_least, bool) or not isinstance(at_least, int) or at_least < 1:
        raise ValueError(f"at_least must be a whole number ≥ 1, got {at_least!r}")
    kinds: dict[tuple[float, float], int] = {}
    pairs = zip(
        case_pass_probabilities(healthy, rates, repeats=repeats),
        case_pass_probabilities(regressed, rates, repeats=repeats),
        strict=True,
    )
    for pair in pairs:
        kinds[pair] = kinds.get(pair, 0) + 1
    kind_list = list(kinds)
    order = _growth_order([kinds[k] for k in kind_list], max_cases)
    pmf_healthy = np.zeros(max_cases + 1)
    pmf_regressed = np.zeros(max_cases + 1)
    pmf_healthy[0] = pmf_regressed[0] = 1.0
    scratch = np.empty(max_cases + 1)
    for n, kind in enumerate(order, start=1):
        q_healthy, q_regressed = kind_list[kind]
        _add_case(pmf_healthy, n, q_healthy, scratch)
        _add_case(pmf_regressed, n, q_regressed, scratch)
        if n < at_least:
            continue
        # the strictest gate (most cases required) whose false-alarm rate is within the target
        below = np.cumsum(pmf_healthy[: n + 1], out=scratch[: n + 1])
        k = min(int(np.searchsorted(below, max_false_alarm, side="right")), n)
        miss = float(pmf_regressed[k : n + 1].sum())
        if miss <= max_miss:
            false_alarm = fail_probability(pmf_healthy, k)
            miss = min(math.fsum(pmf_regressed[k : n + 1].tolist()), 1.0)
            return CasesNeeded(n, k, false_alarm, miss, max_cases, at_least)
    return CasesNeeded(None, None, None, None, max_cases, at_least)


def scaled_kind_counts(counts: Sequence[int], cases: int) -> tuple[int, ...]:
    """How many cases of each kind a suite of ``cases`` cases has when it keeps the mix ``counts``.

    Cases are added one at a time to the kind furthest below its share (ties: the earlier kind),
    so each kind's count is within one of its share, never decreases as the suite grows, and
    equals ``counts`` when ``cases`` is their sum.
    """
    result = [0] * len(counts)
    for kind in _growth_order(counts, cases):
        result[kind] += 1
    return tuple(result)


def _growth_order(counts: Sequence[int], cases: int) -> list[int]:
    total = sum(counts)
    have = [0] * len(counts)
    order = []
    for n in range(1, cases + 1):
        # the deficit of kind k is counts[k] * n / total - have[k], scaled by total to stay exact
        deficits = [c * n - h * total for c, h in zip(counts, have, strict=True)]
        kind = deficits.index(max(deficits))
        have[kind] += 1
        order.append(kind)
    return order


def _add_case(
    pmf: npt.NDArray[np.float64], n: int, q: float, scratch: npt.NDArray[np.float64]
) -> None:
    """Update the distribution of passing cases among n - 1 cases for an n-th case."""
    shifted = np.multiply(pmf[:n], q, out=scratch[:n])
    pmf[1 : n + 1] *= 1.0 - q
    pmf[1 : n + 1] += shifted
    pmf[0] *= 1.0 - q
