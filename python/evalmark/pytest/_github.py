"""``--evalmark-github``: the session's GitHub Actions step summary and annotations, through
the one renderer :mod:`evalmark.report._github` that ``evalmark run --github`` uses. A failing
case is annotated at its sample's line when the test read it with
``@pytest.mark.evalmark_samples``, else at the test's own line."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evalmark.pytest._registry import RegisteredReport

__all__ = [
    "SAMPLE_FILES",
    "TestPlace",
    "inspect_log_of",
    "place_of",
    "session_github",
    "write_inspect_logs",
]

SAMPLE_FILES = pytest.StashKey[list[Path]]()
"""The sample files a test's ``samples`` fixture read (set by the fixture)."""


@dataclass(frozen=True, slots=True)
class TestPlace:
    """Where a test is defined, and the sample files it read."""

    path: Path
    line: int
    sample_files: tuple[Path, ...] = field(default=())


def place_of(item: pytest.Item) -> TestPlace:
    """The place of ``item``: its file, its 1-based line, its sample files."""
    line = item.location[1]
    declared = getattr(getattr(item, "obj", None), "evalmark_sample_files", [])
    files = item.stash.get(SAMPLE_FILES, declared)
    return TestPlace(Path(item.path), 1 if line is None else line + 1, tuple(files))


def inspect_log_of(entry: RegisteredReport) -> str | None:
    """The inspect log of a registered report: rendered by a worker already, or from the
    samples it was scored on; None when those are not known or lack some of its cases."""
    if entry.inspect_log is not None:
        return entry.inspect_log
    if entry.samples is None:
        return None
    from evalmark.engine._pipeline import load_source
    from evalmark.report._output import render_report

    try:
        return render_report(entry.report, "inspect", samples=list(load_source(entry.samples)))
    except (ValueError, TypeError):  # samples given as a one-shot iterator, or not by name
        return None


def write_inspect_logs(entries: Sequence[RegisteredReport], folder: Path) -> list[Path]:
    """Write an inspect log of each report whose samples are known into ``folder`` (each file
    whole or not at all), named after the report; returns the paths written."""
    from evalmark._files.atomic import write_atomically
    from evalmark.report._paths import path_inside
    from evalmark.report._render.inspect_log import EXTENSION

    written: list[Path] = []
    for entry in entries:
        text = inspect_log_of(entry)
        if text is not None:
            path = path_inside(folder, entry.name, EXTENSION)
            write_atomically(path, text.encode("utf-8"))
            written.append(path)
    return written


def session_github(
    entries: Sequence[RegisteredReport],
    places: Mapping[str, TestPlace],
    failure: str | None,
    logs: Sequence[Path] = (),
) -> list[str]:
    """Append the session's step summary (naming the inspect ``logs`` written) to
    ``$GITHUB_STEP_SUMMARY`` (when set) and return the annotation lines to print."""
    from evalmark.pytest._session import suite_of
    from evalmark.report._github import (
        GithubFailure,
        GithubGate,
        github_output,
        sample_lines,
        write_summary,
    )

    suite = suite_of(entries)
    gates: list[GithubGate] = []
    failures: list[GithubFailure] = []
    found_lines: dict[tuple[Path, ...], dict[str, tuple[Path, int]]] = {}
    for report in suite.reports:
        place = places.get(report.name.split(" #", 1)[0])
        where: dict[str, tuple[Path, int]] = {}
        if place is not None and place.sample_files:
            if place.sample_files not in found_lines:
                found_lines[place.sample_files] = sample_lines(place.sample_files)
            where = found_lines[place.sample_files]
        gates += [
            GithubGate(f"{report.name}: {g.label}", g.actual, g.required, g.passed)
            for g in report.gates
        ]
        for row in report.failing_rows():
            at = where.get(row.name) or (None if place is None else (place.path, place.line))
            why = row.explanation or row.verdict
            failures.append(GithubFailure(f"{report.name}: {row.name}", row.verdict, why, at))
    passed = failure is None and all(gate.passed for gate in gates)
    heading = (
        f"evalmark: pytest, {len(suite.reports)} report{'s' if len(suite.reports) != 1 else ''}"
        f": {'passed' if passed else 'FAILED'}"
    )
    annotations, summary = github_output(heading, gates, failures, logs=logs)
    if failure is not None:
        summary = summary.rstrip("\n") + f"\n\n{failure}\n\n"
    write_summary(summary, os.environ.get("GITHUB_STEP_SUMMARY"))
    return annotations
