"""Appending a finished run to the history: what ``evalmark run`` and the pytest plugin call.

History never changes a run's verdict: :func:`append_run` returns the new run's id, or
``None`` when history is off, and raises :class:`~evalmark.errors.HistoryError` only for the
caller to print as a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalmark.history._from_report import results_from_reports
from evalmark.history._record import AnswerIdentity, CaseResult, collect_run
from evalmark.history._store import default_history_path, open_history

__all__ = ["append_run", "append_suite_run", "suite_inputs", "utc_now"]


def utc_now() -> str:
    """The current time as ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def suite_inputs(suite: Any, build: str | None) -> list[tuple[str, Path]]:
    """The files a suite run reads: every sample file, the chosen build's cassette of each
    evaluation, and the judge's cassette."""
    inputs: list[tuple[str, Path]] = []
    for evaluation in suite.evaluations:
        # a source a sample loader claims (``mem://golden``) is no file to fingerprint
        inputs.extend(("samples", path) for path in evaluation.samples if isinstance(path, Path))
        builds = evaluation.application.builds
        chosen = build if build in builds else next(iter(builds), None)
        if chosen is not None:
            inputs.append(("cassette", builds[chosen]))
    if suite.judge.cassette is not None:
        inputs.append(("judge", suite.judge.cassette))
    return sorted(set(inputs))


def append_run(
    *,
    suite: str,
    source: str,
    started_at: str,
    duration_s: float,
    reports: Sequence[Any] = (),
    results: Iterable[CaseResult] | None = None,
    build: str | None = None,
    gate_passed: bool | None = None,
    inputs: Sequence[tuple[str, Path]] = (),
    path: str | Path | None = None,
    identities: Sequence[Mapping[str, AnswerIdentity]] = (),
) -> int | None:
    """Append one run (its ``reports``, or ready ``results``) to the history at ``path``
    (default: :func:`~evalmark.history._store.default_history_path`); the new run's id, or
    ``None`` when history is turned off. ``identities`` says, per report, what produced each
    sample's answer (see :func:`~evalmark.history._from_report.results_from_reports`)."""
    target = Path(path) if path is not None else default_history_path()
    if target is None:
        return None
    rows = list(results) if results is not None else list(results_from_reports(reports, identities))
    record = collect_run(
        suite=suite,
        source=source,
        started_at=started_at,
        duration_s=duration_s,
        results=rows,
        build=build,
        gate_passed=gate_passed,
        inputs=inputs,
    )
    with open_history(target) as store:
        return store.append(record)


def append_suite_run(
    outcome: Any,
    *,
    started_at: str,
    duration_s: float,
    source: str = "run",
    path: str | Path | None = None,
) -> int | None:
    """Append a finished suite run (:class:`~evalmark.suite._runner.SuiteRun`) to the history,
    with what produced each case's answer (its ``sources``)."""
    identities = [
        {name: AnswerIdentity(s.model_id, s.recordings, s.build) for name, s in per.items()}
        for per in getattr(outcome, "sources", ())
    ]
    return append_run(
        suite=outcome.suite.name,
        source=source,
        started_at=started_at,
        duration_s=duration_s,
        reports=outcome.reports,
        build=outcome.build,
        gate_passed=outcome.passed,
        inputs=suite_inputs(outcome.suite, outcome.build),
        path=path,
        identities=identities,
    )
