"""How the tuning report words a gate: "≥9/10", "the suite's gate (...)", a risk sentence.

Shared by the text rendering (:mod:`evalmark.noise._render`), its verdict
(:mod:`evalmark.noise._render_verdict`) and the JSON form (:mod:`evalmark.noise._render_json`).
"""

from __future__ import annotations

from evalmark.noise._gates import Gate, min_passing
from evalmark.noise._tuning import TuneReport
from evalmark.noise._uncertainty import UncertainRow

__all__ = ["current_min_passing", "gate_name", "needs_text", "risk_sentence", "suite_threshold"]


def current_min_passing(report: TuneReport) -> int | None:
    """How many cases the suite's own gate needs to pass, or None without one."""
    if report.current_gate is None:
        return None
    return min_passing(report.current_gate, report.cases)


def needs_text(gate: Gate) -> str:
    """E.g. "≥9/10": the cases the gate needs to pass, of all."""
    return f"≥{gate.min_passing}/{gate.cases}"


def gate_name(gate: Gate, report: TuneReport) -> str:
    """The gate as the prose names it: the suite's own gate, or its label."""
    if gate.min_passing == current_min_passing(report):
        return f"the suite's gate (pass-rate {report.current_gate:g}, {needs_text(gate)})"
    return f"{gate.label} ({needs_text(gate)})"


def _percent(value: float) -> str:
    if value <= 0.0:
        return "0%"
    if value < 0.01:
        return "<1%" if value >= 0.0005 else "0%"
    if value > 0.99 and value < 1.0:
        return ">99%" if value <= 0.9995 else "100%"
    return f"{value:.0%}"


def risk_sentence(name: str, row: UncertainRow) -> str:
    """How often ``name`` fails a healthy build and lets the regressed one through."""
    alarm, miss = row.false_alarm, row.miss
    return (
        f"{name} fails a healthy build {_percent(alarm.mean)} of runs "
        f"({_percent(alarm.low)}-{_percent(alarm.high)}) and lets the regressed build through "
        f"{_percent(miss.mean)} of runs ({_percent(miss.low)}-{_percent(miss.high)})"
    )


def suite_threshold(gate: Gate) -> str:
    """The shortest pass-rate threshold naming the same gate, for ``suite.yaml`` (e.g. 0.83)."""
    for digits in range(1, 7):
        scale = 10**digits
        value = (gate.min_passing * scale // gate.cases) / scale  # k/n rounded down
        if value > 0 and min_passing(value, gate.cases) == gate.min_passing:
            return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits > 1 else f"{value:.1f}"
    return repr(gate.threshold)
