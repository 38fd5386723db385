"""The tuning report as plain JSON-ready data (``evalmark tune --json``)."""

from __future__ import annotations

from typing import Any

from evalmark.noise._render_words import current_min_passing, suite_threshold
from evalmark.noise._tuning import CasesNeeded, GateRow, NoiseLevel, Recommendation, TuneReport
from evalmark.noise._uncertainty import RiskInterval

__all__ = ["report_to_dict"]


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
        "current_min_passing": current_min_passing(report),
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
        "searched_from": need.searched_from,
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
