"""``evalmark report diff A.json B.json``: what changed between two runs;
``evalmark report render A.json --format md``: a JSON report in another format.

Both read a report (``evalmark run``, ``write_report``) or a suite of reports (the pytest
plugin's ``evaluation-suite-report.json``); ``--report NAME`` picks one report of a suite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.errors import CliError

_EPILOG = """\
examples:
  evalmark report diff reports/main/support.json reports/pr/support.json
  evalmark report diff before.json after.json --max-drop 0.05
  evalmark report render reports/pr/support.json --format html -o support.html
  evalmark report render reports/pr/support.json --format html --samples golden/support/samples.yaml
  evalmark report render out/evaluation-suite-report.json --format markdown
  evalmark report render out/evaluation-suite-report.json --report "test_x.py::test_y" --format html
  evalmark report diff base/evaluation-suite-report.json out/evaluation-suite-report.json

exit codes:
  0  compared (or rendered); with --max-drop: no pass rate dropped beyond it
  1  with --max-drop: a pass rate dropped beyond it
  2  usage or input error (a missing or unreadable report)
"""


_REPORT_HELP = "in a suite of reports, use only the report of this name (a pytest test id)"


def register(subparsers: Any) -> None:
    """Add the ``report`` subcommand and its ``diff`` and ``render`` actions."""
    parser = subparsers.add_parser(
        "report",
        help="compare two JSON reports, or render one in another format",
        description="Work with JSON reports written by evalmark run or the pytest plugin.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    diff = actions.add_parser(
        "diff",
        help="what changed from report A (before) to report B (after)",
        description="Per-check and per-tag pass-rate deltas, cases that went from pass to "
        "fail (and back), and cases present in only one of the two runs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    diff.add_argument("before", type=Path, metavar="A.json", help="the earlier report")
    diff.add_argument("after", type=Path, metavar="B.json", help="the later report")
    diff.add_argument(
        "--max-drop",
        type=float,
        metavar="FRACTION",
        help="exit 1 when a pass rate fell by more than this fraction (e.g. 0.05)",
    )
    diff.add_argument(
        "--format", choices=("text", "markdown"), default="text", help="output format (text)"
    )
    diff.add_argument("--report", metavar="NAME", help=_REPORT_HELP)
    diff.set_defaults(handler=run_diff)
    render = actions.add_parser(
        "render",
        help="render a JSON report as Markdown, HTML, JUnit XML or JSON",
        description="Render a JSON report, or a suite of reports such as the pytest plugin's\n"
        "evaluation-suite-report.json, in another format. A suite renders whole as Markdown,\n"
        "JSON, HTML (one page) or a registered format; as JUnit XML, pick one of its reports\n"
        "with --report.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    render.add_argument(
        "report", type=Path, metavar="REPORT.json", help="a JSON report or suite report"
    )
    render.add_argument(
        "--format",
        metavar="FORMAT",
        default="markdown",
        help="output format (markdown): markdown, html, junit, json or a registered format",
    )
    render.add_argument("--report", dest="name", metavar="NAME", help=_REPORT_HELP)
    render.add_argument(
        "--samples",
        action="append",
        metavar="FILE[,FILE]",
        help="with --format html or inspect (which needs them): the run's sample files, so "
        "each case shows its input, expected answer, facts and context (a JSON report does not "
        "carry them); every case of the report must have a sample of its name",
    )
    render.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write to FILE instead of stdout"
    )
    render.set_defaults(handler=run_render)
    parser.set_defaults(handler=_no_action(parser))


def _no_action(parser: argparse.ArgumentParser) -> Any:
    def handler(args: argparse.Namespace) -> int:
        raise CliError("say what to do: evalmark report diff A.json B.json (see --help)")

    return handler


def _load(path: Path) -> Any:
    """The file at ``path`` as a suite of reports (one report is a suite of one)."""
    from evalmark.errors import ReportFormatError
    from evalmark.report import SuiteReport

    try:
        return SuiteReport.read_any(path)
    except FileNotFoundError:
        raise CliError(f"{path}: no such report") from None
    except IsADirectoryError:
        raise CliError(f"{path}: a folder, not a JSON report") from None
    except ReportFormatError as exc:
        problem = exc.problems[0]
        where = f"line {problem.line}: " if problem.line else ""
        where += f"{problem.record}: " if problem.record else ""
        raise CliError(
            f"{path}: not an evalmark JSON report or suite report ({where}{problem.message})"
        ) from None


def _pick(suite: Any, name: str | None, path: Path) -> Any:
    """The one report of ``suite`` to use: ``name``'s, or its only one."""
    from evalmark.report._wording import plural

    if name is not None:
        try:
            return suite[name]
        except KeyError:
            known = ", ".join(r.name for r in suite.reports) or "none"
            raise CliError(f"{path}: no report named {name!r}; it holds: {known}") from None
    if len(suite) != 1:
        raise CliError(
            f"{path} holds {plural(len(suite), 'report')}; pick one with --report NAME "
            f"({', '.join(r.name for r in suite.reports)})"
        )
    return suite.reports[0]


