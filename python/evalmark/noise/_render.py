"""Text and JSON renderings of a tuning report.

The text leads each noise level with its table of gates (the suite's own gate marked), then the
views that apply: correlated errors against independent ones, the posterior intervals of
measured rates, the options with repeated judge calls; and ends with the verdict
(:mod:`evalmark.noise._render_verdict`). The JSON form is :mod:`evalmark.noise._render_json`,
re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalmark.noise._gates import Gate
from evalmark.noise._rates import ErrorRates
from evalmark.noise._render_json import report_to_dict
from evalmark.noise._render_verdict import verdict
from evalmark.noise._render_words import (
    current_min_passing,
    gate_name,
    needs_text,
    risk_sentence,
    suite_threshold,
)
from evalmark.noise._tuning import NoiseLevel, TuneReport
from evalmark.noise._uncertainty import RiskInterval

__all__ = ["rates_label", "render_text", "report_to_dict", "suite_threshold"]

_MARK = "← suite gate"


def render_text(report: TuneReport, *, judged_names: Sequence[str] = ()) -> str:
    """The report as aligned tables, one block per noise level, each ending with its verdict.

    ``judged_names`` (the suite's judged checks) make the ``suite.yaml`` advice name them.
    """
    lines: list[str] = []
    for level in report.levels:
        if lines:
            lines.append("")
        lines.append(
            f"judge {rates_label(level.rates)}: {report.cases} cases, "
            f"{report.judged_checks} judged checks; regressed build: "
            f"{report.regressed_failing_cases} truly failing cases"
        )
        if level.repeats > 1:
            lines.append(f"(each judged check decided by the majority of {level.repeats} calls)")
        lines += _table(level, report)
        if level.omitted:
            lines.append(
                f"({level.omitted} more gates not shown: both builds fail them with probability "
                "below 0.00005 or above 0.99995)"
            )
        if level.independent_rows:
            lines += _correlated(level, report)
        if level.uncertainty:
            lines += _uncertainty(level, report)
        if len(level.options) > 1:
            lines += _repeats(level, report)
        lines += verdict(level, report, judged_names)
    return "\n".join(lines) + "\n"


def rates_label(rates: ErrorRates) -> str:
    """E.g. "flip rate 0.03" or "false pass 0.104, false fail 0.0347, overdispersion 0.3"."""
    if rates.is_flip:
        text = f"flip rate {rates.false_pass:.4g}"
    else:
        text = f"false pass {rates.false_pass:.4g}, false fail {rates.false_fail:.4g}"
    if rates.overdispersion:
        text += f", overdispersion {rates.overdispersion:.4g}"
    return text


def _table(level: NoiseLevel, report: TuneReport) -> list[str]:
    width = max(len(row.gate.label) for row in level.rows)
    needs = [needs_text(row.gate) for row in level.rows]
    need_width = max(len("needs"), *(len(n) for n in needs))
    count_width = len(str(report.runs))
    header = (
        f"{'gate':<{width}}  {'needs':<{need_width}}  {'healthy build fails it':<26}  "
        "regressed build fails it"
    )
    lines = [header]
    seen: dict[int, str] = {}
    current = current_min_passing(report)
    for row, need in zip(level.rows, needs, strict=True):
        prefix = f"{row.gate.label:<{width}}  {need:<{need_width}}  "
        if row.gate.min_passing in seen:
            lines.append(f"{prefix}same gate as {seen[row.gate.min_passing]}")
            continue
        seen[row.gate.min_passing] = row.gate.label
        healthy = _cell(row.healthy_fails, row.healthy_simulated, report.runs, count_width)
        regressed = _cell(row.regressed_fails, row.regressed_simulated, report.runs, count_width)
        line = f"{prefix}{healthy:<26}  {regressed}"
        if row.gate.min_passing == current:
            line = f"{line:<{len(prefix) + 54}}  {_MARK}"
        lines.append(line.rstrip())
    return lines


def _distinct(rows: Sequence[Any]) -> list[Any]:
    seen: set[int] = set()
    result = []
    for row in rows:
        if row.gate.min_passing not in seen:
            seen.add(row.gate.min_passing)
            result.append(row)
    return result


def _focus(level: NoiseLevel, report: TuneReport) -> Gate | None:
    """The gate the prose talks about: the suite's own, else the recommended one."""
    current = current_min_passing(report)
    for row in level.rows:
        if row.gate.min_passing == current:
            return row.gate
    if level.recommendation.gate is None and len(_distinct(level.rows)) == 1:
        return level.rows[0].gate  # the only gate asked about
    return level.recommendation.gate


def _correlated(level: NoiseLevel, report: TuneReport) -> list[str]:
    rho = level.rates.overdispersion
    lines = [
        "",
        f"correlated errors (overdispersion {rho:.4g}: a case the judge gets wrong once, it "
        "tends to get wrong again) against independent errors at the same rates:",
    ]
    pairs = list(zip(_distinct(level.rows), _distinct(level.independent_rows), strict=True))
    width = max(len(row.gate.label) for row, _ in pairs)
    need_width = max(len("needs"), *(len(needs_text(row.gate)) for row, _ in pairs))
    lines.append(f"{'gate':<{width}}  {'needs':<{need_width}}  {'false alarm':<23}  miss")
    lines.append(
        f"{'':<{width}}  {'':<{need_width}}  {'correlated  independent':<23}  "
        "correlated  independent"
    )
    current = current_min_passing(report)
    for row, plain in pairs:
        line = (
            f"{row.gate.label:<{width}}  {needs_text(row.gate):<{need_width}}  "
            f"{row.healthy_fails:<10.4f}  {plain.healthy_fails:<11.4f}  "
            f"{row.miss:<10.4f}  {plain.miss:.4f}"
        )
        lines.append(_marked(line, row.gate, current))
    focus = _focus(level, report)
    if focus is not None:
        row, plain = next((r, p) for r, p in pairs if r.gate.min_passing == focus.min_passing)
        lines.append(
            f"for {gate_name(focus, report)} the independent model "
            f"{_states('false alarm', plain.healthy_fails, row.healthy_fails)} and "
            f"{_states('miss', plain.miss, row.miss)}"
        )
    return lines


def _states(what: str, independent: float, correlated: float) -> str:
    if abs(independent - correlated) < 0.5e-4:
        return f"gives the same {what} ({correlated:.4f})"
    verb = "overstates" if independent > correlated else "understates"
    return f"{verb} the {what} ({independent:.4f} instead of {correlated:.4f})"


def _interval(risk: RiskInterval) -> str:
    return f"{risk.mean:.3f} ({risk.low:.3f}-{risk.high:.3f})"


def _uncertainty(level: NoiseLevel, report: TuneReport) -> list[str]:
    measured = level.measured
    assert measured is not None
    percent = f"{report.confidence:.0%}"
    lines = [
        "",
        f"uncertainty: the rates are counts (false pass {measured.false_pass.label}, false "
        f"fail {measured.false_fail.label}); posterior mean and {percent} interval of each risk:",
    ]
    rows = _distinct(level.uncertainty)
    width = max(len(row.gate.label) for row in rows)
    need_width = max(len("needs"), *(len(needs_text(row.gate)) for row in rows))
    lines.append(f"{'gate':<{width}}  {'needs':<{need_width}}  {'false alarm':<21}  miss")
    current = current_min_passing(report)
    for row in rows:
        line = (
            f"{row.gate.label:<{width}}  {needs_text(row.gate):<{need_width}}  "
            f"{_interval(row.false_alarm):<21}  {_interval(row.miss)}"
        )
        lines.append(_marked(line, row.gate, current))
    focus = _focus(level, report)
    if focus is not None:
        row = next(r for r in rows if r.gate.min_passing == focus.min_passing)
        lines.append(risk_sentence(gate_name(focus, report), row))
    return lines


def _repeats(level: NoiseLevel, report: TuneReport) -> list[str]:
    correlated = level.rates.overdispersion > 0.0
    lines = [
        "",
        "repeats: each judged check decided by the majority of k judge calls (a tie fails); "
        "the best gate for each k:",
    ]
    cells: list[list[str]] = []
    for option in level.options:
        rec = option.recommendation
        gate = "none" if rec.gate is None else f"{rec.gate.label} ({needs_text(rec.gate)})"
        alarm = "-" if rec.false_alarm is None else f"{rec.false_alarm:.4f}"
        miss = "-" if rec.miss is None else f"{rec.miss:.4f}"
        limits = "met" if rec.meets else "NOT met"
        plain = ""
        if correlated and option.independent_false_alarm is not None:
            plain = f"{option.independent_false_alarm:.4f} / {option.independent_miss:.4f}"
        cells.append(
            [str(option.repeats), str(option.judge_calls), gate, alarm, miss, limits, plain]
        )
    titles = ["k", "judge calls/run", "best gate", "false alarm", "miss", "limits"]
    if correlated:
        titles.append("if independent: false alarm / miss")
        rows = cells
    else:
        rows = [cell[:-1] for cell in cells]
    widths = [max(len(t), *(len(r[i]) for r in rows)) for i, t in enumerate(titles)]
    lines.append("  ".join(f"{t:<{w}}" for t, w in zip(titles, widths, strict=True)).rstrip())
    for cell in rows:
        lines.append("  ".join(f"{c:<{w}}" for c, w in zip(cell, widths, strict=True)).rstrip())
    if correlated:
        lines.append(
            "correlated errors repeat on the same case, so extra calls help less than the "
            "independent model promises"
        )
    return lines


def _marked(line: str, gate: Gate, current: int | None) -> str:
    """``line`` with the suite-gate mark when ``gate`` is the suite's own gate."""
    return f"{line}  {_MARK}" if gate.min_passing == current else line


def _cell(probability: float, simulated: int | None, runs: int, width: int) -> str:
    if simulated is None:
        return f"{probability:.4f}"
    return f"{probability:.4f} (sim {simulated:>{width}}/{runs})"
