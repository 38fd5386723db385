"""``evalmark tune SUITE``: the two builds of a suite file, replayed without noise, as the truth
that ``evalmark tune`` studies; and ``--from-cassette``: the judge's flip rate measured from a
cassette of repeated verdicts.

This module only runs things and reads files (through the public APIs of ``evalmark.suite`` and
``evalmark.models``) and hands plain rows to ``evalmark.noise.from_suite``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

from evalmark.errors import CliError
from evalmark.noise.from_suite import SuiteBuilds, builds_from_rows, pick_builds

__all__ = [
    "SuiteSource",
    "add_suite_arguments",
    "describe",
    "flip_rates_from_cassette",
    "load_suite_builds",
]


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


@dataclass(frozen=True, slots=True)
class SuiteSource:
    """What ``tune`` needs from a suite file, as plain data."""

    path: Path
    folder: Path
    builds: SuiteBuilds
    judged_names: tuple[str, ...]
    current_repeats: int
    notes: tuple[str, ...] = field(default=())


def load_suite_builds(
    path: Path, healthy: str | None = None, regressed: str | None = None
) -> SuiteSource:
    """Replay the suite's healthy and regressed builds with a noise-free judge."""
    from evalmark.suite import load_suite, run_suite, verdict_rows
    from evalmark.suite.runner import build_judge

    suite = load_suite(path)
    notes = []
    if not suite.judged:
        notes.append(
            "note: the suite has no judged check, so judge noise cannot change its verdicts"
        )
    try:
        healthy_name, regressed_name = pick_builds(suite.build_names, healthy, regressed)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # The truth is what the judge says without noise: a noisy judge is replaced by the judge
    # it wraps.
    judge = None
    if suite.judge.kind == "noisy" and suite.judge.inner is not None:
        judge = build_judge(suite.judge.inner, "replay")
    rows = [
        verdict_rows(run_suite(suite, build=build, mode="replay", judge=judge))
        for build in (healthy_name, regressed_name)
    ]
    builds = builds_from_rows(
        rows[0],
        rows[1],
        healthy_name=healthy_name,
        regressed_name=regressed_name,
        gate=suite.gate.pass_rate,
    )
    judged = [s for e in suite.evaluations for s in e.strategies if s.judged]
    names = tuple(dict.fromkeys(s.label for s in judged))
    repeats = {int(s.options.get("repeats", 1)) for s in judged}
    current = 1
    if len(repeats) == 1:
        current = repeats.pop()
    elif repeats:
        notes.append(
            "note: the judged checks use different repeats "
            f"({', '.join(map(str, sorted(repeats)))}); the tables assume 1 call per check"
        )
    return SuiteSource(
        path=path,
        folder=suite.base,
        builds=builds,
        judged_names=names,
        current_repeats=current,
        notes=tuple(notes),
    )


def describe(source: SuiteSource) -> list[str]:
    """The header lines about the suite and its builds."""
    builds = source.builds
    healthy, regressed = builds.healthy, builds.regressed
    lines = [
        f"suite {source.path}: build {builds.healthy_name!r} as healthy "
        f"({healthy.truly_failing_cases} of {len(healthy)} cases truly failing), "
        f"{builds.regressed_name!r} as regressed ({regressed.truly_failing_cases} truly "
        f"failing); {healthy.judged_checks} judged checks in all"
    ]
    if builds.gate is not None:
        lines.append(
            f"the suite's gate: pass rate >= {builds.gate:g}, i.e. >= "
            f"{builds.gate_min_passing}/{len(healthy)} cases"
        )
    if source.current_repeats > 1:
        lines.append(
            f"the judged checks are decided by the majority of {source.current_repeats} calls"
        )
    return lines + list(source.notes)


def flip_rates_from_cassette(path: Path, grades: int | None) -> tuple[list[float], str]:
    """The flip-rate estimate and the top of its interval, from repeated judge verdicts (the
    entries of one request key are the repeats of one prompt), and a line saying so."""
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
            "with repeats (LLMJudge(repeats=k)) to measure its noise"
        )
    estimate = estimate_flip_rate(rows, grades=grades or (5 if graded else 2))
    line = (
        f"judge flip rate from {path}: {estimate.flip_rate:.3f} (95% interval "
        f"{estimate.low:.3f}-{estimate.high:.3f}, {estimate.prompts} prompts, "
        f"{estimate.pairs} pairs)"
    )
    return [estimate.flip_rate, estimate.high], line
