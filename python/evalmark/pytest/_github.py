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

__all__ = ["SAMPLE_FILES", "TestPlace", "place_of", "session_github"]

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


def session_github(
    entries: Sequence[RegisteredReport],
    places: Mapping[str, TestPlace],
    failure: str | None,
) -> list[str]:
    """Append the session's step summary to ``$GITHUB_STEP_SUMMARY`` (when set) and return
    the annotation lines to print."""
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
    annotations, summary = github_output(heading, gates, failures)
    if failure is not None:
        summary = summary.rstrip("\n") + f"\n\n{failure}\n\n"
    write_summary(summary, os.environ.get("GITHUB_STEP_SUMMARY"))
    return annotations