def _pairs(before: Any, after: Any, args: argparse.Namespace) -> list[tuple[Any, Any]]:
    """The (before, after) reports to compare: the named one, the only ones, or every report
    of two suites that both hold it (matched by name)."""
    if args.report is not None or (len(before) == 1 and len(after) == 1):
        return [(_pick(before, args.report, args.before), _pick(after, args.report, args.after))]
    known = {report.name: report for report in before.reports}
    pairs = [(known[r.name], r) for r in after.reports if r.name in known]
    if not pairs:
        raise CliError(
            f"{args.before} and {args.after} share no report name; pick one of each with "
            "--report NAME, or compare suites of the same tests"
        )
    return pairs


def run_diff(args: argparse.Namespace) -> int:
    """Handle ``evalmark report diff``."""
    from evalmark.gates import require_no_drop
    from evalmark.gates._rules import check_fraction
    from evalmark.report import compare, render_comparison
    from evalmark.report._render.terminal import comparison_text

    if args.max_drop is not None:
        check_fraction(args.max_drop, "--max-drop", "0.05 for 5 points")
    before, after = _load(args.before), _load(args.after)
    pairs = _pairs(before, after, args)
    failed = False
    for old, new in pairs:
        comparison = compare(new, old)
        if len(pairs) > 1:
            sys.stdout.write(f"\n== {new.name}\n" if args.format == "text" else "\n")
        if args.format == "markdown":
            sys.stdout.write(render_comparison(comparison))
        else:
            sys.stdout.write(comparison_text(comparison, str(args.before), str(args.after)))
        if args.max_drop is None:
            continue
        try:
            require_no_drop(comparison, max_drop=args.max_drop)
        except AssertionError as exc:
            sys.stdout.write(f"FAILED: {exc}\n")
            failed = True
    if len(pairs) > 1:
        only = sorted({r.name for r in before.reports} ^ {r.name for r in after.reports})
        if only:
            sys.stdout.write(f"\nreports in only one of the two: {', '.join(only)}\n")
    return EXIT_GATE_FAILED if failed else EXIT_OK


def run_render(args: argparse.Namespace) -> int:
    """Handle ``evalmark report render``."""
    from evalmark._files.atomic import write_atomically
    from evalmark.report import render_report

    fmt = _format_named(args.format)
    if args.samples and fmt not in ("html", "inspect"):
        raise CliError(
            f"--samples adds the inputs to the HTML report and the inspect log only; add "
            f"--format html, or leave --samples out for --format {args.format}"
        )
    if fmt == "inspect" and not args.samples:
        raise CliError(
            "--format inspect needs the run's sample files (--samples samples.yaml): an inspect "
            "log holds each case's input and target, which a JSON report does not carry"
        )
    suite = _load(args.report)
    whole = args.name is None and len(suite) > 1 and fmt != "junit"
    if whole and args.samples:
        raise CliError("--samples goes with one report: pick it with --report NAME")
    if whole:
        text = render_report(suite, fmt)
    elif args.samples:
        report = _pick(suite, args.name, args.report)
        samples = _samples_for(report, args.samples, args.report)
        text = render_report(report, fmt, samples=samples)
    else:
        text = render_report(_pick(suite, args.name, args.report), fmt)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(args.output, text.encode("utf-8"))
    return EXIT_OK


def _format_named(name: str) -> str:
    """The report format ``name`` names (a built-in, an alias such as ``md``, or a registered
    one); a CliError listing the known ones otherwise."""
    from evalmark.report._formatters import get_formatter, known_formatters

    try:
        return get_formatter(name).name
    except KeyError:
        known = ", ".join(known_formatters())
        raise CliError(f"--format {name}: no such report format; known formats: {known}") from None


def _samples_for(report: Any, given: list[str], path: Path) -> Any:
    """The samples of ``--samples`` (each value one file or a comma-separated list), checked
    to hold a sample for every case of ``report``."""
    from evalmark.report._wording import plural
    from evalmark.samples._load import load_samples

    files = [part.strip() for value in given for part in value.split(",") if part.strip()]
    if not files:
        raise CliError("--samples needs a file: --samples samples.yaml[,more.yaml]")
    samples = load_samples(*files)
    known = {sample.name for sample in samples}
    missing = [name for name in report.sample_names if name not in known]
    if missing:
        more = len(missing) - 10
        shown = ", ".join(missing[:10]) + (f" and {more} more" if more > 0 else "")
        raise CliError(
            f"--samples {', '.join(files)}: no sample for {plural(len(missing), 'case')} (of "
            f"{len(report.sample_names)}) of report {report.name!r} in {path}: {shown}; pass "
            "the sample files the run read"
        )
    return samples
