"""Text and JSON renderings of a tuning report.

The text leads each noise level with its table of gates (the suite's own gate marked), then the
views that apply: correlated errors against independent ones, the posterior intervals of
measured rates, the options with repeated judge calls; and ends with the verdict — met or NOT
MET first, what would meet the limits, and the lines to write in ``suite.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalmark.noise.gates import Gate, min_passing
from evalmark.noise.rates import ErrorRates
from evalmark.noise.tuning import (
    CasesNeeded,
    GateRow,
    NoiseLevel,
    Recommendation,
    RepeatOption,
    TuneReport,
)
from evalmark.noise.uncertainty import RiskInterval, UncertainRow

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
        lines += _verdict(level, report, judged_names)
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


def _current(report: TuneReport) -> int | None:
    if report.current_gate is None:
        return None
    return min_passing(report.current_gate, report.cases)


def _table(level: NoiseLevel, report: TuneReport) -> list[str]:
    width = max(len(row.gate.label) for row in level.rows)
    needs = [_needs(row.gate) for row in level.rows]
    need_width = max(len("needs"), *(len(n) for n in needs))
    count_width = len(str(report.runs))
    header = (
        f"{'gate':<{width}}  {'needs':<{need_width}}  {'healthy build fails it':<26}  "
        "regressed build fails it"
    )
    lines = [header]
    seen: dict[int, str] = {}
    current = _current(report)
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


def _needs(gate: Gate) -> str:
    return f"≥{gate.min_passing}/{gate.cases}"


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
    current = _current(report)
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
    need_width = max(len("needs"), *(len(_needs(row.gate)) for row, _ in pairs))
    lines.append(f"{'gate':<{width}}  {'needs':<{need_width}}  {'false alarm':<23}  miss")
    lines.append(
        f"{'':<{width}}  {'':<{need_width}}  {'correlated  independent':<23}  "
        "correlated  independent"
    )
    current = _current(report)
    for row, plain in pairs:
        line = (
            f"{row.gate.label:<{width}}  {_needs(row.gate):<{need_width}}  "
            f"{row.healthy_fails:<10.4f}  {plain.healthy_fails:<11.4f}  "
            f"{row.miss:<10.4f}  {plain.miss:.4f}"
        )
        if row.gate.min_passing == current:
            line += f"  {_MARK}"
        lines.append(line)
    focus = _focus(level, report)
    if focus is not None:
        row, plain = next((r, p) for r, p in pairs if r.gate.min_passing == focus.min_passing)
        lines.append(
            f"for {_gate_name(focus, report)} the independent model "
            f"{_states('false alarm', plain.healthy_fails, row.healthy_fails)} and "
            f"{_states('miss', plain.miss, row.miss)}"
        )
    return lines


def _gate_name(gate: Gate, report: TuneReport) -> str:
    if gate.min_passing == _current(report):
        return f"the suite's gate (pass-rate {report.current_gate:g}, {_needs(gate)})"
    return f"{gate.label} ({_needs(gate)})"


def _states(what: str, independent: float, correlated: float) -> str:
    if abs(independent - correlated) < 0.5e-4:
        return f"gives the same {what} ({correlated:.4f})"
    verb = "overstates" if independent > correlated else "understates"
    return f"{verb} the {what} ({independent:.4f} instead of {correlated:.4f})"


def _percent(value: float) -> str:
    if value <= 0.0:
        return "0%"
    if value < 0.01:
        return "<1%" if value >= 0.0005 else "0%"
    if value > 0.99 and value < 1.0:
        return ">99%" if value <= 0.9995 else "100%"
    return f"{value:.0%}"


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
    need_width = max(len("needs"), *(len(_needs(row.gate)) for row in rows))
    lines.append(f"{'gate':<{width}}  {'needs':<{need_width}}  {'false alarm':<21}  miss")
    current = _current(report)
    for row in rows:
        line = (
            f"{row.gate.label:<{width}}  {_needs(row.gate):<{need_width}}  "
            f"{_interval(row.false_alarm):<21}  {_interval(row.miss)}"
        )
        if row.gate.min_passing == current:
            line += f"  {_MARK}"
        lines.append(line)
    focus = _focus(level, report)
    if focus is not None:
        row = next(r for r in rows if r.gate.min_passing == focus.min_passing)
        lines.append(_risk_sentence(_gate_name(focus, report), row))
    return lines


def _risk_sentence(name: str, row: UncertainRow) -> str:
    alarm, miss = row.false_alarm, row.miss
    return (
        f"{name} fails a healthy build {_percent(alarm.mean)} of runs "
        f"({_percent(alarm.low)}-{_percent(alarm.high)}) and lets the regressed build through "
        f"{_percent(miss.mean)} of runs ({_percent(miss.low)}-{_percent(miss.high)})"
    )


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
        gate = "none" if rec.gate is None else f"{rec.gate.label} ({_needs(rec.gate)})"
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


def _verdict(level: NoiseLevel, report: TuneReport, judged_names: Sequence[str]) -> list[str]:
    rec = level.recommendation
    targets = f"false alarm ≤ {report.max_false_alarm:g} and miss ≤ {report.max_miss:g}"
    calls = "1 judge call" if level.repeats == 1 else f"{level.repeats} judge calls"
    lines = [""] if (level.independent_rows or level.uncertainty or len(level.options) > 1) else []
    if rec.meets:
        lines += _recommended(rec, report)
        lines.append(_size(level.cases_needed, targets, level.repeats))
    else:
        lines.append(
            f"NOT MET: no gate keeps {targets} on these {report.cases} cases with {calls} "
            "per judged check"
        )
        ways = _what_would(level, report)
        if ways:
            lines.append("what would meet them:")
            lines += [f"  {way}" for way in ways]
        else:
            lines.append(_size(level.cases_needed, targets, level.repeats))
        if rec.gate is None:
            lowest = min(level.rows, key=lambda row: row.healthy_fails)
            lines.append(
                f"recommended: none; no gate keeps false alarms ≤ {report.max_false_alarm:g} "
                f"(lowest: {lowest.healthy_fails:.4f} with {lowest.gate.label})"
            )
        else:
            first, second = _recommended(rec, report)
            lines += [first.replace("recommended:", "best gate meanwhile:", 1), second]
    choice = level.choice
    if choice is not None and rec.meets and choice.repeats != level.repeats:
        lines.append(f"fewer judge calls also meet the limits: {_option_text(choice)}")
    lines += _apply(level, report, judged_names)
    lines += _advised_uncertainty(level, report)
    return lines


def _advised_uncertainty(level: NoiseLevel, report: TuneReport) -> list[str]:
    """For measured rates: the advised gate's risks allowing for the rates' uncertainty."""
    gate, repeats, _ = _advised(level)
    if gate is None or level.measured is None:
        return []
    row = None
    for option in level.options:
        if option.repeats == repeats and option.recommendation.gate == gate:
            row = option.uncertainty
    if row is None and repeats == level.repeats:
        row = next((r for r in level.uncertainty if r.gate.min_passing == gate.min_passing), None)
    if row is None:
        return []
    calls = "" if repeats == level.repeats else f" with the majority of {repeats} calls"
    return [
        "allowing for the uncertainty of the rates, "
        + _risk_sentence(f"{_gate_name(gate, report)}{calls}", row)
    ]


def _recommended(rec: Recommendation, report: TuneReport) -> list[str]:
    assert rec.gate is not None and rec.false_alarm is not None and rec.miss is not None
    met = "met" if rec.meets_max_miss else "NOT met"
    return [
        f"recommended: {_name(rec.gate)}",
        f"  false alarm {rec.false_alarm:.4f} (target ≤ {report.max_false_alarm:g}), miss "
        f"{rec.miss:.4f} (target ≤ {report.max_miss:g}, {met})",
    ]


def _option_text(option: RepeatOption) -> str:
    gate = option.recommendation.gate
    assert gate is not None
    calls = "1 call" if option.repeats == 1 else f"the majority of {option.repeats} calls"
    return (
        f"{calls} per judged check with {gate.label} ({_needs(gate)}; "
        f"{option.judge_calls} judge calls per run)"
    )


def _what_would(level: NoiseLevel, report: TuneReport) -> list[str]:
    ways = []
    if level.choice is not None:
        ways.append(_option_text(level.choice))
    need = level.cases_needed
    if need.cases is not None:
        text = f"{need.cases} cases of the same mix, gating on ≥{need.min_passing}/{need.cases}"
        if report.judged_checks:
            calls = round(need.cases * report.judged_checks / report.cases) * level.repeats
            text += f" (about {calls} judge calls per run)"
        ways.append(text)
    if level.choice is None:  # neither repeats alone nor cases alone: both
        for option in level.options:
            more = option.cases_needed
            if option.repeats > level.repeats and more.cases is not None:
                ways.append(
                    f"{more.cases} cases with the majority of {option.repeats} calls, gating "
                    f"on ≥{more.min_passing}/{more.cases}"
                )
                break
    return ways


def _size(need: CasesNeeded, targets: str, repeats: int) -> str:
    calls = "" if repeats == 1 else f" (majority of {repeats} calls)"
    if need.cases is None:
        return f"cases needed for {targets}{calls}: more than {need.searched_up_to}"
    return (
        f"cases needed for {targets}{calls}: {need.cases}, gating on ≥{need.min_passing}/"
        f"{need.cases} (false alarm {need.false_alarm:.4f}, miss {need.miss:.4f})"
    )


def suite_threshold(gate: Gate) -> str:
    """The shortest pass-rate threshold naming the same gate, for ``suite.yaml`` (e.g. 0.83)."""
    for digits in range(1, 7):
        scale = 10**digits
        value = (gate.min_passing * scale // gate.cases) / scale  # k/n rounded down
        if value > 0 and min_passing(value, gate.cases) == gate.min_passing:
            return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits > 1 else f"{value:.1f}"
    return repr(gate.threshold)


def _advised(level: NoiseLevel) -> tuple[Gate | None, int, bool]:
    """The gate and calls per check to write in suite.yaml, and whether they meet the limits."""
    rec, choice = level.recommendation, level.choice
    if choice is not None and (not rec.meets or choice.repeats < level.repeats):
        return choice.recommendation.gate, choice.repeats, True
    return rec.gate, level.repeats, rec.meets


def _apply(level: NoiseLevel, report: TuneReport, judged_names: Sequence[str]) -> list[str]:
    gate, repeats, meets = _advised(level)
    if gate is None:
        return []
    if gate.min_passing == _current(report) and repeats == level.repeats:
        return [f"the suite's gate (pass-rate {report.current_gate:g}) is this gate already"]
    lines = [f"to apply in suite.yaml: gate: {{pass-rate: {suite_threshold(gate)}}}"]
    if repeats != level.repeats:
        names = " and ".join(judged_names) if judged_names else "every judged check"
        example = judged_names[0] if judged_names else "relevancy"
        lines[0] += f", and repeats: {repeats} on {names}"
        lines.append(f"  (a check with options: - {example}: {{repeats: {repeats}}})")
    if not meets:
        lines[0] += " (this does not meet the limits: see above)"
    return lines


def _name(gate: Gate) -> str:
    return f"{gate.label} (≥{gate.min_passing}/{gate.cases} cases pass)"


def _cell(probability: float, simulated: int | None, runs: int, width: int) -> str:
    if simulated is None:
        return f"{probability:.4f}"
    return f"{probability:.4f} (sim {simulated:>{width}}/{runs})"


# --------------------------------------------------------------------------- JSON


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
        "current_gate": report.current_gate,
        "current_min_passing": _current(report),
        "confidence": report.confidence,
        "levels": [_level_to_dict(level, report.runs) for level in report.levels],
    }


def _recommendation_dict(rec: Recommendation) -> dict[str, Any] | None:
    if rec.gate is None:
        return None
    return {
        "threshold": rec.gate.threshold,
        "min_passing": rec.gate.min_passing,
        "suite_threshold": float(suite_threshold(rec.gate)),
        "false_alarm": rec.false_alarm,
        "miss": rec.miss,
        "meets_max_miss": rec.meets_max_miss,
    }


def _cases_dict(need: CasesNeeded) -> dict[str, Any]:
    return {
        "cases": need.cases,
        "min_passing": need.min_passing,
        "false_alarm": need.false_alarm,
        "miss": need.miss,
        "searched_up_to": need.searched_up_to,
    }


def _risk_dict(risk: RiskInterval) -> dict[str, float]:
    return {"mean": risk.mean, "low": risk.low, "high": risk.high}


def _level_to_dict(level: NoiseLevel, runs: int) -> dict[str, Any]:
    measured = level.measured
    return {
        "flip_rate": level.flip_rate,
        "rates": {
            "false_pass": level.rates.false_pass,
            "false_fail": level.rates.false_fail,
            "overdispersion": level.rates.overdispersion,
        },
        "measured": None
        if measured is None
        else {
            "source": measured.source,
            "path": measured.path,
            "false_pass": {
                "errors": measured.false_pass.errors,
                "trials": measured.false_pass.trials,
            },
            "false_fail": {
                "errors": measured.false_fail.errors,
                "trials": measured.false_fail.trials,
            },
        },
        "repeats": level.repeats,
        "gates": [_row_to_dict(row, runs) for row in level.rows],
        "gates_omitted": level.omitted,
        "recommendation": _recommendation_dict(level.recommendation),
        "meets_limits": level.recommendation.meets,
        "cases_needed": _cases_dict(level.cases_needed),
        "independent": [
            {
                "threshold": row.gate.threshold,
                "min_passing": row.gate.min_passing,
                "healthy_fails": row.healthy_fails,
                "regressed_fails": row.regressed_fails,
                "miss": row.miss,
            }
            for row in level.independent_rows
        ],
        "uncertainty": [
            {
                "threshold": row.gate.threshold,
                "min_passing": row.gate.min_passing,
                "false_alarm": _risk_dict(row.false_alarm),
                "miss": _risk_dict(row.miss),
            }
            for row in level.uncertainty
        ],
        "repeat_options": [
            {
                "repeats": option.repeats,
                "judge_calls": option.judge_calls,
                "recommendation": _recommendation_dict(option.recommendation),
                "meets_limits": option.recommendation.meets,
                "cases_needed": _cases_dict(option.cases_needed),
                "independent_false_alarm": option.independent_false_alarm,
                "independent_miss": option.independent_miss,
                "uncertainty": None
                if option.uncertainty is None
                else {
                    "false_alarm": _risk_dict(option.uncertainty.false_alarm),
                    "miss": _risk_dict(option.uncertainty.miss),
                },
            }
            for option in level.options
        ],
        "choice": None
        if level.choice is None
        else {"repeats": level.choice.repeats, "judge_calls": level.choice.judge_calls},
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
