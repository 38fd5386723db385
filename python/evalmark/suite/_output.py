"""What a suite run prints and writes: the per-case tables, the averages, the failing cases with
the checks that caught them, the gate, the comparison with a baseline and the report files.

``evalmark run`` is a thin shell over these; the text pieces come from
:mod:`evalmark.report._render.terminal`, the file names from :mod:`evalmark.report._paths`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from evalmark._files.atomic import write_atomically
from evalmark.errors import SuiteError
from evalmark.gates._baseline import no_drop_gate
from evalmark.report import GateResult, SuiteReport, compare
from evalmark.report._formatters import get_formatter
from evalmark.report._output import report_bytes
from evalmark.report._paths import path_inside
from evalmark.report._render.judged import judged_text
from evalmark.report._render.repeats import repeats_text
from evalmark.report._render.terminal import (
    averages,
    case_table,
    comparison_text,
    failing_turns_text,
    failure_text,
    table,
)
from evalmark.report._wording import gate_cells, plural
from evalmark.samples._load import load_samples
from evalmark.suite._runner import SuiteRun

__all__ = [
    "compare_with_baseline",
    "gate_text",
    "print_run",
    "render_reports",
    "report_paths",
    "report_stem",
    "trace_notes",
    "write_reports",
]

_EXTENSIONS = {"md": ".md", "json": ".json", "html": ".html", "xml": ".xml"}
_WITH_SAMPLES = ("html", "inspect")
_ONE_REPORT = ("xml", "inspect")
_JUDGES = {"rule": "RuleJudge", "recorded": "recorded judge", "noisy": "noisy judge"}


def _title(run: SuiteRun) -> str:
    suite = run.suite
    checks = sorted({c for report in run.reports for c in report.strategies})
    parts = [f"suite {suite.name}"]
    if run.build is not None:
        parts.append(f"build {run.build}")
    parts += [plural(run.cases, "case"), plural(len(checks), "check")]
    if suite.judged:
        parts.append(f"judge: {_JUDGES.get(suite.judge.kind, suite.judge.kind)}")
    return ", ".join(parts)


def print_run(run: SuiteRun, out: TextIO, *, quiet: bool = False) -> None:
    """Print the per-case table, the averages (and pass@k / pass^k for a suite with repeats),
    the failing cases, the failing turns of conversation evaluations and the gate."""
    out.write(f"evalmark run: {_title(run)}\n")
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        if quiet:
            continue
        if len(run.suite.evaluations) > 1:
            out.write(f"\n== {evaluation.name}\n")
        out.write("\n" + case_table(report))
        out.write("\n" + averages(report))
        repeats = repeats_text(report)
        if repeats:
            out.write("\n" + repeats)
        judged = judged_text(report)
        if judged:
            out.write("\n" + judged)
    failing = [row for report in run.reports for row in report.rows() if not row.passed]
    if failing:
        out.write(f"\nfailing cases ({len(failing)}):\n")
        for row in failing:
            out.write(failure_text(row))
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        turns = failing_turns_text(report)
        if turns:
            where = f" of {evaluation.name}" if len(run.suite.evaluations) > 1 else ""
            out.write(f"\nfailing conversation turns{where}:\n" + turns)
    for report in run.reports:
        out.write(trace_notes(report))
    out.write("\n" + gate_text(run))


def trace_notes(report: Any) -> str:
    """The traces of a trace evaluation that no sample named: those that could not be
    evaluated (with the reason) and the evaluable ones left unmatched; "" when none."""
    lines = []
    for problem in report.metadata.get("unevaluable-traces", ()):
        trace, name = problem["trace-id"], problem["name"]
        named = f" ({name})" if name != trace else ""
        lines.append(f"  trace {trace}{named}: {problem['reason']}: {problem['message']}\n")
    unmatched = report.metadata.get("unmatched-test-cases", ())
    if unmatched:
        lines.append(f"  named by no sample: {', '.join(unmatched)}\n")
    if not lines:
        return ""
    return f"\ntraces not evaluated in {report.name}:\n" + "".join(lines)


def gate_text(run: SuiteRun) -> str:
    """The gate's conditions as a table, then the verdict."""
    if not run.gates:
        return "gate: none (the suite sets no gate)\n"
    rows = [[gate.label, *gate_cells(gate), gate.detail] for gate in run.gates]
    verdict = "gate passed" if run.passed else "gate FAILED"
    return table(["gate", "actual", "required", "result", "detail"], rows) + verdict + "\n"


def report_stem(run: SuiteRun, evaluation: str | None = None, build: str | None = None) -> str:
    """The name (before sanitising and the extension) of a report of this run: the suite, the
    evaluation when the suite has several, and the build when one was replayed."""
    parts = [run.suite.name]
    if evaluation is not None and len(run.suite.evaluations) > 1:
        parts.append(evaluation)
    if build is not None:
        parts.append(build)
    return "-".join(parts)


