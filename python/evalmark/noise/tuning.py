"""Threshold tuning: how often each gate fails a healthy and a regressed build; which to pick."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise.exact import case_pass_probabilities, fail_probability, passing_distribution
from evalmark.noise.gates import Gate, make_gates
from evalmark.noise.simulate import simulate_gates
from evalmark.noise.suite import Suite, check_flip_rate

# Below this a probability prints as 0.0000 (and above 1 minus it, as 1.0000): default gates that
# both builds fail almost never, or almost always, tell nothing and are left out of the table.
_NEGLIGIBLE = 0.5e-4


@dataclass(frozen=True, slots=True)
class GateRow:
    """One candidate gate at one noise level: exact risks and, when simulated, the counts."""

    gate: Gate
    healthy_fails: float
    regressed_fails: float
    healthy_simulated: int | None
    regressed_simulated: int | None

    @property
    def miss(self) -> float:
        """The probability that the gate lets the regressed build through."""
        return 1.0 - self.regressed_fails


@dataclass(frozen=True, slots=True)
class Recommendation:
    """The gate that keeps false alarms under the target and catches the regression most often.

    ``gate`` is ``None`` when no candidate keeps the false-alarm rate under the target.
    """

    gate: Gate | None
    false_alarm: float | None
    miss: float | None
    meets_max_miss: bool


@dataclass(frozen=True, slots=True)
class CasesNeeded:
    """The smallest suite (same mix of cases, scaled) reaching both targets with some gate.

    ``cases`` is ``None`` when no suite of up to ``searched_up_to`` cases does.
    """

    cases: int | None
    min_passing: int | None
    false_alarm: float | None
    miss: float | None
    searched_up_to: int


@dataclass(frozen=True, slots=True)
class NoiseLevel:
    """The tuning table, recommendation and suite size for one judge flip rate."""

    flip_rate: float
    rows: tuple[GateRow, ...]
    omitted: int  # default gates left out: both builds fail them almost always or almost never
    recommendation: Recommendation
    cases_needed: CasesNeeded


@dataclass(frozen=True, slots=True)
class TuneReport:
    """The result of ``tune``: one ``NoiseLevel`` per flip rate studied."""

    cases: int
    judged_checks: int
    regressed_failing_cases: int
    runs: int
    seed: int
    max_false_alarm: float
    max_miss: float
    levels: tuple[NoiseLevel, ...]


def tune(
    healthy: Suite,
    regressed: Suite,
    flip_rates: Sequence[float],
    *,
    thresholds: Sequence[float] | None = None,
    runs: int = 10_000,
    seed: int = 0,
    max_false_alarm: float = 0.05,
    max_miss: float = 0.05,
    max_cases: int = 5_000,
    workers: int | None = None,
) -> TuneReport:
    """Tabulate each gate's false-alarm and catch probabilities for a healthy and regressed build.

    ``healthy`` and ``regressed`` are the true verdicts of the same suite (same cases, in the same
    order) for a good build and a broken one. For each flip rate: the exact probability that each
    gate fails each build, the simulated failure counts over ``runs`` seeded runs (``runs=0``
    skips the simulation), the recommended gate, and the smallest suite reaching
    ``max_false_alarm`` and ``max_miss``. Default thresholds: "every case" and every other
    distinct gate except those both builds fail with probability below 0.00005, or above 0.99995.
    """
    if len(healthy) != len(regressed):
        raise ValueError(
            f"healthy and regressed must be builds of the same suite: they have {len(healthy)} "
            f"and {len(regressed)} cases"
        )
    if not flip_rates:
        raise ValueError("flip_rates must name at least one noise level, got none")
    rates = [check_flip_rate(p, "each flip rate") for p in flip_rates]
    false_alarm_target = check_flip_rate(max_false_alarm, "max_false_alarm")
    miss_target = check_flip_rate(max_miss, "max_miss")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 0:
        raise ValueError(f"runs must be an integer ≥ 0 (0 skips the simulation), got {runs!r}")
    if isinstance(max_cases, bool) or not isinstance(max_cases, int) or max_cases < 1:
        raise ValueError(f"max_cases must be a positive integer, got {max_cases!r}")

    all_gates = make_gates(len(healthy), thresholds)
    levels = []
    for p in rates:
        exact = _exact_rows(healthy, regressed, p, all_gates)
        shown: Sequence[int] = range(len(all_gates))
        if thresholds is None:
            shown = [i for i in shown if i == 0 or _informative(*exact[i])]
        gates = [all_gates[i] for i in shown]
        healthy_counts = _simulated(healthy, p, gates, runs, seed, workers)
        regressed_counts = _simulated(regressed, p, gates, runs, seed, workers)
        rows = tuple(
            GateRow(
                all_gates[i],
                *exact[i],
                healthy_counts[all_gates[i].min_passing],
                regressed_counts[all_gates[i].min_passing],
            )
            for i in shown
        )
        levels.append(
            NoiseLevel(
                flip_rate=p,
                rows=rows,
                omitted=len(all_gates) - len(rows),
                recommendation=recommend(rows, false_alarm_target, miss_target),
                cases_needed=cases_needed(
                    healthy, regressed, p, false_alarm_target, miss_target, max_cases=max_cases
                ),
            )
        )
    return TuneReport(
        cases=len(healthy),
        judged_checks=healthy.judged_checks,
        regressed_failing_cases=regressed.truly_failing_cases,
        runs=runs,
        seed=seed,
        max_false_alarm=false_alarm_target,
        max_miss=miss_target,
        levels=tuple(levels),
    )


def recommend(rows: Sequence[GateRow], max_false_alarm: float, max_miss: float) -> Recommendation:
    """Among gates failing the healthy build at most ``max_false_alarm`` of the time, the one
    failing the regressed build most often (ties: fewer false alarms, then the stricter gate)."""
    allowed = [row for row in rows if row.healthy_fails <= max_false_alarm]
    if not allowed:
        return Recommendation(None, None, None, meets_max_miss=False)
    best = max(
        allowed, key=lambda row: (row.regressed_fails, -row.healthy_fails, row.gate.min_passing)
    )
    return Recommendation(best.gate, best.healthy_fails, best.miss, best.miss <= max_miss)


def cases_needed(
    healthy: Suite,
    regressed: Suite,
    flip_rate: float,
    max_false_alarm: float,
    max_miss: float,
    *,
    max_cases: int = 5_000,
) -> CasesNeeded:
    """The fewest cases for which some gate keeps both the false-alarm and the miss rate in bounds.

    A suite of N cases keeps the mix of the given one: its kinds of case (a healthy and a
    regressed pass probability) are added one at a time, each time to the kind furthest below
    its share, so at N equal to the suite's size the suite itself is analysed.
    """
    kinds: dict[tuple[float, float], int] = {}
    pairs = zip(
        case_pass_probabilities(healthy, flip_rate),
        case_pass_probabilities(regressed, flip_rate),
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
        # the strictest gate (most cases required) whose false-alarm rate is within the target
        below = np.cumsum(pmf_healthy[: n + 1], out=scratch[: n + 1])
        k = min(int(np.searchsorted(below, max_false_alarm, side="right")), n)
        miss = float(pmf_regressed[k : n + 1].sum())
        if miss <= max_miss:
            false_alarm = fail_probability(pmf_healthy, k)
            miss = min(math.fsum(pmf_regressed[k : n + 1].tolist()), 1.0)
            return CasesNeeded(n, k, false_alarm, miss, max_cases)
    return CasesNeeded(None, None, None, None, max_cases)


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


def _informative(healthy_fails: float, regressed_fails: float) -> bool:
    low, high = sorted((healthy_fails, regressed_fails))
    return high >= _NEGLIGIBLE and low <= 1.0 - _NEGLIGIBLE


def _add_case(
    pmf: npt.NDArray[np.float64], n: int, q: float, scratch: npt.NDArray[np.float64]
) -> None:
    """Update the distribution of passing cases among n - 1 cases for an n-th case."""
    shifted = np.multiply(pmf[:n], q, out=scratch[:n])
    pmf[1 : n + 1] *= 1.0 - q
    pmf[1 : n + 1] += shifted
    pmf[0] *= 1.0 - q


def _exact_rows(
    healthy: Suite, regressed: Suite, flip_rate: float, gates: Sequence[Gate]
) -> list[tuple[float, float]]:
    pmf_h = passing_distribution(case_pass_probabilities(healthy, flip_rate))
    pmf_r = passing_distribution(case_pass_probabilities(regressed, flip_rate))
    return [
        (fail_probability(pmf_h, g.min_passing), fail_probability(pmf_r, g.min_passing))
        for g in gates
    ]


def _simulated(
    suite: Suite,
    flip_rate: float,
    gates: Sequence[Gate],
    runs: int,
    seed: int,
    workers: int | None,
) -> dict[int, int | None]:
    if runs == 0:
        return {gate.min_passing: None for gate in gates}
    result = simulate_gates(
        suite, flip_rate, [g.threshold for g in gates], runs=runs, seed=seed, workers=workers
    )
    return {sim.gate.min_passing: sim.failed for sim in result.gates}
