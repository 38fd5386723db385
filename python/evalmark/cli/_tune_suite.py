"""``evalmark tune SUITE``: the two builds of a suite file, replayed without noise, as the truth
that ``evalmark tune`` studies; and the suite options of ``tune``, with ``--from-cassette``
(read by :mod:`evalmark.cli._tune_cassette`).

This module only runs things and reads files (through the public APIs of ``evalmark.suite`` and
``evalmark.models``) and hands plain rows to ``evalmark.noise._from_suite``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from evalmark.errors import CliError
from evalmark.noise._from_suite import SuiteBuilds, builds_from_rows, pick_builds

__all__ = [
    "SuiteSource",
    "add_suite_arguments",
    "describe",
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
    from evalmark.suite._loader import load_suite
    from evalmark.suite._runner import build_judge, run_suite, verdict_rows

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