def _build_of(report: Any) -> str | None:
    build = report.metadata.get("build")
    return build if isinstance(build, str) else None


def report_paths(run: SuiteRun, directory: Path, formats: Sequence[str]) -> list[Path]:
    """The files :func:`write_reports` writes for ``run``, in the order it writes them."""
    return [path for path, _ in _planned(run, directory, formats)]


def write_reports(run: SuiteRun, directory: Path, formats: Sequence[str]) -> list[Path]:
    """Write every evaluation's report in every format, and for a suite of several evaluations
    the suite report (in each format but JUnit XML); returns the paths written. Every file lies
    directly in ``directory`` whatever the suite, evaluation and build are called."""
    written = []
    for path, data in render_reports(run, directory, formats):
        write_atomically(path, data)
        written.append(path)
    return written


def render_reports(
    run: SuiteRun, directory: Path, formats: Sequence[str]
) -> list[tuple[Path, bytes]]:
    """Every file :func:`write_reports` writes, rendered (nothing written yet): a report that
    cannot be rendered fails here, before any file is touched."""
    return [(path, render(path)) for path, render in _planned(run, directory, formats)]


def _planned(
    run: SuiteRun, directory: Path, formats: Sequence[str]
) -> list[tuple[Path, Callable[[Path], bytes]]]:
    """Each report file of ``run`` with the function rendering it."""
    planned: list[tuple[Path, Callable[[Path], bytes]]] = []
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        stem = report_stem(run, evaluation.name, _build_of(report))
        for fmt in formats:
            # The HTML page and the inspect log show each case's input and expected answer.
            samples = evaluation.samples if fmt in _WITH_SAMPLES else ()
            path = path_inside(directory, stem, _extension(fmt))
            planned.append((path, functools.partial(_render, report, samples, _format(fmt))))
    if len(run.reports) > 1:
        suite = SuiteReport(run.reports, name=run.suite.name)
        stem = report_stem(run, None, run.build)
        for fmt in formats:
            if fmt not in _ONE_REPORT:  # JUnit XML and inspect logs are one report at a time
                path = path_inside(directory, stem, _extension(fmt))
                planned.append((path, functools.partial(_render, suite, (), _format(fmt))))
    return planned


def _format(fmt: str) -> str:
    """The report format a suite file's ``formats`` entry names (``md`` is ``markdown``)."""
    return {"md": "markdown", "xml": "junit"}.get(fmt, fmt)


def _extension(fmt: str) -> str:
    """The file extension of ``fmt``: the built-ins', else the registered format's first."""
    if fmt in _EXTENSIONS:
        return _EXTENSIONS[fmt]
    formatter = get_formatter(fmt)
    return formatter.extensions[0] if formatter.extensions else f".{formatter.name}"


def _render(report: Any, samples: Sequence[Path | str], fmt: str, path: Path) -> bytes:
    options: dict[str, Any] = {"samples": load_samples(*samples)} if samples else {}
    if fmt != "inspect":
        return report_bytes(report, path, format=fmt, **options)
    options["timestamp"] = True  # inspect's viewer lists logs by their creation time
    try:
        return report_bytes(report, path, format=fmt, **options)
    except ValueError as exc:  # a case without its sample: traces, test cases, conversations
        raise SuiteError(
            f"report format inspect: {exc}; an inspect log is written for evaluations of "
            "samples files only: drop inspect from the report formats of this suite"
        ) from None


def compare_with_baseline(run: SuiteRun, baseline: Path, max_drop: float, out: TextIO) -> SuiteRun:
    """Compare each report with its baseline (a JSON report, or a folder of them named like the
    run's reports) and print the differences. Returns the run with one more gate condition per
    report, "no drop beyond ``max_drop``", on the run and on each report, so the gate table,
    the verdict, the exit code and every written report agree. A missing baseline report is a
    :class:`~evalmark.errors.SuiteError`."""
    added: list[GateResult] = []
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        path = baseline
        if baseline.is_dir():
            stem = report_stem(run, evaluation.name, _build_of(report))
            path = path_inside(baseline, stem, ".json")
        if not path.exists():
            raise SuiteError(f"--baseline: no such report {path}")
        comparison = compare(report, path)
        out.write(f"\nbaseline {path}:\n")
        out.write(comparison_text(comparison, str(path), "this run"))
        added.append(no_drop_gate(comparison, max_drop))
    gates = (*run.gates, *added)
    reports = tuple(report.with_gates(gates) for report in run.reports)
    return dataclasses.replace(run, gates=gates, reports=reports)
