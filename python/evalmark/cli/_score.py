"""`evalmark score`: stream a file of (expected, actual) pairs through the metric kernels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalmark.cli import EXIT_INTERRUPTED, EXIT_OK
from evalmark.errors import CliError, OptionalDependencyError

if TYPE_CHECKING:
    from evalmark.scoring import ScoreOptions, Summary
    from evalmark.scoring._chunks import BadRow

DEFAULT_CHUNK_SIZE = 50_000
_SHOWN_BAD_ROWS = 10
# evalmark.scoring.ON_ERROR_CHOICES, spelled out so that the parser imports no scoring module
# (a test checks the two agree)
ON_ERROR_CHOICES = ("fail", "skip", "null")

_EXAMPLES = """\
examples:
  evalmark score golden/metrics/pairs.jsonl --metrics token_f1,rouge_l,levenshtein_similarity
  evalmark score logs.parquet --metrics token_f1,json_match -o scores.parquet \\
      --summary summary.json --expected-col reference --actual-col answer --on-error null
  evalmark score pairs.csv --metrics cosine --expected-npy ref.npy --actual-npy ans.npy

metrics:
{metrics}

Input: .jsonl (one JSON object per line), .csv (header row) or .parquet (needs
evalmark[arrow]). Output (-o): .jsonl, .csv or .parquet, one row per input row: the id
(--id-col, or the column "id" when there is one, else the 0-based row number in "row")
and one column per metric. Files are written whole or not at all; missing folders are made.
An input with no content at all (no bytes, or only blank lines) is an error, as it is for
samples files: most often a failed export; a CSV with only its header row scores no rows.
A bad row (unreadable, a field missing, null or not text) stops the run unless --on-error
says otherwise; with --on-error null it is written with null scores and keeps its id. A row
whose values one metric cannot score (json_match when the expected text is not JSON) gets a
null for that metric only, so prose and JSON rows can share a file.
Cost: Levenshtein, ROUGE-L and ROUGE-Lsum take time n*m/64 for texts of n and m characters
(a pair of 1,000,000-character texts: minutes; of 200,000,000: months), every other metric
linear time. --max-chars N keeps rows with a longer text out of the text metrics: each such
row is named on stderr and in the summary's "too_long" list, and written with null text
scores, never truncated. Ctrl-C stops any kernel within a fraction of a second.
Exit codes: 0 scored, 2 usage or input error, 130 interrupted.
"""


def register(subparsers: Any) -> None:
    """Add the ``score`` subcommand."""
    from evalmark.metrics._table import METRICS  # the table alone: no numpy, no extension

    width = max(map(len, METRICS)) + 2
    listing = "\n".join(f"  {name:<{width}}{metric.summary}" for name, metric in METRICS.items())
    parser = subparsers.add_parser(
        "score",
        help="score a JSONL, CSV or Parquet file of (expected, actual) pairs",
        description="Score every (expected, actual) pair of a file with the batch metric kernels,\n"
        "streaming in chunks with constant memory; print per-metric statistics.",
        epilog=_EXAMPLES.format(metrics=listing),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="input .jsonl, .csv or .parquet")
    parser.add_argument(
        "--metrics",
        required=True,
        metavar="NAMES",
        help="comma-separated metric names, e.g. token_f1,rouge_l (listed below)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="OUT",
        help="write per-row scores (.jsonl/.csv/.parquet)",
    )
    parser.add_argument(
        "--summary", type=Path, metavar="FILE", help="also write the summary as JSON to FILE"
    )
    columns = parser.add_argument_group("columns")
    columns.add_argument(
        "--expected-col", default="expected", metavar="NAME", help="default: expected"
    )
    columns.add_argument("--actual-col", default="actual", metavar="NAME", help="default: actual")
    columns.add_argument(
        "--id-col",
        default=None,
        metavar="NAME",
        help="column copied to the output to identify rows (default: 'id' if present; '' for none)",
    )
    columns.add_argument(
        "--expected-vector-col",
        default="expected_vector",
        metavar="NAME",
        help="list column of expected embeddings, for cosine",
    )
    columns.add_argument("--actual-vector-col", default="actual_vector", metavar="NAME")
    columns.add_argument(
        "--expected-npy",
        type=Path,
        metavar="FILE",
        help="2-D .npy of expected embeddings, row i for data row i (instead of a list column)",
    )
    columns.add_argument("--actual-npy", type=Path, metavar="FILE")
    run = parser.add_argument_group("running")
    run.add_argument(
        "--on-error",
        choices=ON_ERROR_CHOICES,
        default="fail",
        help="a bad row: stop naming it (fail, default), leave it out (skip), or score it null",
    )
    run.add_argument(
        "--chunk-size",
        type=int,
        default=DEFAULT_CHUNK_SIZE,
        metavar="N",
        help=f"rows scored per kernel call (default {DEFAULT_CHUNK_SIZE:,})",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="kernel threads: 1 serial, -1 all cores (default: $EVALMARK_WORKERS or -1)",
    )
    run.add_argument(
        "--max-chars",
        type=int,
        default=None,
        metavar="N",
        help="rows with an expected or actual text of more than N characters get null text "
        "scores and are reported, instead of being scored (default: no cap)",
    )
    run.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process; ray: Ray Data (needs evalmark[ray])",
    )
    run.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="Ray cluster to join, e.g. ray://head:10001 or auto (default: start a local Ray)",
    )
    run.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on stderr (default: when stderr is a terminal)",
    )
    parser.set_defaults(handler=run_score)


def _options(args: argparse.Namespace) -> ScoreOptions:
    from evalmark.errors import MetricInputError
    from evalmark.metrics._args import resolve_workers
    from evalmark.scoring import Columns, ScoreOptions, parse_metrics

    try:
        metrics = parse_metrics(args.metrics)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.chunk_size < 1:
        raise CliError(f"--chunk-size must be at least 1, got {args.chunk_size}")
    if args.workers is not None:
        try:
            resolve_workers(args.workers)  # the one check of a thread count
        except MetricInputError as exc:
            raise CliError(f"--{exc}") from None
    if args.max_chars is not None and args.max_chars < 0:
        raise CliError(
            f"--max-chars must be a count of characters (0 or more), got {args.max_chars}"
        )
    if args.max_chars is not None and args.engine != "local":
        raise CliError("--max-chars works with --engine local only")
    if args.ray_address is not None and args.engine != "ray":
        raise CliError("--ray-address needs --engine ray")
    if (args.expected_npy is None) != (args.actual_npy is None):
        raise CliError("give both --expected-npy and --actual-npy, or neither")
    columns = Columns(
        expected=args.expected_col,
        actual=args.actual_col,
        id=args.id_col,
        expected_vector=args.expected_vector_col,
        actual_vector=args.actual_vector_col,
    )
    return ScoreOptions(
        metrics=metrics,
        columns=columns,
        chunk_size=args.chunk_size,
        workers=args.workers,
        on_error=args.on_error,
        expected_npy=args.expected_npy,
        actual_npy=args.actual_npy,
        max_chars=args.max_chars,
    )


class _BadRowLog:
    """Reports bad rows (the first few, then a count) and null scores (one line per metric)."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.rows = 0
        self.long_rows = 0
        self.nulls: dict[str, tuple[int, BadRow]] = {}

    def __call__(self, row: BadRow) -> None:
        from evalmark.scoring._lengths import TOO_LONG

        if row.metric == TOO_LONG:
            self.long_rows += 1
            if self.long_rows <= _SHOWN_BAD_ROWS:
                print(f"evalmark score: too long: {_place(row)}: {row.problem}", file=sys.stderr)
            return
        if row.metric:
            count, first = self.nulls.get(row.metric, (0, row))
            self.nulls[row.metric] = (count + 1, first)
            return
        self.rows += 1
        if self.rows <= _SHOWN_BAD_ROWS:
            print(f"evalmark score: {self.action} {_place(row)}: {row.problem}", file=sys.stderr)

    def finish(self) -> None:
        """Print the totals of what was not shown."""
        if self.long_rows > _SHOWN_BAD_ROWS:
            print(
                f"evalmark score: {self.long_rows:,} rows over --max-chars in all "
                f"({self.long_rows - _SHOWN_BAD_ROWS:,} more not shown; the summary lists "
                "every one)",
                file=sys.stderr,
            )
        if self.rows > _SHOWN_BAD_ROWS:
            print(
                f"evalmark score: {self.action} {self.rows:,} bad rows in all "
                f"({self.rows - _SHOWN_BAD_ROWS:,} more not shown)",
                file=sys.stderr,
            )
        for metric, (count, first) in self.nulls.items():
            print(
                f"evalmark score: {metric} is null for {count:,} row{'s' * (count != 1)} it "
                f"cannot score; the first, {_place(first)}: {first.problem}",
                file=sys.stderr,
            )


