"""The end of a pytest session with evalmark: the suite report, the summary table, the baseline.

Kept apart from :mod:`evalmark.pytest._plugin` so that the plugin imports the engine only when a
session actually registered reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalmark.errors import ReportFormatError
from evalmark.gates._baseline import drops as drops_of
from evalmark.gates._rules import drop_exceeds
from evalmark.pytest._registry import REPORT_STEM, RegisteredReport
from evalmark.report import Report, SuiteReport, compare, write_report
from evalmark.report._cases import pass_rate_label
from evalmark.report._formatters import get_formatter
from evalmark.report._render.terminal import table
from evalmark.report._wording import gate_relation, plural

__all__ = ["DEFAULT_FORMATS", "SessionOutcome", "finish_session", "suite_of"]


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """What to print at the end of the session, and why it fails (None when it does not)."""

    lines: list[str] = field(default_factory=list)
    failure: str | None = None


DEFAULT_FORMATS = ("markdown", "json")


def _extension(fmt: str) -> str:
    """The file extension of a suite report in ``fmt``: the format's first one, else ``.fmt``."""
    formatter = get_formatter(fmt)
    return formatter.extensions[0] if formatter.extensions else f".{formatter.name}"


def _renamed(report: Report, name: str) -> Report:
    return report if report.name == name else report.with_name(name)


def suite_of(entries: Sequence[RegisteredReport], name: str = "pytest") -> SuiteReport:
    """The suite report of the registered reports, each named after its test, sorted by name
    so a run under pytest-xdist gives the same bytes as a serial run."""
    ordered = sorted(entries, key=lambda entry: entry.name)
    return SuiteReport([_renamed(e.report, e.name) for e in ordered], name=name)


def _verdict(report: Report) -> str:
    """The report's verdict: its gate's (``min_pass_rate``, ``report.with_gates``) when one
    applied, else ``no gate`` (a report that only records is judged by its test)."""
    if report.gates:
        return "pass" if all(gate.passed for gate in report.gates) else "FAIL"
    return "no gate"


def _gate(report: Report) -> str:
    return "; ".join(f"{gate.label} {gate_relation(gate)}" for gate in report.gates) or "-"


def _table(suite: SuiteReport) -> list[str]:
    header = ["report", "cases", "passed", "failed", "errors", "pass rate (cases)", "gate"]
    rows = []
    for r in suite.reports:
        cases = r.cases()
        rows.append(
            [
                r.name,
                str(cases.cases),
                str(cases.passed),
                str(cases.failed),
                str(cases.errors),
                f"{cases.pass_rate:.1%}",
                f"{_verdict(r)} ({_gate(r)})" if r.gates else _verdict(r),
            ]
        )
    return table(header, rows, right=range(1, 6)).splitlines()


def _baseline_lines(
    suite: SuiteReport, baseline: str, max_drop: float
) -> tuple[list[str], str | None]:
    path = Path(baseline)
    try:
        previous = SuiteReport.from_json(path.read_bytes(), source=str(path))
    except (FileNotFoundError, IsADirectoryError):
        return [], f"evalmark: --evalmark-baseline {baseline}: no such file"
    except ReportFormatError as exc:
        return [], f"evalmark: --evalmark-baseline: {exc}"
    except ValueError as exc:
        return [], f"evalmark: --evalmark-baseline {baseline}: {exc}"
    lines: list[str] = []
    drops: list[str] = []
    regressions: list[str] = []
    before, after = previous.pass_rate, suite.pass_rate
    change = after - before
    lines.append(
        f"baseline {path}: pass rate (cases) {before:.1%} -> {after:.1%} "
        f"({change * 100:+.1f} points; allowed drop {max_drop * 100:.1f} points)"
    )
    if drop_exceeds(before, after, max_drop):
        drops.append(f"the suite pass rate fell from {before:.1%} to {after:.1%}")
    known = {report.name: report for report in previous.reports}
    for report in suite.reports:
        old = known.get(report.name)
        if old is None:
            continue
        comparison = compare(report, old)
        drops += [f"{report.name}: {drop}" for drop in drops_of(comparison, max_drop)]
        regressions += [
            f"{report.name}: {c.sample} [{c.strategy}] went from pass to {c.after}"
            for c in comparison.regressions
        ]
    vanished = sorted(set(known) - {report.name for report in suite.reports})
    if vanished:
        lines.append(f"reports in the baseline but not in this run: {', '.join(vanished)}")
    lines += [f"  drop: {text}" for text in drops]
    lines += [f"  regression: {text}" for text in regressions]
    if not drops:
        return lines, None
    return lines, (
        f"evalmark: the run dropped beyond --evalmark-max-drop={max_drop:g} against {path} "
        f"({plural(len(drops), 'drop')} listed above)"
    )


def finish_session(
    entries: Sequence[RegisteredReport],
    report_dir: str | None,
    baseline: str | None,
    max_drop: float,
    formats: Sequence[str] = DEFAULT_FORMATS,
    stem: str = REPORT_STEM,
) -> SessionOutcome:
    """Write the suite report (when asked) in each of ``formats`` as ``stem`` plus the format's
    extension, and return the summary lines and any failure."""
    if not entries:
        if report_dir is None and baseline is None:
            return SessionOutcome()
        return SessionOutcome(["no evaluation reports were registered in this run"])
    suite = suite_of(entries)
    s, cases = suite.summary, suite.cases()
    lines = [
        f"{plural(len(suite), 'report')}, {plural(cases.cases, 'case')}: {cases.passed} "
        f"passed, {cases.failed} failed, {plural(cases.errors, 'error')}; "
        f"{pass_rate_label(cases.pass_rate)} ({s.passed} of {plural(s.evaluations, 'check')} "
        "passed)",
        *_table(suite),
    ]
    failure = None
    if report_dir is not None:
        try:
            written = [
                write_report(suite, Path(report_dir) / f"{stem}{_extension(fmt)}", format=fmt)
                for fmt in formats
            ]
        except (KeyError, ValueError, TypeError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            return SessionOutcome(lines, f"evalmark: the suite report: {message}")
        lines.append(f"suite report: {', '.join(str(path) for path in written)}")
    if baseline is not None:
        extra, failure = _baseline_lines(suite, baseline, max_drop)
        lines += extra
    lines += _append_history(suite, entries)
    return SessionOutcome(lines, failure)


def _append_history(suite: SuiteReport, entries: Sequence[RegisteredReport]) -> list[str]:
    """Append the session's reports to the run history (``$EVALMARK_HISTORY`` or
    ``.evalmark/history.sqlite`` in the project root), with what answered their samples when
    known; a problem there is a warning line."""
    from evalmark.errors import HistoryError
    from evalmark.history._append import append_run, utc_now
    from evalmark.history._record import AnswerIdentity

    identities = [  # in the suite report's order (suite_of sorts by name)
        {name: AnswerIdentity(*source) for name, source in (entry.sources or {}).items()}
        for entry in sorted(entries, key=lambda entry: entry.name)
    ]

    try:
        run_id = append_run(
            suite=suite.name,
            source="pytest",
            started_at=utc_now(),
            duration_s=0.0,
            reports=list(suite),
            identities=identities,
        )
    except (HistoryError, OSError) as exc:
        return [f"evalmark: warning: history not written: {exc}"]
    return [] if run_id is None else [f"history: run {run_id}"]
