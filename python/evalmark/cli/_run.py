"""``evalmark run SUITE``: run a suite file, print a per-case table and the averages, write the
reports, and exit non-zero when the gate fails."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_INTERRUPTED, EXIT_OK
from evalmark.errors import CliError, HistoryError
from evalmark.models._modes import MODE_ENV
from evalmark.offline._cli import add_flag, run_guard

_EPILOG = """\
examples:
  evalmark run golden/support --build healthy
  evalmark run golden/support --build regressed --report-dir out/
  evalmark run golden/support --tags smoke --concurrency 8
  evalmark run my-suite.yaml --baseline reports/main/support.json --max-drop 0.05
  evalmark run my-suite.yaml --test-cases logged/cases.jsonl
  evalmark run golden/support --dry-run --price-input 3 --price-output 15

A suite is a YAML file, or a folder holding suite.yaml: its samples, the application under
test (recorded builds replayed from cassettes, or a live package.module:function), the
checks, the judge, the gate and where the reports go. See golden/support/suite.yaml.

The gate's pass rate counts cases: a case passes when every one of its checks passes. A case
that ended in an error (the application or the judge raised) fails the gate whatever the rate.

exit codes:
  0  the gate passed
  1  the gate failed: a pass rate below its threshold, a case that errored, or a pass rate
     that dropped more than --max-drop below --baseline
  2  usage or input error (a bad suite file, a missing samples or cassette file, ...)
  130  interrupted (Ctrl-C)
