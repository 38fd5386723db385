"""``evalmark run --github``: what GitHub Actions shows of a run, through the one renderer
:mod:`evalmark.report._github`. The failing cases are annotated at the line of their sample in
its samples file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from evalmark.report._github import (
    GithubFailure,
    github_enabled,
    github_output,
    sample_lines,
    write_summary,
)

__all__ = ["github_enabled", "sample_lines", "write_github"]


def write_github(
    outcome: Any, out: TextIO, summary_path: str | None, *, logs: Sequence[Path] = ()
) -> None:
    """Print the annotations to ``out`` and append the step summary to ``summary_path`` (the
    value of ``$GITHUB_STEP_SUMMARY``; nothing is written when it is unset); the summary names
    the inspect-compatible ``logs`` written for the run."""
    verdict = "passed" if outcome.passed else "FAILED"
    build = f", build {outcome.build}" if getattr(outcome, "build", None) else ""
    failures: list[GithubFailure] = []
    for evaluation, report in zip(outcome.evaluations, outcome.reports, strict=False):
        where = sample_lines(evaluation.samples) if evaluation.samples else {}
        failures += [
            GithubFailure(
                row.name, row.verdict, row.explanation or row.verdict, where.get(row.name)
            )
            for row in report.failing_rows()
        ]
    heading = f"evalmark: suite {outcome.suite.name}{build}: {verdict}"
    annotations, summary = github_output(heading, outcome.gates, failures, logs=logs)
    for line in annotations:
        out.write(line + "\n")
    write_summary(summary, summary_path)
