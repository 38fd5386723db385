"""A suite run's judged pass rates corrected for the judge: ``evalmark run --judge-rates FILE``
or the suite's ``judge-rates:`` key (a rates file of ``evalmark judge calibrate``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from evalmark.errors import DataFileError
from evalmark.noise._rates import read_rates
from evalmark.report._judged import judge_correction, with_judge_correction
from evalmark.suite._runner import SuiteRun

__all__ = ["correct_for_judge"]


def correct_for_judge(run: SuiteRun, rates_file: Path) -> SuiteRun:
    """``run`` with each report's judged checks corrected by the rates in ``rates_file`` (a
    ``DataFileError`` naming the file when it cannot be read). Reports without a judged check
    are left as they were."""
    rates = read_rates(rates_file)
    reports = []
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        checks = [spec.label for spec in evaluation.strategies if spec.judged]
        try:
            if judge_correction(report, rates, checks)["rows"]:
                report = with_judge_correction(report, rates, checks)
        except ValueError as exc:  # a judge no better than chance, rates measured on nothing
            raise DataFileError(f"{rates_file}: {exc}") from None
        reports.append(report)
    return dataclasses.replace(run, reports=tuple(reports))
