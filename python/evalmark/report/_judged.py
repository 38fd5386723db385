"""Judged pass rates corrected for the judge, kept in a report's metadata.

Given a judge's measured false-pass and false-fail counts (a rates file of ``evalmark judge
calibrate``), each judged check's pass rate, over every case and within each tag, is shown
beside its Rogan–Gladen correction and interval (:mod:`evalmark.noise._correction`). The
figures travel in ``report.metadata["judge_correction"]``, so the JSON report keeps them and
every format renders them (:mod:`evalmark.report._render.judged`); a report without the key
renders as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evalmark.noise._correction import corrected_rate

if TYPE_CHECKING:
    from evalmark.noise._rates import JudgeRates
    from evalmark.report._model import Report

__all__ = ["JUDGE_CORRECTION", "judge_correction", "judge_correction_of", "with_judge_correction"]

JUDGE_CORRECTION = "judge_correction"
METHOD = (
    "Rogan–Gladen: (raw − false-pass rate) / (1 − false-pass rate − false-fail rate), clipped "
    "to [0, 1]; interval from the Jeffreys posteriors of the run's and the calibration's "
    "counts on a fixed grid (no randomness)"
)


def judge_correction(
    report: Report, rates: JudgeRates, checks: Sequence[str], *, confidence: float = 0.95
) -> dict[str, Any]:
    """The corrected figures of ``checks`` (those of the report's strategies that a judge
    decides) as a JSON-ready document: one row per check overall, then per check and tag."""
    rows: list[dict[str, Any]] = []
    judged = [c for c in checks if c in report.strategies]
    for tag in (None, *report.tags):
        for check in judged:
            tally = report.tally(tag=tag, strategy=check)
            if tally.evaluations == 0:
                continue
            figure = corrected_rate(
                tally.passed,
                tally.evaluations,
                rates.false_pass,
                rates.false_fail,
                confidence=confidence,
            )
            rows.append({"check": check, "tag": tag, **figure.to_dict()})
    return {
        "rates": {
            "source": rates.origin,
            "false_pass": {"errors": rates.false_pass.errors, "trials": rates.false_pass.trials},
            "false_fail": {"errors": rates.false_fail.errors, "trials": rates.false_fail.trials},
        },
        "confidence": confidence,
        "method": METHOD,
        "rows": rows,
    }


def with_judge_correction(
    report: Report, rates: JudgeRates, checks: Sequence[str], *, confidence: float = 0.95
) -> Report:
    """``report`` with :func:`judge_correction` in its metadata (nothing else recomputed)."""
    document = judge_correction(report, rates, checks, confidence=confidence)
    return report.with_metadata(**{JUDGE_CORRECTION: document})


def judge_correction_of(report: Report) -> Mapping[str, Any] | None:
    """The report's corrected figures, or None when it has none."""
    found: Any = report.metadata.get(JUDGE_CORRECTION)
    if not isinstance(found, Mapping) or not isinstance(found.get("rows"), list):
        return None
    return found
