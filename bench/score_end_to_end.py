"""`evalmark score` end to end against the batch kernels on the same pairs in memory.

    python bench/score_end_to_end.py                  # 1,000,000 rows, best of 1
    python bench/score_end_to_end.py --n 200000 --repeat 3

Writes the bench/workload.py text pairs (seed 3) as JSONL, CSV and Parquet into a temporary
folder (setup, not timed), then times, in this process:

* kernels: token_f1_batch, rouge_l_batch and levenshtein_similarity_batch over the pairs,
  already in memory (the peer);
* `evalmark score FILE --metrics token_f1,rouge_l,levenshtein_similarity` for each input
  format, through the command line's entry point (reading, scoring, summary; no -o), and the
  same with ``-o scores.parquet``.

The runs go in rounds (``--repeat`` of them), each run once per round, the best of each kept,
so that a change of load on the machine hits every figure alike. Printed: each run's rows/s as
a share of the kernels' rows/s (goals: JSONL >= 0.70, Parquet >= 0.90), and CSV time / JSONL
time (goal <= 1.5); beside each, the same from the process's CPU time (every thread's), which
a busy machine sways less than the wall clock. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402
from evalmark.cli import main as evalmark_main  # noqa: E402

METRICS = "token_f1,rouge_l,levenshtein_similarity"


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """One run's wall-clock and CPU seconds (the CPU time of every thread of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def write_inputs(folder: Path, expected: list[str], actual: list[str]) -> dict[str, Path]:
    """The pairs as .jsonl, .csv and .parquet files in ``folder`` (setup)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = {fmt: folder / f"pairs.{fmt}" for fmt in ("jsonl", "csv", "parquet")}
    with paths["jsonl"].open("w", encoding="utf-8") as out:
        for e, a in zip(expected, actual, strict=True):
            out.write(json.dumps({"expected": e, "actual": a}, ensure_ascii=False) + "\n")
    with paths["csv"].open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["expected", "actual"])
        writer.writerows(zip(expected, actual, strict=True))
    pq.write_table(pa.table({"expected": expected, "actual": actual}), paths["parquet"])
    return paths


def score(path: Path, *extra: str) -> None:
    """`evalmark score path --metrics ...`, its printed summary dropped."""
    with contextlib.redirect_stdout(io.StringIO()):
        code = evalmark_main(["score", str(path), "--metrics", METRICS, "--no-progress", *extra])
    if code != 0:
        raise SystemExit(f"evalmark score {path} exited {code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="rows (1,000,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure, best kept (1)")
    args = parser.parse_args()
    expected, actual = workload.text_pairs(args.n, seed=3)

    def kernels() -> None:
        em.token_f1_batch(expected, actual)
        em.rouge_l_batch(expected, actual)
        em.levenshtein_similarity_batch(expected, actual)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_inputs(folder, expected, actual)
        kernels()  # warm the kernels' threads
        out = folder / "scores.parquet"
        runs: dict[str, Callable[[], object]] = {"kernels": kernels}
        for fmt, path in paths.items():
            runs[fmt] = lambda p=path: score(p)
            runs[f"{fmt} -o"] = lambda p=path: score(p, "-o", str(out))
        # Rounds over every run, best of each kept: a change of load hits them all alike.
        best = dict.fromkeys(runs, float("inf"))
        best_cpu = dict.fromkeys(runs, float("inf"))
        for _ in range(args.repeat):
            for name, run in runs.items():
                wall, cpu = timed(run)
                best[name] = min(best[name], wall)
                best_cpu[name] = min(best_cpu[name], cpu)
    n = args.n
    k_wall, k_cpu = best["kernels"], best_cpu["kernels"]
    print(f"evalmark score, {n:,} rows, metrics {METRICS} (best of {args.repeat})")
    print(f"{'run':<30}{'seconds':>9}{'rows/s':>11}{'share':>7}{'cpu s':>8}{'cpu share':>11}")
    print(f"{'kernels, pairs in memory':<30}{k_wall:>9.2f}{n / k_wall:>11,.0f}{'':>7}{k_cpu:>8.2f}")
    for label in ("", " -o .parquet"):
        for fmt in paths:
            wall, cpu = best[fmt + label[:3]], best_cpu[fmt + label[:3]]
            print(
                f"{'score .' + fmt + label:<30}{wall:>9.2f}{n / wall:>11,.0f}"
                f"{k_wall / wall:>7.2f}{cpu:>8.2f}{k_cpu / cpu:>11.2f}"
            )
    for label in ("", " -o"):
        print(
            f"CSV time / JSONL time{label}: {best['csv' + label] / best['jsonl' + label]:.2f} "
            f"(CPU {best_cpu['csv' + label] / best_cpu['jsonl' + label]:.2f}; goal <= 1.5)"
        )
    print("goals: JSONL share >= 0.70, Parquet share >= 0.90 (share: kernels' time / the run's)")


if __name__ == "__main__":
    main()
