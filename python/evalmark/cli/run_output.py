"""What ``evalmark run`` prints and writes: the per-case table, the averages, the failing cases
with the checks that caught them, the gate, the baseline comparison and the report files."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from evalmark.errors import CliError
from evalmark.suite.runner import SuiteRun

__all__ = [
    "compare_with_baseline",
    "one_line",
    "print_run",
    "report_stem",
    "table",
    "write_reports",
]

_VERDICT = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}
_EXTENSIONS = {"md": ".md", "json": ".json", "html": ".html", "xml": ".xml"}


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """A plain-text table: columns padded to their widest cell, ``right`` columns aligned right."""
    widths = [len(cell) for cell in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.rjust(width) if index in right else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(row) for row in rows)]) + "\n"


def _mark(result: Any) -> str:
    if result.error is not None:
        return "ERROR"
    return f"{'pass' if result.passed else 'FAIL'} {result.score:.2f}"


def _title(run: SuiteRun) -> str:
    suite = run.suite
    cases = run.cases
    checks = sorted({c for report in run.reports for c in report.strategies})
    judge = {"rule": "RuleJudge", "recorded": "recorded judge", "noisy": "noisy judge"}[
        suite.judge.kind
    ]
    parts = [f"suite {suite.name}"]
    if run.build is not None:
        parts.append(f"build {run.build}")
    parts.append(f"{cases} cases")
    parts.append(f"{len(checks)} checks")
    if suite.judged:
        parts.append(f"judge: {judge}")
    return ", ".join(parts)


def print_run(run: SuiteRun, out: TextIO, *, quiet: bool = False) -> None:
    """Print the per-case table, the averages, the failing cases and the gate."""
    out.write(f"evalmark run: {_title(run)}\n")
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        if quiet:
            continue
        if len(run.suite.evaluations) > 1:
            out.write(f"\n== {evaluation.name}\n")
        out.write("\n" + _case_table(report))
        out.write("\n" + _averages(report))
    failing = [(report, row) for report in run.reports for row in report.rows() if not row.passed]
    if failing:
        out.write(f"\nfailing cases ({len(failing)}):\n")
        for _, row in failing:
            out.write(_failure(row))
    out.write("\n" + _gate_lines(run))


def _case_table(report: Any) -> str:
    checks = list(report.strategies)
    rows = []
    for row in report.rows():
        cells = [row.name, *(_mark(row.results[c]) for c in checks)]
        cells += [f"{row.score:.2f}", _VERDICT.get(row.verdict, row.verdict)]
        rows.append(cells)
    right = range(1, len(checks) + 2)
    return table(["case", *checks, "score", "verdict"], rows, right=list(right))


def _averages(report: Any) -> str:
    rows = []
    means = report.metric_means()
    for check, summary in report.by_strategy().items():
        mean = means.get(check)
        rows.append(
            [
                check,
                f"{summary.passed}/{summary.evaluations}",
                f"{summary.score:.1f}%",
                "-" if mean is None else f"{mean:.3f}",
                str(summary.errors),
            ]
        )
    total = report.summary
    rows.append(
        [
            "all checks",
            f"{total.passed}/{total.evaluations}",
            f"{total.score:.1f}%",
            "-" if total.mean is None else f"{total.mean:.3f}",
            str(total.errors),
        ]
    )
    return "averages\n" + table(
        ["check", "passed", "pass rate", "mean score", "errors"], rows, right=[1, 2, 3, 4]
    )


def _failure(row: Any) -> str:
    bad = [name for name, result in row.results.items() if not result.passed]
    good = [name for name, result in row.results.items() if result.passed]
    lines = [f"  {row.name}  ({_VERDICT.get(row.verdict, row.verdict)})"]
    errors = [row.results[name].error for name in bad]
    if bad and all(e is not None and e.kind == "function" for e in errors):
        # The application raised: every check carries the same error; show it once, whole.
        first = errors[0]
        assert first is not None
        lines.append(f"    the application raised {first.type}:")
        lines += [f"      {line}" for line in first.message.splitlines()]
        return "\n".join(lines) + "\n"
    for name in bad:
        result = row.results[name]
        text = result.explanation or (result.error.message if result.error else "failed")
        lines.append(f"    {name}: {one_line(text)}")
    if len(bad) == 1 and good:
        lines.append(f"    caught only by {bad[0]} ({', '.join(good)} passed it)")
    return "\n".join(lines) + "\n"


_VERDICT_LINE = re.compile(r"\s*\bVERDICT:\s*(yes|no)\s*$", re.IGNORECASE)


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, without a judge's trailing verdict line, cut at ``limit``."""
    # A judge's explanation ends with its verdict line, which the table already shows.
    flat = _VERDICT_LINE.sub("", " ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _gate_lines(run: SuiteRun) -> str:
    if not run.gates:
        return "gate: none (the suite sets no gate)\n"
    rows = []
    for gate in run.gates:
        if gate.unit == "count":
            actual = f"{gate.actual:g}"
            required = f"{'<=' if gate.passed else '>'} {gate.required:g}"
        else:
            actual = f"{gate.actual:.1%}"
            required = f"{'>=' if gate.passed else '<'} {gate.required * 100:g}%"
        rows.append(
            [gate.label, actual, required, "passed" if gate.passed else "FAILED", gate.detail]
        )
    verdict = "gate passed" if run.passed else "gate FAILED"
    return table(["gate", "actual", "required", "result", "detail"], rows) + verdict + "\n"


def report_stem(run: SuiteRun, evaluation: str | None = None, build: str | None = None) -> str:
    """The file name (without extension) of a report of this run: the suite, the evaluation
    when the suite has several, and the build when one was replayed."""
    parts = [run.suite.name]
    if evaluation is not None and len(run.suite.evaluations) > 1:
        parts.append(evaluation)
    if build is not None:
        parts.append(build)
    return "-".join(parts)


def _build_of(report: Any) -> str | None:
    build = report.metadata.get("build")
    return build if isinstance(build, str) else None


def write_reports(run: SuiteRun, directory: Path, formats: Sequence[str]) -> list[Path]:
    """Write every evaluation's report in every format, and for a suite of several evaluations
    the suite report (Markdown and JSON formats); returns the paths written."""
    from evalmark.report import SuiteReport

    written = []
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        stem = report_stem(run, evaluation.name, _build_of(report))
        for fmt in formats:
            written.append(report.write(directory / f"{stem}{_EXTENSIONS[fmt]}"))
    if len(run.reports) > 1:
        suite = SuiteReport(run.reports, name=run.suite.name)
        stem = report_stem(run, None, run.build)
        for fmt in formats:
            if fmt in ("md", "json"):
                written.append(suite.write(directory / f"{stem}{_EXTENSIONS[fmt]}"))
    return written


def compare_with_baseline(run: SuiteRun, baseline: Path, max_drop: float, out: TextIO) -> bool:
    """Compare each report with its baseline (a JSON report, or a folder of them named like the
    run's reports); print the differences; False when a pass rate dropped beyond ``max_drop``."""
    ok = True
    for evaluation, report in zip(run.evaluations, run.reports, strict=True):
        path = baseline
        if baseline.is_dir():
            path = baseline / f"{report_stem(run, evaluation.name, _build_of(report))}.json"
        if not path.exists():
            raise CliError(f"--baseline: no such report {path}")
        from evalmark.cli.report import comparison_text

        comparison = report.compare(path)
        out.write(f"\nbaseline {path}:\n")
        out.write(comparison_text(comparison, str(path), "this run"))
        try:
            comparison.require_no_drop(max_drop=max_drop)
        except AssertionError as exc:
            out.write(f"baseline FAILED: {exc}\n")
            ok = False
    return ok
