"""Text and JSON renderings of a tuning report."""

from __future__ import annotations

from typing import Any

from evalmark.noise.gates import Gate
from evalmark.noise.tuning import GateRow, NoiseLevel, TuneReport


def report_to_dict(report: TuneReport) -> dict[str, Any]:
    """The report as plain JSON-ready data (gates keyed by threshold and cases needed)."""
    return {
        "cases": report.cases,
        "judged_checks": report.judged_checks,
        "regressed_failing_cases": report.regressed_failing_cases,
        "runs": report.runs,
        "seed": report.seed,
        "max_false_alarm": report.max_false_alarm,
        "max_miss": report.max_miss,
        "levels": [_level_to_dict(level, report.runs) for level in report.levels],
    }


def render_text(report: TuneReport) -> str:
    """The report as aligned tables, one per noise level, with the recommendation under each."""
    lines: list[str] = []
    for level in report.levels:
        if lines:
            lines.append("")
        lines.append(
            f"judge flip rate {level.flip_rate:g}: {report.cases} cases, "
            f"{report.judged_checks} judged checks; regressed build: "
            f"{report.regressed_failing_cases} truly failing cases"
        )
        lines += _table(level, report.runs)
        if level.omitted:
            lines.append(
                f"({level.omitted} more gates not shown: both builds fail them with probability "
                "below 0.00005 or above 0.99995)"
            )
        lines += _advice(level, report)
    return "\n".join(lines) + "\n"


def _table(level: NoiseLevel, runs: int) -> list[str]:
    width = max(len(row.gate.label) for row in level.rows)
    needs = [f"≥{row.gate.min_passing}/{row.gate.cases}" for row in level.rows]
    need_width = max(len("needs"), *(len(n) for n in needs))
    count_width = len(str(runs))
    header = (
        f"{'gate':<{width}}  {'needs':<{need_width}}  {'healthy build fails it':<26}  "
        "regressed build fails it"
    )
    lines = [header]
    seen: dict[int, str] = {}
    for row, need in zip(level.rows, needs, strict=True):
        prefix = f"{row.gate.label:<{width}}  {need:<{need_width}}  "
        if row.gate.min_passing in seen:
            lines.append(f"{prefix}same gate as {seen[row.gate.min_passing]}")
            continue
        seen[row.gate.min_passing] = row.gate.label
        healthy = _cell(row.healthy_fails, row.healthy_simulated, runs, count_width)
        regressed = _cell(row.regressed_fails, row.regressed_simulated, runs, count_width)
        lines.append(f"{prefix}{healthy:<26}  {regressed}".rstrip())
    return lines


def _advice(level: NoiseLevel, report: TuneReport) -> list[str]:
    rec = level.recommendation
    if rec.gate is None or rec.false_alarm is None or rec.miss is None:
        lowest = min(level.rows, key=lambda row: row.healthy_fails)
        advice = (
            f"recommended: none; no gate keeps false alarms ≤ {report.max_false_alarm:g} "
            f"(lowest: {lowest.healthy_fails:.4f} with {lowest.gate.label})"
        )
    else:
        met = "met" if rec.meets_max_miss else "NOT met"
        advice = (
            f"recommended: {_name(rec.gate)}\n  false alarm {rec.false_alarm:.4f} "
            f"(target ≤ {report.max_false_alarm:g}), miss {rec.miss:.4f} "
            f"(target ≤ {report.max_miss:g}, {met})"
        )
    need = level.cases_needed
    targets = f"false alarm ≤ {report.max_false_alarm:g} and miss ≤ {report.max_miss:g}"
    if need.cases is None:
        size = f"cases needed for {targets}: more than {need.searched_up_to}"
    else:
        size = (
            f"cases needed for {targets}: {need.cases}, gating on ≥{need.min_passing}/"
            f"{need.cases} (false alarm {need.false_alarm:.4f}, miss {need.miss:.4f})"
        )
    return [advice, size]


def _name(gate: Gate) -> str:
    return f"{gate.label} (≥{gate.min_passing}/{gate.cases} cases pass)"


def _cell(probability: float, simulated: int | None, runs: int, width: int) -> str:
    if simulated is None:
        return f"{probability:.4f}"
    return f"{probability:.4f} (sim {simulated:>{width}}/{runs})"


def _level_to_dict(level: NoiseLevel, runs: int) -> dict[str, Any]:
    rec = level.recommendation
    need = level.cases_needed
    return {
        "flip_rate": level.flip_rate,
        "gates": [_row_to_dict(row, runs) for row in level.rows],
        "gates_omitted": level.omitted,
        "recommendation": None
        if rec.gate is None
        else {
            "threshold": rec.gate.threshold,
            "min_passing": rec.gate.min_passing,
            "false_alarm": rec.false_alarm,
            "miss": rec.miss,
            "meets_max_miss": rec.meets_max_miss,
        },
        "cases_needed": {
            "cases": need.cases,
            "min_passing": need.min_passing,
            "false_alarm": need.false_alarm,
            "miss": need.miss,
            "searched_up_to": need.searched_up_to,
        },
    }


def _row_to_dict(row: GateRow, runs: int) -> dict[str, Any]:
    return {
        "threshold": row.gate.threshold,
        "label": row.gate.label,
        "min_passing": row.gate.min_passing,
        "same_gate_as": list(row.gate.same_gate_as),
        "healthy_fails": row.healthy_fails,
        "regressed_fails": row.regressed_fails,
        "miss": row.miss,
        "healthy_simulated": row.healthy_simulated,
        "regressed_simulated": row.regressed_simulated,
        "simulated_runs": runs if row.healthy_simulated is not None else None,
    }
