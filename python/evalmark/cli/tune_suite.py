"""``evalmark tune SUITE``: the two builds of a suite file, replayed without noise, as the truth
that ``evalmark tune`` studies; and ``--from-cassette``: the judge's flip rate measured from a
cassette of repeated verdicts."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from evalmark.errors import CliError

__all__ = ["add_suite_arguments", "flip_rates_from_cassette", "run_for_suite", "suite_builds"]


def add_suite_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``tune`` arguments for a suite file and a judge cassette."""
    parser.add_argument(
        "suite",
        nargs="?",
        type=Path,
        metavar="SUITE",
        help="a suite file (or folder) with a healthy and a regressed recorded build; "
        "replaces the counts",
    )
    group = parser.add_argument_group("suite file")
    group.add_argument(
        "--healthy", metavar="BUILD", help="the healthy build (default: 'healthy', else the first)"
    )
    group.add_argument(
        "--regressed",
        metavar="BUILD",
        help="the regressed build (default: 'regressed', else the second)",
    )
    group.add_argument(
        "--from-cassette",
        type=Path,
        metavar="JUDGE.jsonl",
        help="measure the judge's flip rate from a cassette of repeated verdicts "
        "(adds the estimate and the top of its 95%% interval to --flip)",
    )
    group.add_argument(
        "--grades",
        type=int,
        metavar="G",
        help="possible grades of a graded judge in --from-cassette (default: 2 for yes/no, "
        "5 for grades)",
    )


def _pick(names: tuple[str, ...], wanted: str | None, usual: str, position: int) -> str:
    if wanted is not None:
        if wanted not in names:
            raise CliError(f"no build named {wanted!r}; the suite records: {', '.join(names)}")
        return wanted
    if usual in names:
        return usual
    if len(names) <= position:
        raise CliError(
            f"the suite needs two recorded builds (a healthy and a regressed one) to tune; it "
            f"records {', '.join(names) or 'none'}"
        )
    return names[position]


def suite_builds(args: argparse.Namespace) -> tuple[Any, Any, str, str, float | None]:
    """The noise-free truth of the healthy and the regressed build: two ``noise.Suite``."""
    from evalmark.noise import Suite
    from evalmark.suite.loader import load_suite
    from evalmark.suite.runner import build_judge, run_suite, verdict_rows

    suite = load_suite(args.suite)
    if not suite.judged:
        print(
            "evalmark tune: note: the suite has no judged check, so judge noise cannot "
            "change its verdicts",
            file=sys.stderr,
        )
    healthy = _pick(suite.build_names, args.healthy, "healthy", 0)
    regressed = _pick(suite.build_names, args.regressed, "regressed", 1)
    # The truth is what the judge says without noise: a noisy judge is replaced by the judge
    # it wraps.
    judge = None
    if suite.judge.kind == "noisy" and suite.judge.inner is not None:
        judge = build_judge(suite.judge.inner, "replay")
    truths = []
    for build in (healthy, regressed):
        run = run_suite(suite, build=build, mode="replay", judge=judge)
        truths.append(Suite.from_verdicts(verdict_rows(run)))
    return truths[0], truths[1], healthy, regressed, suite.gate.pass_rate


def flip_rates_from_cassette(path: Path, grades: int | None) -> list[float]:
    """The flip-rate estimate and the top of its interval, from repeated judge verdicts: the
    entries of one request key are the repeats of one prompt."""
    from evalmark.models import read_cassette
    from evalmark.models.prompts import parse_verdict
    from evalmark.noise import estimate_flip_rate

    if not path.exists():
        raise CliError(f"--from-cassette: no such file {path}")
    grouped: dict[str, list[Hashable]] = defaultdict(list)
    graded = False
    for entry in sorted(read_cassette(path).entries, key=lambda e: (e.key, e.index)):
        if entry.kind != "chat":
            continue
        verdict = parse_verdict(str(entry.response.get("text", "")))
        if verdict is None:
            continue
        graded = graded or verdict.kind == "graded"
        grouped[entry.key].append(verdict.passed if verdict.kind == "binary" else verdict.grade)
    rows = [verdicts for verdicts in grouped.values() if len(verdicts) >= 2]
    if not rows:
        raise CliError(
            f"--from-cassette: {path} holds no prompt judged twice or more; record the judge "
            "with repeats (JudgeStrategy(repeats=k)) to measure its noise"
        )
    estimate = estimate_flip_rate(rows, grades=grades or (5 if graded else 2))
    print(
        f"judge flip rate from {path}: {estimate.flip_rate:.3f} (95% interval "
        f"{estimate.low:.3f}-{estimate.high:.3f}, {estimate.prompts} prompts, "
        f"{estimate.pairs} pairs)",
        file=sys.stderr,
    )
    return [estimate.flip_rate, estimate.high]


def run_for_suite(args: argparse.Namespace, flip_rates: list[float]) -> tuple[Any, Any]:
    """The healthy and regressed truths of ``args.suite``, announced on stderr."""
    healthy, regressed, healthy_name, regressed_name, gate = suite_builds(args)
    print(
        f"suite {args.suite}: build {healthy_name!r} as healthy ({healthy.truly_failing_cases} "
        f"of {len(healthy)} cases truly failing), {regressed_name!r} as regressed "
        f"({regressed.truly_failing_cases} truly failing); {healthy.judged_checks} judged "
        "checks in all",
        file=sys.stderr,
    )
    if gate is not None:
        from evalmark.noise.gates import min_passing

        needed = min_passing(gate, len(healthy))
        print(
            f"the suite's gate: pass rate >= {gate:g}, i.e. >= {needed}/{len(healthy)} cases",
            file=sys.stderr,
        )
    return healthy, regressed
