"""``evalmark judge bias PAIRS --judge ...``: a pairwise judge's position, length and
self-preference biases, each with Newcombe's paired interval and a verdict against a limit
(:mod:`evalmark.calibration._bias`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.cli._judge_args import add_judge_arguments
from evalmark.errors import CassetteMiss, CliError

__all__ = ["register_bias"]


def register_bias(actions: Any, judge_help: str, build_judge: Callable[[Any], Any]) -> None:
    """Add the ``bias`` action to ``evalmark judge`` (``build_judge`` reads ``--judge``)."""
    parser = actions.add_parser(
        "bias",
        help="position, length and self-preference bias of a pairwise judge",
        description=(
            "Ask the judge the catalog's pairwise prompt for every pair of answers (YAML, JSON "
            "or JSON Lines: id, inputs, answer_a, answer_b; optional reference_outputs, "
            "model_a, model_b and label A, B or tie), as given, swapped and with answer A "
            "padded by a restatement of itself. Report the position bias, the length bias and "
            "(on pairs of the judge's family against another, with a label) the "
            "self-preference, each a paired difference with Newcombe's interval, a verdict "
            "against its limit (pass: the whole interval within it; fail: beyond it) and the "
            "items that flipped. Record once with a live judge and --cassette, then replay "
            "with --judge cassette:PATH. Exit 0, 1 when a figure fails, 2 on a usage or input "
            "error."
        ),
        epilog=(
            "example:\n"
            "  evalmark judge bias golden/judge-bias/pairs.jsonl \\\n"
            "      --judge cassette:golden/judge-bias/judge.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("pairs", type=Path, metavar="PAIRS", help="the pairs of answers")
    add_judge_arguments(parser, judge_help)
    parser.add_argument(
        "--judge-family", help="the judge's model family (default: from its model id)"
    )
    for test, flag in (
        ("position", "--max-position-bias"),
        ("length", "--max-length-bias"),
        ("self-preference", "--max-self-preference"),
    ):
        parser.add_argument(flag, type=float, default=0.1, help=f"the {test} limit (0.1)")
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="confidence of the intervals (0.95)"
    )
    parser.add_argument(
        "--mode", choices=("auto", "native", "prompted"), default="auto", help="(auto)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_bias, build_judge=build_judge)


def _signed(value: float) -> str:
    return f"{100 * value:+.1f}"


def _line(figure: Any) -> list[str]:
    head = f"{figure.test:<16}"
    if figure.difference is None:
        return [f"{head} not measured: {figure.note}"]
    d = figure.difference
    sign = "±" if figure.test == "position" else "+"  # only a preference for long, own counts
    lines = [
        f"{head} {_signed(d.estimate)} points, {100 * d.confidence:g}% Newcombe interval "
        f"{_signed(d.low)} to {_signed(d.high)} (limit {sign}{100 * figure.limit:g}): "
        f"{figure.verdict.upper()}",
        f"{'':<16} {len(figure.flipped)}/{d.n} items flipped"
        + (f": {', '.join(figure.flipped)}" if figure.flipped else ""),
    ]
    if figure.excluded:
        lines.append(f"{'':<16} left out (unreadable reply): {', '.join(figure.excluded)}")
    return lines


_MEANING = {
    "position": "answer A wins shown first − wins shown second",
    "length": "answer A wins padded − wins as written",
    "self-preference": "judge picks its family's answer − the person picks it",
}


def _bias(args: argparse.Namespace) -> int:
    from evalmark.calibration._bias import load_bias_items, run_bias_battery

    if not 0.0 < args.confidence < 1.0:
        raise CliError(f"--confidence must be between 0 and 1, got {args.confidence}")
    limits = {
        "position": args.max_position_bias,
        "length": args.max_length_bias,
        "self-preference": args.max_self_preference,
    }
    for test, limit in limits.items():
        if not 0.0 <= limit <= 1.0:
            raise CliError(f"the {test} limit must be between 0 and 1, got {limit}")
    if not args.pairs.exists():
        raise CliError(f"no such file {args.pairs}")
    items = load_bias_items(args.pairs)
    try:
        report = run_bias_battery(
            items,
            args.build_judge(args),
            limits=limits,
            confidence=args.confidence,
            judge_family=args.judge_family,
            mode=args.mode,
        )
    except CassetteMiss as exc:
        raise CliError(
            f"{exc.path}: a call of the battery (key {exc.key[:12]}…) was never recorded; "
            f"record it once with a live judge: --judge module:factory --cassette {exc.path} "
            "--record-mode record-missing"
        ) from None
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        lines = [
            f"bias battery of judge {report.judge} (family {report.family}), {len(items)} pairs",
            "",
        ]
        for figure in report.figures:
            lines.extend(_line(figure))
            lines.append(f"{'':<16} ({_MEANING[figure.test]})")
        print("\n".join(lines))
    return EXIT_GATE_FAILED if report.failed else EXIT_OK
