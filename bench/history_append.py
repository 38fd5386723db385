"""Benchmark of appending runs to the history against a bare sqlite3 insert of the same rows.

    .venv/bin/python bench/history_append.py [--runs 100] [--cases 1000]

Both sides write ``--runs`` runs of ``--cases`` cases x 2 checks (the runs of
``bench/history.py``), one transaction a run, to a fresh WAL database in a temporary folder:

- evalmark: ``HistoryStore.append`` (values checked, texts escaped, answer identities looked
  up, the indexes the queries need kept up to date);
- bare: ``executemany`` of the same columns into a ``results`` table with no index, the rows
  made from the same records inside the timing.

Prints rows/s of both, their ratio (evalmark ÷ bare) and both database sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalmark.history import RunRecord, open_history
from history import make_runs


def bare(path: Path, runs: list[RunRecord]) -> float:
    """Seconds to insert every result row with plain sqlite3."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "CREATE TABLE results (run_id INTEGER, seq INTEGER, case_name TEXT, strategy TEXT,"
        " tags TEXT, passed INTEGER, score REAL, error TEXT, explanation TEXT)"
    )
    start = time.perf_counter()
    for run_id, run in enumerate(runs):
        db.execute("BEGIN IMMEDIATE")
        db.executemany(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    seq,
                    r.case,
                    r.strategy,
                    json.dumps(list(r.tags)),
                    int(r.passed),
                    r.score,
                    r.error,
                    r.explanation,
                )
                for seq, r in enumerate(run.results)
            ],
        )
        db.execute("COMMIT")
    seconds = time.perf_counter() - start
    db.close()
    return seconds


def ours(path: Path, runs: list[RunRecord]) -> float:
    """Seconds to append every run to an evalmark history."""
    with open_history(path) as store:
        start = time.perf_counter()
        for run in runs:
            store.append(run)
        return time.perf_counter() - start


def size(folder: Path) -> int:
    """Bytes of every file in ``folder`` (the database, its WAL and shared memory)."""
    return sum(p.stat().st_size for p in folder.iterdir())


def main() -> None:
    """Run both sides once and print their figures and ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    runs = make_runs(args.runs, args.cases)
    rows = sum(len(r.results) for r in runs)
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        theirs = bare(Path(a) / "bare.sqlite", runs)
        mine = ours(Path(b) / "history.sqlite", runs)
        sizes = size(Path(a)), size(Path(b))
    print(f"history append: {args.runs} runs x {args.cases} cases x 2 checks = {rows:,} rows")
    print(f"bare sqlite3 insert {rows / theirs:>12,.0f} rows/s  {sizes[0] / 1e6:6.1f} MB")
    print(f"evalmark append     {rows / mine:>12,.0f} rows/s  {sizes[1] / 1e6:6.1f} MB")
    print(f"ratio (evalmark / bare): {theirs / mine:.2f}  (goal >= 0.5)")


if __name__ == "__main__":
    main()
