"""What ``evalmark compare`` can see: the minimum detectable difference at its number of cases,
set against the change that matters (the drop that fails B's gate, else ``--detect``), and why
"no difference beyond noise" can stand beside a failed gate.

The gate is read from the reports (every report of a run carries the run's gate) or from the
replayed suite run; the statistics come from :mod:`evalmark.noise._compare` and
:mod:`evalmark.noise._power`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evalmark.noise._compare import BuildComparison
from evalmark.noise._gates import min_passing
from evalmark.noise._power import cases_to_detect_pass_rate

__all__ = ["GateFacts", "gate_facts", "power_dict", "power_lines"]

_PASS_RATE = "pass rate (cases)"  # the label of the suite gate's overall pass-rate condition


@dataclass(frozen=True, slots=True)
class GateFacts:
    """A run's gate as compare needs it: did it hold, which conditions failed, and the overall
    pass rate it requires (None when it has no such condition)."""

    passed: bool
    failed: tuple[str, ...]
    required: float | None


def gate_facts(gates: Sequence[Any]) -> GateFacts | None:
    """The facts of the gate conditions ``gates`` (``GateResult``s); None when there are none."""
    if not gates:
        return None
    seen: dict[str, Any] = {}
    for gate in gates:
        seen.setdefault(gate.label, gate)
    rate = seen.get(_PASS_RATE)
    required = float(rate.required) if rate is not None and rate.unit == "rate" else None
    failed = tuple(label for label, gate in seen.items() if not gate.passed)
    return GateFacts(not failed, failed, required)


@dataclass(frozen=True, slots=True)
class _Gap:
    """The change that matters: a pass-rate drop of ``cases`` of the compared cases."""

    size: float
    cases: int
    needed: int | None  # cases for McNemar to see it with the comparison's power


def _gate_gap(c: BuildComparison, gate: GateFacts | None) -> _Gap | None:
    """The smallest drop from A's passing cases that fails B's gate (None: no such gate, or A
    does not meet it either)."""
    if gate is None or gate.required is None:
        return None
    m = c.mcnemar
    a_passed = m.both_passed + m.worse
    drop = a_passed - min_passing(gate.required, c.cases) + 1
    if drop <= 0:
        return None
    size = drop / c.cases
    needed, _ = cases_to_detect_pass_rate(
        size, m.discordant / c.cases, alpha=c.alpha, power=c.power
    )
    return _Gap(size, drop, needed)


def _points(value: float) -> str:
    return f"{value * 100:.1f} points"


def power_lines(c: BuildComparison, gate_b: GateFacts | None) -> list[str]:
    """The lines on what these cases can detect, and on a failed gate that compare cannot
    confirm."""
    test = f"McNemar's exact test on {c.cases} cases"
    if c.detectable is None:
        lines = [
            f"minimum detectable difference: none; {test} cannot reach α = {c.alpha:g} even "
            "if every case changed verdict the same way"
        ]
    else:
        lines = [
            f"minimum detectable difference: {_points(c.detectable)} of pass rate ({test} "
            f"sees a change this large with {c.power:.0%} power at α = {c.alpha:g}; smaller "
            "ones less often)"
        ]
    gap = _gate_gap(c, gate_b)
    if gap is not None:
        seen = c.detectable is not None and c.detectable <= gap.size
        lines.append(
            f"  B's gate fails at a drop of {_points(gap.size)} from A ({gap.cases} of "
            f"{c.cases} cases): "
            + ("large enough to be seen here" if seen else "too small to be seen reliably here")
            + ("" if seen or gap.needed is None else f"; about {gap.needed} cases would see it")
        )
    elif c.underpowered:
        lines.append(
            f"  a change of {_points(c.detect)} (--detect) is too small to be seen reliably here"
        )
    if gate_b is not None and not gate_b.passed and c.verdict == "no difference":
        lines += _why(c, gate_b, gap)
    return lines


def _why(c: BuildComparison, gate: GateFacts, gap: _Gap | None) -> list[str]:
    """Why B failed its gate while compare finds no difference beyond noise."""
    head = (
        f'"no difference beyond noise" while B failed its gate ({", ".join(gate.failed)}), because:'
    )
    if _PASS_RATE not in gate.failed:
        return [head, "  the conditions that failed are not the pass rate, which compare tests"]
    if gap is None:
        return [
            head,
            "  A does not meet the gate's pass rate either: B failing it is no change from A",
        ]
    if c.detectable is None or c.detectable > gap.size:
        seen = (
            "no change at all"
            if c.detectable is None
            else f"only changes of {_points(c.detectable)} or more"
        )
        return [
            head,
            f"  with {c.cases} cases compare detects {seen}, more than the drop of "
            f"{_points(gap.size)} that fails the gate: too few cases to tell such a drop from "
            "noise",
        ]
    return [
        head,
        f"  a {_points(gap.size)} drop could be seen on these cases, but the changes here are "
        f"within noise at α = {c.alpha:g}: B may sit under the gate by chance",
    ]


def power_dict(c: BuildComparison, gate_b: GateFacts | None) -> dict[str, Any]:
    """The power facts as JSON-ready data."""
    gap = _gate_gap(c, gate_b)
    return {
        "minimum_detectable_difference": c.detectable,
        "underpowered": c.underpowered
        if gap is None
        else (c.detectable is None or c.detectable > gap.size),
        "gate_b": None
        if gate_b is None
        else {
            "passed": gate_b.passed,
            "failed": list(gate_b.failed),
            "required_pass_rate": gate_b.required,
            "drop_that_fails": None if gap is None else gap.size,
            "cases_to_detect_that_drop": None if gap is None else gap.needed,
        },
    }
