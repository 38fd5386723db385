"""The verdict that ends each noise level of the tuning report's text.

Met or NOT MET first, what would meet the limits (repeated judge calls, more cases, or both),
the lines to write in ``suite.yaml``, and the advised gate's risks allowing for the uncertainty
of measured rates.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalmark.noise._gates import Gate
from evalmark.noise._render_words import (
    current_min_passing,
    gate_name,
    needs_text,
    risk_sentence,
    suite_threshold,
)
from evalmark.noise._tuning import CasesNeeded, NoiseLevel, Recommendation, RepeatOption, TuneReport

__all__ = ["verdict"]


def verdict(level: NoiseLevel, report: TuneReport, judged_names: Sequence[str]) -> list[str]:
    """The closing lines of one noise level: met or NOT MET, what would meet the limits, the
    ``suite.yaml`` lines and, for measured rates, the risks allowing for their uncertainty."""
    rec = level.recommendation
    targets = f"false alarm ≤ {report.max_false_alarm:g} and miss ≤ {report.max_miss:g}"
    calls = "1 judge call" if level.repeats == 1 else f"{level.repeats} judge calls"
    lines = [""] if (level.independent_rows or level.uncertainty or len(level.options) > 1) else []
    if rec.meets:
        lines += _recommended(rec, report)
        lines.append(_size(level.cases_needed, targets, level.repeats, report.cases))
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
            lines.append(_size(level.cases_needed, targets, level.repeats, report.cases))
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
        + risk_sentence(f"{gate_name(gate, report)}{calls}", row)
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
        f"{calls} per judged check with {gate.label} ({needs_text(gate)}; "
        f"{option.judge_calls} judge calls per run)"
    )


def _what_would(level: NoiseLevel, report: TuneReport) -> list[str]:
    ways = []
    if level.choice is not None:
        ways.append(_option_text(level.choice))
    need = level.cases_needed
    if need.cases is not None:
        text = f"{need.cases} cases of the same mix, gating on ≥{need.min_passing}/{need.cases}"
        if need.cases == report.cases:
            text = f"the suite's {need.cases} cases, gating on ≥{need.min_passing}/{need.cases}"
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


def _size(need: CasesNeeded, targets: str, repeats: int, suite_cases: int) -> str:
    """The cases needed; below the suite's size, said to be a minimum the suite already
    exceeds, not advice to drop cases."""
    calls = "" if repeats == 1 else f" (majority of {repeats} calls)"
    if need.cases is None:
        return f"cases needed for {targets}{calls}: more than {need.searched_up_to}"
    risks = f"(false alarm {need.false_alarm:.4f}, miss {need.miss:.4f})"
    gate = f"gating on ≥{need.min_passing}/{need.cases}"
    if need.cases < suite_cases:
        return (
            f"minimum cases for {targets}{calls}: {need.cases} of the same mix, {gate} {risks}; "
            f"a minimum, not advice to drop cases: the suite's {suite_cases} cases meet them "
            "already"
        )
    if need.cases == suite_cases:
        return f"cases needed for {targets}{calls}: the suite's {need.cases}, {gate} {risks}"
    return f"cases needed for {targets}{calls}: {need.cases}, {gate} {risks}"


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
    if gate.min_passing == current_min_passing(report) and repeats == level.repeats:
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
