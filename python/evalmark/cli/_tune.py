"""``evalmark tune``: how often each gate fails a healthy and a regressed build under judge noise.

The suite is a suite file (``evalmark tune golden/support``: its healthy and regressed builds are
replayed without noise) or given by counts (``--cases 12 --judged-checks 2 --failing 3``). The
judge's noise comes, first found first used, from ``--flip`` (equal rates) or ``--false-pass``
with ``--false-fail`` (rates, or counts such as 3/120), ``--rates FILE``, the suite's rates file
``<suite dir>/.evalmark/judge-rates.json``, ``--from-cassette``, and else evalmark's documented
default noise (:mod:`evalmark.cli._tune_noise`); the output says which was used and where it came
from. Everything goes to standard output (the JSON document holds the same header facts).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK
from evalmark.cli import _tune_suite as tune_suite
from evalmark.cli._tune_noise import Noise, noise_levels, split_values
from evalmark.errors import CliError, OptionalDependencyError
from evalmark.noise import BuildTruth, builds_from_counts, tune
from evalmark.noise._gates import parse_threshold
from evalmark.noise._plot import plot_tuning
from evalmark.noise._render import render_text, report_to_dict

_EPILOG = """\
examples:
  evalmark tune golden/support
  evalmark tune golden/support --flip 0.03,0.08
  evalmark tune golden/support --false-pass 0.1 --false-fail 0.03 --overdispersion 0.2
  evalmark tune golden/support --false-pass 4/40 --false-fail 3/110 --repeats 1,3,5
  evalmark tune golden/support --rates judge-rates.json
  evalmark tune --cases 12 --judged-checks 2 --failing 3 --flip 0.03,0.08 --thresholds every,0.9

where the judge's noise comes from (the first found):
  --flip, or --false-pass with --false-fail     given on the command line
  --rates FILE                                  a rates file (docs/noise.md)
  <suite dir>/.evalmark/judge-rates.json        the suite's rates file
  --from-cassette JUDGE.jsonl                   flip rate measured from repeated verdicts
  evalmark's default noise                      false pass 10/100, false fail 3/100,
                                                overdispersion 0.3 (a cautious guess)

exit codes:
  0  the tables were printed (whether or not a gate meets the limits)
  2  usage or input error