def _place(row: BadRow) -> str:
    field = f"field {row.field!r}" if row.field else ""
    return ", ".join(part for part in (row.where, field) if part)


def run_score(args: argparse.Namespace) -> int:
    """Handle `evalmark score`; returns the exit code."""
    from evalmark._progress import make_progress
    from evalmark.scoring import score_file

    options = _options(args)
    if not args.file.is_file():
        raise CliError(f"{args.file}: no such file")
    log = _BadRowLog("skipped" if options.on_error == "skip" else "null scores for")

    def progress(label: str, total: int | None, unit: str) -> Any:
        return make_progress(args.progress, label, total, unit)

    try:
        if args.engine == "ray":
            from evalmark.scoring._ray import score_file_on_ray

            summary = score_file_on_ray(
                args.file,
                options,
                address=args.ray_address,
                output=args.output,
                summary_path=args.summary,
                on_bad_row=log,
                progress=progress,
            )
        else:
            summary = score_file(
                args.file,
                options,
                output=args.output,
                summary_path=args.summary,
                progress=progress,
                on_bad_row=log,
            )
    except OptionalDependencyError as exc:
        raise CliError(str(exc)) from None
    except MemoryError:  # the readers and the scorer name the row; this is the last resort
        raise CliError(
            f"{args.file}: ran out of memory; give evalmark more memory, lower --chunk-size, "
            "or shorten the widest rows"
        ) from None
    except KeyboardInterrupt:
        print("evalmark score: interrupted; no output was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    log.finish()
    print(format_summary(args.file, summary))
    if args.output is not None:
        print(f"scores written to {args.output}")
    if args.summary is not None:
        print(f"summary written to {args.summary}")
    return EXIT_OK


def _figure(value: float | None, integer: bool) -> str:
    if value is None:
        return "-"
    if integer and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.4f}"


def format_summary(path: Path, summary: Summary) -> str:
    """The summary as an aligned text table."""
    from evalmark.scoring._registry import METRICS

    lines = [
        f"{path}: {summary.rows:,} rows"
        + (f", {summary.skipped:,} skipped" if summary.skipped else "")
        + (f", {len(summary.too_long):,} over --max-chars" if summary.too_long else "")
    ]
    header = ["metric", "count", "nulls", "mean", "min", "p5", "p50", "p95", "max"]
    table = [header]
    for name, stats in summary.metrics.items():
        integer = METRICS[name].dtype == "int64"
        table.append(
            [
                name,
                f"{stats.count:,}",
                f"{stats.nulls:,}",
                _figure(stats.mean, False),
                *(
                    _figure(v, integer)
                    for v in (stats.min, stats.p5, stats.p50, stats.p95, stats.max)
                ),
            ]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
