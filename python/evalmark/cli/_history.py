"""``evalmark history ls|show|trend|diff|flaky|html``: the local run history.

Every ``evalmark run`` and pytest session with evalmark appends to the history database
(``.evalmark/history.sqlite`` in the project root; ``--history FILE`` or ``EVALMARK_HISTORY``
moves it). These commands read it; none of them writes a run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK
from evalmark.errors import CliError


def register(subparsers: Any) -> None:
    """Add the ``history`` subcommand and its actions."""
    parser = subparsers.add_parser(
        "history",
        help="list, compare and chart past runs; find flaky cases",
        description=(
            "Read the run history that `evalmark run` and pytest sessions append to "
            "(.evalmark/history.sqlite in the project root by default)."
        ),
    )
    parser.add_argument(
        "--history", type=Path, metavar="FILE", help="the history database (default: as above)"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    ls = actions.add_parser("ls", help="list runs, newest first", description="List runs.")
    ls.add_argument("--suite", help="only runs of this suite")
    ls.add_argument("--limit", type=int, default=20, help="at most this many runs (default 20)")
    ls.set_defaults(handler=_ls)

    show = actions.add_parser("show", help="one run and its results", description="Show a run.")
    show.add_argument("run", type=int, help="the run id (see `history ls`)")
    show.set_defaults(handler=_show)

    trend = actions.add_parser(
        "trend",
        help="mean score and pass rate (cases) per run",
        description=(
            "Mean score and pass rate of every run, oldest first. The pass rate counts cases: "
            "a case passes when every selected check passed (--metric, --tag select)."
        ),
    )
    trend.add_argument("--metric", help="one check (strategy) only")
    trend.add_argument("--tag", help="only cases with this tag")
    trend.add_argument("--suite", help="only runs of this suite")
    trend.add_argument("--build", help="only results answered by this build")
    trend.set_defaults(handler=_trend)

    diff = actions.add_parser(
        "diff",
        help="regressions and fixes between two runs",
        description="Every case and check whose verdict differs between run A and run B.",
    )
    diff.add_argument("run_a", type=int, metavar="RUN_A")
    diff.add_argument("run_b", type=int, metavar="RUN_B")
    diff.set_defaults(handler=_diff)

    flaky = actions.add_parser(
        "flaky",
        help="cases whose verdict changes while their inputs and answers do not",
        description=(
            "Cases whose verdict changed across runs of one suite that read the same sample "
            "and cassette files and got their answer from the same model, recordings and "
            "build: flake rate with a 95% Wilson interval. Verdicts that changed with the "
            "model, recordings or build are listed apart, as changed answers."
        ),
    )
    flaky.add_argument("--suite", help="only this suite")
    flaky.add_argument("--min-runs", type=int, default=2, help="runs needed (default 2)")
    flaky.add_argument(
        "--rates",
        type=Path,
        metavar="FILE",
        help="also write the verdict changes as judge error rates to FILE, for `evalmark tune`",
    )
    flaky.set_defaults(handler=_flaky)

    html = actions.add_parser(
        "html",
        help="write a static dashboard",
        description="Write a self-contained dashboard page (no network) into a folder.",
    )
    html.add_argument("-o", "--output", type=Path, required=True, metavar="DIR")
    html.add_argument("--suite", help="only this suite")
    html.set_defaults(handler=_html)


def _store(args: argparse.Namespace) -> Any:
    from evalmark.history import default_history_path, open_history

    path = args.history or default_history_path()
    if path is None:
        raise CliError("history is turned off (EVALMARK_HISTORY=off); pass --history FILE")
    if not Path(path).exists():
        raise CliError(
            f"no history at {path}: run `evalmark run SUITE` first, or pass --history FILE"
        )
    return open_history(path, read_only=True)


# The pass rate counts cases, as everywhere else (evalmark.report._cases).
_PASS_RATE = "pass rate (cases)"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _verdict(value: bool | None) -> str:
    return {None: "-", True: "passed", False: "FAILED"}[value]


def _ls(args: argparse.Namespace) -> int:
    from evalmark.history._queries import list_runs
    from evalmark.report._render.terminal import table

    with _store(args) as store:
        runs = list_runs(store, suite=args.suite, limit=args.limit)
    if not runs:
        print("no runs recorded")
        return EXIT_OK
    rows = [
        [
            str(r.id),
            r.started_at,
            r.suite,
            r.build or "-",
            f"{r.cases_passed}/{r.cases}",
            _percent(r.pass_rate),
            _score(r.mean_score),
            _verdict(r.gate_passed),
            (r.git_commit or "-")[:10] + ("+" if r.git_dirty else ""),
        ]
        for r in runs
    ]
    header = [
        "run",
        "started",
        "suite",
        "build",
        "cases",
        _PASS_RATE,
        "mean",
        "gate",
        "commit",
    ]
    print(table(header, rows, right=(0, 4, 5, 6)), end="")
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    from evalmark.history._queries import run_summary
    from evalmark.report._render.terminal import table

    with _store(args) as store:
        run = run_summary(store, args.run)
        results = store.results_of(args.run)
    print(f"run {run.id}: suite {run.suite}, build {run.build or '-'}, {run.source}")
    print(f"started {run.started_at}, {run.duration_s:.1f} s, commit {run.git_commit or '-'}")
    gate = _verdict(run.gate_passed)
    print(
        f"{_PASS_RATE}: {_percent(run.pass_rate)} ({run.cases_passed} of {run.cases} cases "
        f"pass every check); gate {gate}"
    )
    answered = sorted({_answered_by(r.identity) for r in results})
    print(f"answered by: {'; '.join(answered) or '-'}")
    rows = [
        [
            r.case,
            r.strategy,
            "ERROR" if r.error else ("pass" if r.passed else "FAIL"),
            f"{r.score:.3f}",
            (r.error or r.explanation)[:80],
        ]
        for r in results
    ]
    print(table(["case", "check", "verdict", "score", "explanation"], rows, right=(3,)), end="")
    return EXIT_OK


def _answered_by(identity: Any) -> str:
    if not identity.known:
        return "not recorded"
    source = "recordings" if identity.recordings else "live"
    return f"model {identity.model_id or '-'}, build {identity.build or '-'} ({source})"


def _trend(args: argparse.Namespace) -> int:
    from evalmark.history._queries import trend
    from evalmark.report._render.terminal import table

    with _store(args) as store:
        points = trend(store, suite=args.suite, metric=args.metric, tag=args.tag, build=args.build)
    if not points:
        print("no results match")
        return EXIT_OK
    what = [f"check {args.metric}" if args.metric else "every check"]
    if args.tag:
        what.append(f"cases tagged {args.tag}")
    if args.build:
        what.append(f"build {args.build}")
    print(f"trend of {', '.join(what)}:")
    rows = [
        [
            str(p.run_id),
            p.started_at,
            p.suite,
            str(p.evaluations),
            f"{p.cases_passed}/{p.cases}",
            _percent(p.pass_rate),
            _score(p.mean_score),
        ]
        for p in points
    ]
    header = ["run", "started", "suite", "results", "cases", _PASS_RATE, "mean"]
    print(table(header, rows, right=(0, 3, 4, 5, 6)), end="")
    first, last = points[0].mean_score, points[-1].mean_score
    if len(points) > 1 and first is not None and last is not None:
        print(f"mean score {first:.3f} -> {last:.3f} over {len(points)} runs ({last - first:+.3f})")
    return EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    from evalmark.history._queries import case_verdicts, diff_runs, run_summary
    from evalmark.report._render.terminal import table

    with _store(args) as store:
        changes = diff_runs(store, args.run_a, args.run_b)
        runs = run_summary(store, args.run_a), run_summary(store, args.run_b)
        verdicts = case_verdicts(store, args.run_a), case_verdicts(store, args.run_b)
    rates = [f"run {r.id} {_percent(r.pass_rate)} ({r.cases_passed}/{r.cases})" for r in runs]
    print(f"{_PASS_RATE}: {' -> '.join(rates)}")
    regressed = [c for c, ok in verdicts[1].items() if not ok and verdicts[0].get(c)]
    fixed = [c for c, ok in verdicts[1].items() if ok and verdicts[0].get(c) is False]
    if regressed or fixed:
        print(f"cases: {len(regressed)} regressed, {len(fixed)} fixed")
        for label, names in (("regressed", regressed), ("fixed", fixed)):
            if names:
                print(f"  {label}: {', '.join(names)}")
    if not changes:
        print(f"no check verdict changed between run {args.run_a} and run {args.run_b}")
        return EXIT_OK
    plural = {"regression": "regressions", "fix": "fixes", "new": "new", "removed": "removed"}
    counts = {kind: sum(c.kind == kind for c in changes) for kind in plural}
    summary = ", ".join(
        f"{n} {kind if n == 1 else plural[kind]}" for kind, n in counts.items() if n
    )
    print(f"checks: {summary}")
    rows = [
        [c.kind, c.case, c.strategy, _mark(c.before, c.score_before), _mark(c.after, c.score_after)]
        for c in changes
    ]
    print(
        table(["change", "case", "check", f"run {args.run_a}", f"run {args.run_b}"], rows), end=""
    )
    return EXIT_OK


def _mark(passed: bool | None, score: float | None) -> str:
    if passed is None:
        return "-"
    return f"{'pass' if passed else 'FAIL'} {score:.2f}"


def _flaky(args: argparse.Namespace) -> int:
    from evalmark.history._queries import (
        flake_counts,
        flaky_cases,
        identity_changes,
        unattributed_changes,
    )

    with _store(args) as store:
        found = flaky_cases(store, suite=args.suite, min_runs=args.min_runs)
        shifted = identity_changes(store, suite=args.suite)
        unknown = unattributed_changes(store, suite=args.suite, min_runs=args.min_runs)
        counts = flake_counts(store, suite=args.suite)
    if not found:
        print(
            "no flaky cases: every case kept its verdict across runs with the same inputs "
            "and the same model, recordings and build"
        )
    else:
        print("flaky: the verdict changed while the inputs and what answered did not")
        print(_flake_table(found), end="")
    if shifted:
        print(
            "verdict changed with what answered, not flaky (another model, other recordings "
            "or another build answered):"
        )
        for change in shifted:
            print(f"  {change.case} [{change.strategy}] ({change.suite})")
            for identity, runs, passes in change.verdicts:
                print(f"    passed {passes}/{runs} with {identity.describe()}")
    if unknown:
        print(
            "verdict changed in runs that did not record what answered (flaky, or a changed "
            "answer: the history cannot tell):"
        )
        print(_flake_table(unknown, "disagreeing"), end="")
    if args.rates is not None:
        from evalmark.noise._rates import JudgeRates, RateCounts, write_rates

        rates = JudgeRates(
            false_pass=RateCounts(counts["false_pass"], counts["false_pass_trials"]),
            false_fail=RateCounts(counts["false_fail"], counts["false_fail_trials"]),
            source=(
                "evalmark history flaky: verdict changes between runs with the same inputs "
                "and the same identity"
            ),
        )
        write_rates(args.rates, rates)
        print(f"rates for evalmark tune --rates: {args.rates}")
    return EXIT_OK


def _flake_table(found: Any, rate: str = "flake rate") -> str:
    from evalmark.report._render.terminal import table

    rows = []
    for f in found:
        low, high = f.interval
        rows.append(
            [
                f.suite,
                f.case,
                f.strategy,
                f"{f.passes}/{f.runs}",
                _percent(f.flake_rate),
                f"{_percent(low)}-{_percent(high)}",
            ]
        )
    header = ["suite", "case", "check", "passed", rate, "95% interval"]
    return table(header, rows, right=(3, 4))


def _html(args: argparse.Namespace) -> int:
    from evalmark.history._dashboard import write_dashboard

    with _store(args) as store:
        page = write_dashboard(store, args.output, suite=args.suite)
    print(f"dashboard: {page}")
    return EXIT_OK
