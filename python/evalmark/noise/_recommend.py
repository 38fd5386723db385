"""The gate table's rows and the rule that recommends one gate from them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from evalmark.noise._exact import fail_probabilities, suite_distribution
from evalmark.noise._gates import Gate
from evalmark.noise._rates import ErrorRates
from evalmark.noise._suite import BuildTruth

__all__ = ["GateRow", "Recommendation", "exact_rows", "gate_row", "informative", "recommend"]

# Below this a probability prints as 0.0000 (and above 1 minus it, as 1.0000): default gates that
# both builds fail almost never, or almost always, tell nothing and are left out of the table.
_NEGLIGIBLE = 0.5e-4


@dataclass(frozen=True, slots=True)
class GateRow:
    """One candidate gate at one noise level: exact risks and, when simulated, the counts."""

    gate: Gate
    healthy_fails: float
    regressed_fails: float
    healthy_simulated: int | None = None
    regressed_simulated: int | None = None
    regressed_passes: float | None = None

    @property
    def miss(self) -> float:
        """The probability that the gate lets the regressed build through.

        Summed from the upper tail when known (``regressed_passes``), so that a miss far below
        the float spacing of 1.0 keeps its size instead of rounding to ``1 - regressed_fails``.
        """
        if self.regressed_passes is not None:
            return self.regressed_passes
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

    @property
    def meets(self) -> bool:
        """True when the gate keeps both the false-alarm and the miss rate within the limits."""
        return self.gate is not None and self.meets_max_miss


def recommend(rows: Sequence[GateRow], max_false_alarm: float, max_miss: float) -> Recommendation:
    """Among gates failing the healthy build at most ``max_false_alarm`` of the time, the one
    missing the regression least often (ties: fewer false alarms, then the stricter gate).

    Misses are compared as summed from the upper tail: compared as ``1 - regressed_fails``,
    every gate whose miss is below 1e-16 would tie, and the tie-break would pick the most
    lenient of them at a tiny flip rate and a stricter one at a larger rate.
    """
    allowed = [row for row in rows if row.healthy_fails <= max_false_alarm]
    if not allowed:
        return Recommendation(None, None, None, meets_max_miss=False)
    best = min(allowed, key=lambda row: (row.miss, row.healthy_fails, -row.gate.min_passing))
    return Recommendation(best.gate, best.healthy_fails, best.miss, best.miss <= max_miss)


def informative(healthy_fails: float, regressed_fails: float) -> bool:
    low, high = sorted((healthy_fails, regressed_fails))
    return high >= _NEGLIGIBLE and low <= 1.0 - _NEGLIGIBLE


def gate_row(gate: Gate, risks: tuple[float, float, float]) -> GateRow:
    healthy_fails, regressed_fails, regressed_passes = risks
    return GateRow(gate, healthy_fails, regressed_fails, regressed_passes=regressed_passes)


def exact_rows(
    healthy: BuildTruth,
    regressed: BuildTruth,
    rates: ErrorRates,
    gates: Sequence[Gate],
    repeats: int,
) -> list[tuple[float, float, float]]:
    """Per gate: P(healthy fails), P(regressed fails) and P(regressed passes), the last summed
    from the upper tail so that it keeps its size when it is far below 1e-16."""
    below_h = fail_probabilities(suite_distribution(healthy, rates, repeats=repeats))
    pmf_r = suite_distribution(regressed, rates, repeats=repeats)
    below_r = fail_probabilities(pmf_r)
    return [
        (
            float(below_h[g.min_passing]),
            float(below_r[g.min_passing]),
            min(math.fsum(pmf_r[g.min_passing :].tolist()), 1.0),
        )
        for g in gates
    ]
