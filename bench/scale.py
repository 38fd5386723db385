"""Streaming-scale benchmark: `evalmark score` over generated files, and Ray against one process.

    python bench/scale.py                      # 1,000,000 pairs
    python bench/scale.py --n 10000000         # the full run of issue 8 (about 3 GB of JSONL)
    python bench/scale.py --n 200000 --no-ray  # quick look

It writes N pairs from bench/workload.py (the shared generator, in blocks of 100,000 with
seeds 0, 1, 2...) as JSONL, CSV and Parquet into --dir (default: a temporary folder), then
scores each file in a fresh subprocess with the same metrics, writing scores in the input's
format, and prints rows/s (from the call to the end, imports not counted) and the peak resident
memory of that process (VmHWM; for Ray, of the driver only: Ray's workers are processes of
their own). The inputs are generated in a child process too: a parent that grew while
generating makes the children's VmHWM read high on this kernel.

It also times the batch kernels on pairs already in memory (Python lists, as a user calls them,
and TextColumns, the kernels alone) and prints the Parquet path's ratio to those (goal >= 0.7),
and scores the Parquet file through Ray Data on a local Ray against the single-process path.
Nothing here fails a build; figures on a shared 2-core machine move by 10-20% between runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workload  # noqa: E402

BLOCK = 100_000
DEFAULT_METRICS = "token_f1,rouge_l,levenshtein_similarity"


def blocks(n: int) -> Iterator[tuple[list[str], list[str]]]:
    """The N generated pairs, block by block (same pairs for the same N, every run)."""
    for seed, start in enumerate(range(0, n, BLOCK)):
        yield workload.text_pairs(min(BLOCK, n - start), seed=seed)


def generate(n: int, folder: Path) -> dict[str, Path]:
    """Write the pairs as pairs.jsonl, pairs.csv and pairs.parquet (reused when present)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = {kind: folder / f"pairs-{n}.{kind}" for kind in ("jsonl", "csv", "parquet")}
    if all(p.exists() for p in paths.values()):
        return paths
    started = time.perf_counter()
    schema = pa.schema([("id", pa.int64()), ("expected", pa.string()), ("actual", pa.string())])
    with (
        paths["jsonl"].open("w", encoding="utf-8") as jsonl,
        paths["csv"].open("w", encoding="utf-8", newline="") as csv_file,
        pq.ParquetWriter(paths["parquet"], schema) as parquet,
    ):
        writer = csv.writer(csv_file)
        writer.writerow(["id", "expected", "actual"])
        row = 0
        for expected, actual in blocks(n):
            ids = list(range(row, row + len(expected)))
            row += len(expected)
            jsonl.writelines(
                json.dumps({"id": i, "expected": e, "actual": a}, ensure_ascii=False) + "\n"
                for i, e, a in zip(ids, expected, actual, strict=True)
            )
            writer.writerows(zip(ids, expected, actual, strict=True))
            parquet.write_table(
                pa.table({"id": ids, "expected": expected, "actual": actual}, schema=schema)
            )
    sizes = ", ".join(f"{k} {p.stat().st_size / 1e6:,.0f} MB" for k, p in paths.items())
    print(f"generated {n:,} pairs in {time.perf_counter() - started:.0f} s ({sizes})")
    return paths


def child(args: argparse.Namespace) -> None:
    """Run one scoring job in this (fresh) process and print its figures as JSON."""
    from evalmark.scoring import ScoreOptions, parse_metrics, score_file

    if Path(args.source).suffix == ".parquet":  # imports are start-up, not scoring
        import pyarrow.compute
        import pyarrow.parquet  # noqa: F401
    source, output = Path(args.source), Path(args.output)
    options = ScoreOptions(parse_metrics(args.metrics), chunk_size=args.chunk_size)
    started = time.perf_counter()
    if args.engine == "ray":
        import ray

        from evalmark.ray import score_file_on_ray

        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level="ERROR")
        ready = time.perf_counter()
        summary = score_file_on_ray(source, options, output=output)
        seconds = time.perf_counter() - ready
        startup = ready - started
        ray.shutdown()
    else:
        summary = score_file(source, options, output=output)
        seconds = time.perf_counter() - started
        startup = 0.0
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "rows": summary.rows,
                "seconds": seconds,
                "startup": startup,
                "peak_mb": peak_kb / 1024,
            }
        )
    )


