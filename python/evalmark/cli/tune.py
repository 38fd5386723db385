"""``evalmark tune``: how often each gate fails a healthy and a regressed build under judge noise.

The suite is given by counts (``--cases 12 --judged-checks 2 --failing 3``). Other sources of the
two builds (a suite replayed from recorded builds) and of the noise level (a cassette of repeated
judge verdicts) plug in through ``report_for_builds``: they build the two ``Suite`` values and the
flip rates, then hand over.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from evalmark.cli import EXIT_OK, tune_suite
from evalmark.errors import CliError, PlotUnavailableError
from evalmark.noise import (
    Suite,
    builds_from_counts,
    parse_threshold,
    plot_tuning,
    render_text,
    report_to_dict,
    tune,
)


def register(subparsers: Any) -> None:
    """Add the ``tune`` subcommand to the ``evalmark`` parser."""
    parser = subparsers.add_parser(
        "tune",
        help="pick a gate threshold that survives judge noise",
        description=(
            "For each judge flip rate, the exact probability (and simulated counts) that each "
            "pass-rate gate fails a healthy build and a regressed build, the recommended gate, "
            "and the number of cases needed to reach the false-alarm and miss targets."
        ),
        epilog=(
            "examples: evalmark tune --cases 12 --judged-checks 2 --failing 3 --flip 0.03,0.08 "
            "--thresholds every,0.9,0.85,0.8; evalmark tune golden/support --flip 0.03,0.08"
        ),
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
    parser.add_argument(
        "--flip",
        metavar="P[,P...]",
        help="judge flip rates to study, comma separated, e.g. 0.03,0.08",
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
    flip_rates = parse_flip_rates(args.flip) if args.flip or not args.from_cassette else []
    if args.from_cassette is not None:
        flip_rates += tune_suite.flip_rates_from_cassette(args.from_cassette, args.grades)
    if args.suite is not None:
        if args.cases is not None:
            raise CliError("give either a SUITE file or --cases, not both")
        healthy, regressed = tune_suite.run_for_suite(args, flip_rates)
        return report_for_builds(healthy, regressed, flip_rates, args)
    if args.cases is None:
        raise CliError(
            "give the suite size with --cases N (and --judged-checks, --failing), or a SUITE file"
        )
    healthy, regressed = builds_from_counts(
        args.cases, args.judged_checks, args.failing, args.deterministic_checks
    )
    return report_for_builds(healthy, regressed, flip_rates, args)


def report_for_builds(
    healthy: Suite, regressed: Suite, flip_rates: Sequence[float], args: argparse.Namespace
) -> int:
    """Tune for two builds of one suite and print the report as ``args`` asks; the exit code.

    The seam for other inputs: pass the noise-free truth of a healthy and a regressed build and
    the flip rates (e.g. a measured rate and the top of its interval).
    """
    thresholds = None
    if args.thresholds:
        thresholds = [parse_threshold(t) for t in _split(args.thresholds, "--thresholds")]
    report = tune(
        healthy,
        regressed,
        flip_rates,
        thresholds=thresholds,
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
        except PlotUnavailableError as exc:
            raise CliError(f"--plot: {exc}") from None
    if args.format == "json":
        sys.stdout.write(json.dumps(report_to_dict(report), indent=2) + "\n")
    else:
        sys.stdout.write(render_text(report))
        if args.plot:
            sys.stdout.write(f"plot written to {args.plot}\n")
    return EXIT_OK


def parse_flip_rates(text: str | None) -> list[float]:
    """Read ``--flip``: comma-separated probabilities."""
    if not text:
        raise CliError("give the judge noise levels with --flip, e.g. --flip 0.03,0.08")
    rates = []
    for item in _split(text, "--flip"):
        try:
            rate = float(item)
        except ValueError:
            raise CliError(f"--flip: {item!r} is not a number; give rates like 0.03,0.08") from None
        if not 0.0 <= rate <= 1.0:
            raise CliError(f"--flip: {item} is not a probability between 0 and 1")
        rates.append(rate)
    return rates


def _split(text: str, option: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise CliError(f"{option}: empty item in {text!r}; separate values with single commas")
    return items