"""


def register(subparsers: Any) -> None:
    """Add the ``tune`` subcommand to the ``evalmark`` parser."""
    parser = subparsers.add_parser(
        "tune",
        help="pick a gate threshold that survives judge noise",
        description=(
            "For each noise level, the exact probability (and simulated counts) that each "
            "pass-rate gate fails a healthy build and a regressed build; with correlated "
            "errors, the same under independent ones; with measured counts, intervals; for "
            "each number of judge calls per check, the best gate and its cost; the "
            "recommendation, and the cases needed to reach the false-alarm and miss targets."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    counts = parser.add_argument_group("suite by counts")
    counts.add_argument("--cases", type=int, metavar="N", help="number of cases in the suite")
    counts.add_argument(
        "--judged-checks", type=int, default=1, metavar="N", help="judged checks per case (1)"
    )
    counts.add_argument(
        "--deterministic-checks",
        type=int,
        default=0,
        metavar="N",
        help="deterministic checks per case (0)",
    )
    counts.add_argument(
        "--failing",
        type=int,
        default=1,
        metavar="N",
        help="cases that truly fail one check in the regressed build (1)",
    )
    noise = parser.add_argument_group("judge noise")
    noise.add_argument(
        "--flip",
        metavar="P[,P...]",
        help="flip rates to study (both errors equally likely), comma separated, e.g. 0.03,0.08",
    )
    noise.add_argument(
        "--false-pass",
        metavar="RATE|E/T",
        help="chance the judge passes a truly failing check: a rate (0.1) or errors/trials (4/40)",
    )
    noise.add_argument(
        "--false-fail",
        metavar="RATE|E/T",
        help="chance the judge fails a truly passing check: a rate (0.03) or errors/trials",
    )
    noise.add_argument(
        "--overdispersion",
        type=float,
        metavar="RHO",
        help="correlation of two calls' errors on the same case, 0 (independent) to 1",
    )
    noise.add_argument(
        "--rates", type=Path, metavar="FILE", help="a judge rates file (see docs/noise.md)"
    )
    parser.add_argument(
        "--repeats",
        default="1,3,5",
        metavar="K[,K...]",
        help="judge calls per judged check to compare, decided by majority (1,3,5)",
    )
    parser.add_argument(
        "--thresholds",
        metavar="T[,T...]",
        help="candidate pass-rate thresholds, e.g. every,0.9,0.85 (default: every distinct gate)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=10_000,
        help="simulated runs per build and noise level (10000; 0 skips)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the simulation (0)"
    )
    parser.add_argument(
        "--max-false-alarm",
        type=float,
        default=0.05,
        metavar="P",
        help="largest acceptable chance of failing the healthy build (0.05)",
    )
    parser.add_argument(
        "--max-miss",
        type=float,
        default=0.05,
        metavar="P",
        help="largest acceptable chance of passing the regressed build (0.05)",
    )
    parser.add_argument(
        "--max-cases",
        type=int,
        default=5_000,
        metavar="N",
        help="largest suite size searched for the cases needed (5000)",
    )
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N", help="simulation threads (all cores)"
    )
    parser.add_argument(
        "--plot", metavar="FILE.png", help="draw false alarm and miss per threshold"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    tune_suite.add_suite_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``evalmark tune`` with a suite given by counts, or by a suite file."""
    if args.suite is not None and args.cases is not None:
        raise CliError("give either a SUITE file or --cases, not both")
    if args.suite is None and args.cases is None:
        raise CliError(
            "give a SUITE file (e.g. evalmark tune golden/support), or the suite size with "
            "--cases N (and --judged-checks, --failing)"
        )
    header: list[str] = []
    source = None
    if args.suite is not None:
        source = tune_suite.load_suite_builds(args.suite, args.healthy, args.regressed)
        healthy, regressed = source.builds.healthy, source.builds.regressed
        header += tune_suite.describe(source)
    else:
        healthy, regressed = builds_from_counts(
            args.cases, args.judged_checks, args.failing, args.deterministic_checks
        )
    noise = noise_levels(args, None if source is None else source.folder)
    header += noise.lines
    return report_for_builds(
        healthy,
        regressed,
        noise,
        args,
        header=header,
        current_gate=None if source is None else source.builds.gate,
        current_repeats=1 if source is None else source.current_repeats,
        judged_names=() if source is None else source.judged_names,
    )


def report_for_builds(
    healthy: BuildTruth,
    regressed: BuildTruth,
    noise: Noise,
    args: argparse.Namespace,
    *,
    header: Sequence[str] = (),
    current_gate: float | None = None,
    current_repeats: int = 1,
    judged_names: Sequence[str] = (),
) -> int:
    """Tune for two builds of one suite and print the report as ``args`` asks; the exit code."""
    thresholds = None
    if args.thresholds:
        thresholds = [parse_threshold(t) for t in split_values(args.thresholds, "--thresholds")]
    repeats = parse_repeats(args.repeats)
    report = tune(
        healthy,
        regressed,
        noise.levels,
        thresholds=thresholds,
        repeats=sorted({*repeats, current_repeats}),
        current_repeats=current_repeats,
        current_gate=current_gate,
        runs=args.runs,
        seed=args.seed,
        max_false_alarm=args.max_false_alarm,
        max_miss=args.max_miss,
        max_cases=args.max_cases,
        workers=args.workers,
    )
    if args.plot:
        try:
            plot_tuning(report, args.plot)
        except OptionalDependencyError as exc:
            raise CliError(f"--plot: {exc}") from None
    if args.format == "json":
        document = {
            "header": list(header),
            "noise_source": noise.source,
            "suite": None if args.suite is None else str(args.suite),
            "judged_checks_named": list(judged_names),
            **report_to_dict(report),
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        text = render_text(report, judged_names=judged_names)
        sys.stdout.write("".join(f"{line}\n" for line in header))
        if header:
            sys.stdout.write("\n")
        sys.stdout.write(text)
        if args.plot:
            sys.stdout.write(f"plot written to {args.plot}\n")
    return EXIT_OK


def parse_repeats(text: str) -> list[int]:
    """Read ``--repeats``: comma-separated whole numbers of judge calls per check."""
    values = []
    for item in split_values(text, "--repeats"):
        if not item.isdigit() or int(item) < 1:
            raise CliError(f"--repeats: {item!r} is not a whole number ≥ 1; give e.g. 1,3,5")
        values.append(int(item))
    return values
