"""``evalmark judge estimate REPORT --check NAME --labels FILE``: a judged check's true pass
rate from the judge's verdicts on every case and people's labels on some, by prediction-powered
inference (PPI and PPI++, :mod:`evalmark.noise._ppi`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_OK
from evalmark.errors import CliError

__all__ = ["register_estimate"]

_METHODS = ("ppi", "ppi++")


def register_estimate(actions: Any) -> None:
    """Add the ``estimate`` action to ``evalmark judge``."""
    parser = actions.add_parser(
        "estimate",
        help="a check's true pass rate from judge verdicts and some human labels (PPI)",
        description=(
            "Combine the judge's verdicts on every case of a JSON report with people's labels "
            "on some of them (a file of id and label: pass or fail; the id is the case's name) "
            "into an estimate of the check's true pass rate with a confidence interval: PPI "
            "(the judge's rate less its bias measured on the labelled cases) and PPI++ (the "
            "same with the power-tuning parameter lambda chosen from the data). A verdict "
            "that ended in an error counts as a fail. Exit 0, 2 on a usage or input error."
        ),
        epilog=(
            "example:\n"
            "  evalmark judge estimate out/support-healthy.json --check relevancy \\\n"
            "      --labels golden/support/labels.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("report", type=Path, metavar="REPORT", help="a JSON report of the run")
    parser.add_argument("--check", required=True, help="the judged check to estimate")
    parser.add_argument("--labels", type=Path, required=True, help="people's labels of cases")
    parser.add_argument(
        "--method",
        choices=(*_METHODS, "both"),
        default="both",
        help="ppi, ppi++ or both (default)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="1 − confidence of the interval (0.05)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=_estimate)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _estimate(args: argparse.Namespace) -> int:
    from evalmark.calibration._case_labels import load_case_labels
    from evalmark.noise._ppi import ppi_mean
    from evalmark.report import Report

    if not 0.0 < args.alpha < 1.0:
        raise CliError(f"--alpha must be between 0 and 1 (e.g. 0.05), got {args.alpha}")
    if not args.report.exists():
        raise CliError(f"no such report {args.report}")
    report = Report.read(args.report)
    if args.check not in report.strategies:
        raise CliError(
            f"{args.report} has no check {args.check!r}; its checks: {', '.join(report.strategies)}"
        )
    labels = load_case_labels(args.labels)
    names = report.sample_names
    unknown = [name for name in labels if name not in set(names)]
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise CliError(
            f"{args.labels}: {len(unknown)} labelled ids are no case of the report: {shown}"
        )
    verdicts = {name: report.result(name, args.check).passed for name in names}
    judged = [int(verdicts[name]) for name in names]
    labelled = [int(verdicts[name]) for name in labels]
    truth = [int(label) for label in labels.values()]
    methods = _METHODS if args.method == "both" else (args.method,)
    try:
        found = [ppi_mean(judged, labelled, truth, alpha=args.alpha, method=m) for m in methods]  # type: ignore[arg-type]
    except ValueError as exc:
        raise CliError(f"evalmark judge estimate: {exc}") from None
    if args.json:
        document = {
            "report": str(args.report),
            "check": args.check,
            "judged_pass_rate": sum(judged) / len(judged),
            "estimates": [f.to_dict() for f in found],
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    level = f"{100 * (1 - args.alpha):g}%"
    first = found[0]
    agree = sum(a == b for a, b in zip(labelled, truth, strict=True))
    lines = [
        f"check {args.check} of {args.report}: {len(judged)} cases, {len(truth)} labelled "
        f"(the judge agrees with {agree} of them)",
        "",
        f"judge's pass rate (raw)  {_pct(sum(judged) / len(judged))} ({sum(judged)}/{len(judged)})",
        f"labels alone             {_pct(sum(truth) / len(truth))} ({sum(truth)}/{len(truth)}), "
        f"{level} interval {_pct(first.classical_low)}–{_pct(first.classical_high)}",
    ]
    for f in found:
        name = "PPI" if f.method == "ppi" else f"PPI++ (λ = {f.lam:.3f})"
        lines.append(
            f"{name:<24} {_pct(f.estimate)}, {level} interval {_pct(f.low)}–{_pct(f.high)}"
        )
    print("\n".join(lines))
    return EXIT_OK