"""

_PROGRESS_DELAY = 0.5  # seconds before a progress bar appears


def register(subparsers: Any) -> None:
    """Add the ``run`` subcommand."""
    parser = subparsers.add_parser(
        "run",
        help="run an evaluation suite and apply its gate",
        description="Run an evaluation suite: ask the application (or replay a recorded "
        "build), apply every check, print a per-case table and the averages, write the "
        "reports and apply the gate.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("suite", type=Path, metavar="SUITE", help="suite.yaml, or its folder")
    parser.add_argument(
        "--build", metavar="NAME", help="the recorded build to replay (default: the first)"
    )
    parser.add_argument(
        "--test-cases",
        type=Path,
        metavar="FILE",
        help="score the recorded test cases of FILE (JSON, JSONL or YAML, outputs included) "
        "with the suite's checks and gate, paired with its samples by name; no application "
        "is called",
    )
    parser.add_argument(
        "--tags",
        metavar="TAG[,TAG...]",
        help="only the cases carrying any of these tags",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="calls in flight at a time (default: the suite's, else 4)",
    )
    parser.add_argument(
        "--record-mode",
        choices=("replay", "record-missing", "rewrite", "off"),
        help="cassette mode for the application and judge (default: replay)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE.json",
        help="a previous JSON report of this suite: fail on a drop beyond --max-drop",
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        metavar="FRACTION",
        help="largest allowed drop of a pass rate against the baseline (suite's, else 0.05)",
    )
    parser.add_argument(
        "--report-dir",
        type=Path,
        metavar="DIR",
        help="write the reports here (default: the suite's report dir)",
    )
    parser.add_argument(
        "--report-format",
        action="append",
        metavar="FORMAT",
        help="write the reports in this format instead of the suite's (repeatable): md, json, "
        "html, xml, inspect (an inspect_ai log) or a registered format",
    )
    parser.add_argument(
        "--no-report", action="store_true", help="write no report files, print only"
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="print only the failing cases and the gate"
    )
    parser.add_argument(
        "--history",
        type=Path,
        metavar="FILE",
        help="append the run to this history database (default: .evalmark/history.sqlite in "
        "the project root, or $EVALMARK_HISTORY)",
    )
    parser.add_argument(
        "--no-history", action="store_true", help="do not append the run to the history"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="estimate the application and judge calls, tokens and cost; call no model",
    )
    for side in ("input", "output"):
        parser.add_argument(
            f"--price-{side}",
            type=Decimal,
            metavar="PRICE",
            help=f"with --dry-run: the price of a million {side} tokens",
        )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress on stderr (default: when stderr is a terminal)",
    )
    parser.add_argument(
        "--judge-rates",
        type=Path,
        metavar="FILE",
        help="a rates file of evalmark judge calibrate: show each judged check's pass rate "
        "corrected for the judge, with its interval (default: the suite's judge-rates)",
    )
    add_flag(parser)
    parser.add_argument(
        "--github",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write a GitHub Actions step summary ($GITHUB_STEP_SUMMARY), an error "
        "annotation per failing case and an inspect log beside the reports (default: on when "
        "GITHUB_ACTIONS=true)",
    )
    parser.add_argument(
        "--isolate-network",
        action="store_true",
        help="run in a network namespace with no interfaces (bubblewrap or unshare): nothing, "
        "not even a subprocess or a C extension, reaches the network or this host's loopback",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``evalmark run``."""
    from evalmark._progress import make_progress
    from evalmark.gates._rules import check_fraction
    from evalmark.history._append import utc_now
    from evalmark.suite._loader import load_suite
    from evalmark.suite._output import compare_with_baseline, print_run
    from evalmark.suite._runner import run_suite
    from evalmark.suite._test_case_run import run_suite_on_test_cases

    if getattr(args, "isolate_network", False):
        from evalmark.offline._isolate import isolate_network

        # Re-executes the command in a network namespace, unless it already runs in one.
        isolate_network(getattr(args, "command_words", sys.argv[1:]))
    if args.concurrency is not None and args.concurrency < 1:
        raise CliError(f"--concurrency must be at least 1, got {args.concurrency}")
    if args.max_drop is not None:
        check_fraction(args.max_drop, "--max-drop", "0.05 for 5 points")
    _report_formats(args.report_format)  # an unknown format stops the run before it starts
    suite = load_suite(args.suite)
    tags = _split_tags(args.tags)
    if args.dry_run:
        if args.test_cases is not None:
            raise CliError("--dry-run estimates application calls; --test-cases makes none")
        return dry_run(args, suite, tags)
    if suite.judge_certificate is not None:
        from evalmark.cli._run_certificate import require_certificate

        require_certificate(suite, suite.judge_certificate, args.record_mode)
    started_at, started = utc_now(), time.perf_counter()
    bar = make_progress(
        args.progress,
        "evaluating",
        None,
        "samples",
        noun="samples",
        delay=_PROGRESS_DELAY,
        transient=True,
    )
    try:
        with _record_mode_env(args.record_mode), run_guard(args) as guard:
            outcome = (
                run_suite(
                    suite,
                    build=args.build,
                    mode=args.record_mode,
                    tags=tags,
                    concurrency=args.concurrency,
                    progress=bar.advance,
                )
                if args.test_cases is None
                else run_suite_on_test_cases(
                    suite,
                    args.test_cases,
                    mode=args.record_mode,
                    tags=tags,
                    concurrency=args.concurrency,
                )
            )
    except KeyboardInterrupt:
        print("evalmark run: interrupted; no report written", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        bar.close()
    rates_file = args.judge_rates or suite.judge_rates
    if rates_file is not None:
        from evalmark.suite._judged import correct_for_judge

        outcome = correct_for_judge(outcome, rates_file)
    out = sys.stdout
    baseline = args.baseline or suite.gate.baseline
    comparisons = io.StringIO()
    if baseline is not None:  # the drop is a gate condition, shown and written like the others
        max_drop = args.max_drop if args.max_drop is not None else suite.gate.max_drop
        outcome = compare_with_baseline(
            outcome, baseline, 0.05 if max_drop is None else max_drop, comparisons
        )
    print_run(outcome, out, quiet=args.quiet)
    out.write(comparisons.getvalue())
    out.write(guard.note(outcome.reports))
    code = EXIT_OK if outcome.passed else EXIT_GATE_FAILED
    directory = None if args.no_report else args.report_dir or suite.report.dir
    duration_s = time.perf_counter() - started
    github = _github_enabled(args)
    written = _write_outputs(
        args,
        outcome,
        directory,
        passed=code == EXIT_OK,
        started_at=started_at,
        duration_s=duration_s,
        extra_formats=("inspect",) if github else (),
    )
    if github:
        _github(outcome, written)
    return code


def _github_enabled(args: argparse.Namespace) -> bool:
    from evalmark.cli._run_github import github_enabled

    return github_enabled(getattr(args, "github", None))


def _github(outcome: Any, written: list[Path]) -> None:
    """The annotations and the step summary, naming the inspect logs written."""
    from evalmark.cli._run_github import write_github
    from evalmark.report._render.inspect_log import EXTENSION

    logs = [p for p in written if p.name.endswith(EXTENSION)]
    write_github(outcome, sys.stdout, os.environ.get("GITHUB_STEP_SUMMARY"), logs=logs)


def _write_outputs(
    args: argparse.Namespace,
    outcome: Any,
    directory: Path | None,
    *,
    passed: bool,
    started_at: str,
    duration_s: float,
    extra_formats: tuple[str, ...] = (),
) -> list[Path]:
    """Write every report and the history row together: every report is rendered before any
    file is touched, the history row is appended while the reports wait in temporary files,
    and only then are they renamed into place. A report that cannot be rendered writes
    nothing at all; a history database that cannot be written is a warning (it never changes
    a run's verdict) and the reports are still written. ``extra_formats`` are written besides
    the run's formats (``--github`` adds the inspect log); the report files written are
    returned."""
    from evalmark._files.atomic import write_together
    from evalmark.suite._keep import preserve_last_pass
    from evalmark.suite._output import render_reports

    out = sys.stdout
    formats = _report_formats(args.report_format) or tuple(outcome.suite.report.formats)
    formats = tuple(dict.fromkeys((*formats, *extra_formats)))
    files = [] if directory is None else render_reports(outcome, directory, formats)
    note = None if directory is None else preserve_last_pass([p for p, _ in files], passed)

    def history() -> None:
        if not args.no_history:
            _append_history(outcome, started_at, duration_s, args.history)

    written = write_together(files, before_commit=history)
    if directory is not None:
        out.write("reports: " + ", ".join(str(p) for p in written) + "\n")
        if note:
            out.write(note + "\n")
    return list(written)


def _report_formats(given: list[str] | None) -> tuple[str, ...]:
    """The formats of ``--report-format`` as a suite file names them (``markdown`` is ``md``);
    a CliError naming the known ones for an unknown format."""
    from evalmark.report._formatters import get_formatter, known_formatters

    names = {"markdown": "md", "junit": "xml"}
    formats = []
    for fmt in given or ():
        try:
            name = get_formatter(fmt).name
        except KeyError:
            known = ", ".join(known_formatters())
            raise CliError(
                f"--report-format {fmt}: no such report format; known: {known}"
            ) from None
        formats.append(names.get(name, name))
    return tuple(dict.fromkeys(formats))


def dry_run(args: argparse.Namespace, suite: Any, tags: list[str]) -> int:
    """Print what the run would ask of models (calls, tokens, cost) and exit 0."""
    from evalmark.suite._estimate import estimate_run, estimate_text
    from evalmark.suite._preflight import check_runnable

    for side in ("input", "output"):
        price = getattr(args, f"price_{side}")
        if price is not None and (not price.is_finite() or price < 0):
            raise CliError(f"--price-{side} must be a price >= 0, got {price}")
    # A dry run often prices a recording still to make: a cassette that a function or model
    # could record is no error here, unless the replay mode is asked for.
    check_runnable(suite, args.build, args.record_mode or "record-missing")
    estimate = estimate_run(suite, build=args.build, tags=tags)
    sys.stdout.write(f"evalmark run --dry-run: {suite.name}\n\n")
    sys.stdout.write(
        estimate_text(estimate, price_input=args.price_input, price_output=args.price_output)
    )
    return EXIT_OK


def _append_history(outcome: Any, started_at: str, duration_s: float, path: Path | None) -> None:
    """Append the run to the history; a problem there is a warning, never a changed verdict."""
    from evalmark.history._append import append_suite_run

    try:
        append_suite_run(outcome, started_at=started_at, duration_s=duration_s, path=path)
    except (HistoryError, OSError) as exc:
        print(f"evalmark run: warning: history not written: {exc}", file=sys.stderr)


@contextlib.contextmanager
def _record_mode_env(mode: str | None) -> Iterator[None]:
    """Cassettes inside a live application that choose their own mode follow --record-mode."""
    if mode is None:
        yield
        return
    previous = os.environ.get(MODE_ENV)
    os.environ[MODE_ENV] = mode
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(MODE_ENV, None)
        else:
            os.environ[MODE_ENV] = previous


def _split_tags(text: str | None) -> list[str]:
    if not text:
        return []
    tags = [tag.strip() for tag in text.split(",")]
    if not all(tags):
        raise CliError(f"--tags: empty tag in {text!r}; separate tags with single commas")
    return tags
