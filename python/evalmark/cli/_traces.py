"""``evalmark traces check PATH`` and ``evalmark traces annotate SUITE``: what in a trace file
cannot be evaluated, and a suite's verdicts written back as OTLP spans. The library does the
work (:mod:`evalmark.traces`, :mod:`evalmark.suite._trace_annotate`); this parses and prints."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK

_EPILOG = """\
examples:
  evalmark traces check traces/agent.jsonl --match session.id
  evalmark traces check traces/agent.pb --json
  evalmark traces annotate golden/traces -o verdicts.jsonl

check reads an OTLP trace file (JSON lines, one JSON request, or protobuf) and names every
trace that cannot be evaluated, with its id and reason: no GenAI span, a broken parent
chain, a tool call without a result, no recorded content.

annotate runs the suite's trace evaluations offline and writes one gen_ai.evaluation.result
span per case and check into the evaluated trace (OTLP JSON lines), with evalmark's version,
the check's options, the judge prompt's sha256 and the samples file's sha256.

exit codes:
  0  check: every trace can be evaluated; annotate: written, and the gate passed
  1  check: some trace cannot be evaluated; annotate: written, and the gate failed
  2  usage or input error (a file that is not OTLP, a bad suite file, ...)
"""


def register(subparsers: Any) -> None:
    """Add the ``traces`` subcommand and its ``check`` and ``annotate`` commands."""
    parser = subparsers.add_parser(
        "traces",
        help="check recorded agent traces (OTLP) and write verdicts back as spans",
        description="Evaluate recorded agent traces: OpenTelemetry GenAI (and OpenInference) "
        "spans in, verdicts with provenance out.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="traces_command", metavar="COMMAND", required=True)
    check = commands.add_parser(
        "check", help="name every trace of a file that cannot be evaluated, and why"
    )
    check.add_argument("path", type=Path, metavar="PATH", help="an OTLP JSON or protobuf file")
    check.add_argument(
        "--match", metavar="ATTRIBUTE", help="the span attribute naming each case (session.id)"
    )
    check.add_argument(
        "--window",
        type=int,
        default=None,
        metavar="SPANS",
        help="how many spans apart one trace's spans may lie in the file (default 20000)",
    )
    check.add_argument("--json", action="store_true", help="print the problems as JSON lines")
    check.set_defaults(handler=_check)
    annotate = commands.add_parser(
        "annotate", help="run a suite's trace evaluations; write the verdicts as OTLP spans"
    )
    annotate.add_argument("suite", type=Path, metavar="SUITE", help="suite.yaml, or its folder")
    annotate.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="FILE",
        help="the OTLP JSON lines file to write",
    )
    annotate.add_argument(
        "--evaluation",
        action="append",
        default=[],
        metavar="NAME",
        help="only this evaluation (repeatable)",
    )
    annotate.set_defaults(handler=_annotate)


def _check(args: argparse.Namespace) -> int:
    from evalmark.traces import check
    from evalmark.traces._stream import DEFAULT_WINDOW

    window = DEFAULT_WINDOW if args.window is None else args.window
    count, problems = check(args.path, match=args.match, window=window)
    bad = len({p.trace_id + "/" + p.name for p in problems})
    if args.json:
        for problem in problems:
            print(json.dumps(problem.to_dict(), ensure_ascii=False, sort_keys=True))
    else:
        for problem in problems:
            print(problem)
        print(f"{args.path}: {count} traces, {count - bad} can be evaluated, {bad} cannot")
    return EXIT_GATE_FAILED if problems else EXIT_OK


def _annotate(args: argparse.Namespace) -> int:
    from evalmark.report._wording import gate_cells
    from evalmark.suite._loader import load_suite
    from evalmark.suite._trace_annotate import annotate_suite

    suite = load_suite(args.suite)
    done = annotate_suite(suite, args.output, only=tuple(args.evaluation))
    print(f"wrote {done.verdicts} verdicts on {done.traces} traces to {args.output}")
    for gate in done.gates:
        actual, required, verdict = gate_cells(gate)
        print(f"gate {gate.label}: {actual} (required {required}) {verdict}")
    return EXIT_OK if done.passed else EXIT_GATE_FAILED