def run_child(source: Path, output: Path, args: argparse.Namespace, engine: str) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--child",
        "--source",
        str(source),
        "--output",
        str(output),
        "--metrics",
        args.metrics,
        "--chunk-size",
        str(args.chunk_size),
        "--engine",
        engine,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"scoring {source.name} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    output.unlink(missing_ok=True)
    return result


def in_memory_rates(n: int, metrics: str) -> tuple[float, float]:
    """Rows/s of the batch kernels on pairs in memory: from lists, and from TextColumns."""
    import evalmark.metrics as em
    from evalmark.scoring import parse_metrics

    specs = parse_metrics(metrics)
    expected: list[str] = []
    actual: list[str] = []
    for e, a in blocks(min(n, 1_000_000)):
        expected += e
        actual += a
    started = time.perf_counter()
    for spec in specs:
        spec.compute(expected, actual, None)
    from_lists = len(expected) / (time.perf_counter() - started)
    columns = em.TextColumn.from_strings(expected), em.TextColumn.from_strings(actual)
    started = time.perf_counter()
    for spec in specs:
        spec.compute(columns[0], columns[1], None)
    kernels = len(expected) / (time.perf_counter() - started)
    return from_lists, kernels


def run_in_memory(args: argparse.Namespace) -> tuple[float, float]:
    command = [
        sys.executable,
        __file__,
        "--child-memory",
        "--n",
        str(args.n),
        "--metrics",
        args.metrics,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    lists, kernels = json.loads(done.stdout.strip().splitlines()[-1])
    return float(lists), float(kernels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="pairs to generate")
    parser.add_argument("--metrics", default=DEFAULT_METRICS)
    parser.add_argument("--chunk-size", type=int, default=50_000)
    parser.add_argument("--dir", type=Path, default=None, help="where to keep the inputs")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray comparison")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-memory", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-generate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--source", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--engine", default="local", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.child_generate:
        generate(args.n, args.dir)
        return
    if args.child_memory:
        print(json.dumps(in_memory_rates(args.n, args.metrics)))
        return
    folder = args.dir or Path(tempfile.mkdtemp(prefix="evalmark-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"evalmark score at scale: {args.n:,} pairs, metrics {args.metrics}, "
        f"chunk {args.chunk_size:,}, {os.cpu_count()} cores"
    )
    subprocess.run(
        [sys.executable, __file__, "--child-generate", "--n", str(args.n), "--dir", str(folder)],
        check=True,
    )
    paths = generate(args.n, folder)  # present now: only names them
    # Measured in a child too, twice (before and after the files), keeping the faster: the
    # ratios below are then conservative on a machine shared with other work.
    from_lists, kernels = run_in_memory(args)
    print(f"{'path':<24}{'rows/s':>12}{'peak RSS':>12}{'input':>10}")
    rates: dict[str, float] = {}
    for kind, source in paths.items():
        figures = run_child(source, folder / f"scores.{kind}", args, "local")
        rate = figures["rows"] / figures["seconds"]
        rates[kind] = rate
        size = source.stat().st_size / 1e6
        print(
            f"{kind + ' -> ' + kind:<24}{rate:>12,.0f}{figures['peak_mb']:>9,.0f} MB"
            f"{size:>7,.0f} MB"
        )
    again = run_in_memory(args)
    from_lists, kernels = max(from_lists, again[0]), max(kernels, again[1])
    print(
        f"{'in memory, lists':<24}{from_lists:>12,.0f}   the batch API on Python lists, best of 2"
    )
    print(f"{'in memory, TextColumn':<24}{kernels:>12,.0f}   the kernels alone, best of 2")
    for kind, rate in rates.items():
        print(
            f"{kind} path / in-memory batch: {rate / from_lists:.2f}; / kernels alone: "
            f"{rate / kernels:.2f}"
        )
    print(
        f"Parquet path / in-memory batch: {rates['parquet'] / from_lists:.2f} "
        f"(goal >= 0.7); / kernels alone: {rates['parquet'] / kernels:.2f}"
    )
    if not args.no_ray:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("ray: not installed (pip install 'evalmark[ray]')")
            return
        figures = run_child(paths["parquet"], folder / "scores-ray.parquet", args, "ray")
        rate = figures["rows"] / figures["seconds"]
        print(
            f"{'parquet via Ray (local)':<24}{rate:>12,.0f}{figures['peak_mb']:>9,.0f} MB"
            f"  {rate / rates['parquet']:.2f}x the single process"
            f" (Ray start-up {figures['startup']:.0f} s not counted)"
        )


if __name__ == "__main__":
    main()
