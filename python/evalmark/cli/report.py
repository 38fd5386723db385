"""``evalmark report diff A.json B.json``: what changed between two runs;
``evalmark report render A.json --format md``: a JSON report in another format."""

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

exit codes:
  0  compared (or rendered); with --max-drop: no pass rate dropped beyond it
  1  with --max-drop: a pass rate dropped beyond it
  2  usage or input error (a missing or unreadable report)
"""


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
    diff.set_defaults(handler=run_diff)
    render = actions.add_parser(
        "render",
        help="render a JSON report as Markdown, HTML, JUnit XML or JSON",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    render.add_argument("report", type=Path, metavar="REPORT.json")
    render.add_argument(
        "--format", choices=("markdown", "html", "junit", "json"), default="markdown"
    )
    render.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")
    render.set_defaults(handler=run_render)
    parser.set_defaults(handler=_no_action(parser))


def _no_action(parser: argparse.ArgumentParser) -> Any:
    def handler(args: argparse.Namespace) -> int:
        raise CliError("say what to do: evalmark report diff A.json B.json (see --help)")

    return handler


def _load(path: Path) -> Any:
    from evalmark.report import Report, ReportFormatError

    try:
        return Report.read(path)
    except FileNotFoundError:
        raise CliError(f"{path}: no such report") from None
    except IsADirectoryError:
        raise CliError(f"{path}: a folder, not a JSON report") from None
    except ReportFormatError as exc:
        problem = exc.problems[0]
        where = f"line {problem.line}: " if problem.line else ""
        where += f"{problem.record}: " if problem.record else ""
        raise CliError(f"{path}: not an evalmark JSON report ({where}{problem.message})") from None


def run_diff(args: argparse.Namespace) -> int:
    """Handle ``evalmark report diff``."""
    from evalmark.report.gates import check_fraction
    from evalmark.report.render.terminal import comparison_text

    if args.max_drop is not None:
        check_fraction(args.max_drop, "--max-drop", "0.05 for 5 points")
    before = _load(args.before)
    after = _load(args.after)
    comparison = after.compare(before)
    if args.format == "markdown":
        sys.stdout.write(comparison.to_markdown())
    else:
        sys.stdout.write(comparison_text(comparison, str(args.before), str(args.after)))
    if args.max_drop is None:
        return EXIT_OK
    try:
        comparison.require_no_drop(max_drop=args.max_drop)
    except AssertionError as exc:
        sys.stdout.write(f"FAILED: {exc}\n")
        return EXIT_GATE_FAILED
    return EXIT_OK


def run_render(args: argparse.Namespace) -> int:
    """Handle ``evalmark report render``."""
    report = _load(args.report)
    if args.output is None:
        sys.stdout.write(report.format(args.format))
    else:
        report.write(args.output, format=args.format)
    return EXIT_OK
