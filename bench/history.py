"""Benchmark of the run history: appending runs, then the trend and flaky queries.

    .venv/bin/python bench/history.py [--runs 1000] [--cases 1000]

Appends ``--runs`` runs of a ``--cases``-case suite with two checks each (so 2 x cases result
rows a run) to a fresh SQLite history, in batches of one transaction a run as ``evalmark run``
does; then times ``trend`` (every check, one check, one tag) and ``flaky`` on the full
database, and prints the database size. Case names, tags and verdicts come from the shared
workload generator, so figures taken at different times compare. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalmark.history import CaseResult, RunRecord, open_history
from evalmark.history._queries import flaky_cases, list_runs, trend
from evalmark.history._record import AnswerIdentity
from workload import text_pairs


def make_runs(runs: int, cases: int) -> list[RunRecord]:
    """``runs`` runs over the same ``cases`` cases, each case answered by the same recording
    in every run; about 2% of the judged verdicts flip."""
    names, _ = text_pairs(cases, seed=11)
    draw = random.Random(19)
    case_names = [f"case-{i:05d}-{' '.join(n.split()[:2])}" for i, n in enumerate(names)]
    tags = [("billing",) if i % 3 == 0 else ("support",) for i in range(cases)]
    answered = [AnswerIdentity("bench-model", f"{i:064x}", "main") for i in range(cases)]
    out = []
    for run in range(runs):
        results = []
        for i, name in enumerate(case_names):
            score = 0.5 + 0.5 * ((i * 7919) % 1000) / 1000
            same = (None, "", tags[i], answered[i])
            results.append(CaseResult(name, "token-f1", score >= 0.6, score, *same))
            judged = (i % 10 != 0) != (draw.random() < 0.02)
            results.append(CaseResult(name, "relevancy", judged, float(judged), *same))
        out.append(
            RunRecord(
                suite="bench",
                source="run",
                started_at=f"2026-12-01T{run // 3600 % 24:02d}:{run // 60 % 60:02d}"
                f":{run % 60:02d}Z",
                duration_s=1.0,
                evalmark_version="bench",
                results=tuple(results),
                files={"samples:bench.yaml": "same"},
            )
        )
    return out


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    runs = make_runs(args.runs, args.cases)
    rows = sum(len(r.results) for r in runs)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "history.sqlite"
        with open_history(db) as store:
            start = time.perf_counter()
            for run in runs:
                store.append(run)
            append = time.perf_counter() - start
            timings = {}
            for label, call in [
                ("ls (20 newest runs)", lambda: list_runs(store, limit=20)),
                ("trend, every check", lambda: trend(store)),
                ("trend --metric relevancy", lambda: trend(store, metric="relevancy")),
                ("trend --tag billing", lambda: trend(store, tag="billing")),
                ("flaky", lambda: flaky_cases(store)),
            ]:
                start = time.perf_counter()
                found = call()
                timings[label] = (time.perf_counter() - start, len(found))
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
    print(f"history: {args.runs} runs x {args.cases} cases x 2 checks = {rows:,} result rows")
    print(
        f"append: {append:.2f} s in all, {append / args.runs * 1000:.1f} ms a run, "
        f"{rows / append:,.0f} result rows/s"
    )
    for label, (seconds, count) in timings.items():
        print(f"{label:<26} {seconds * 1000:9.1f} ms  ({count} rows)")
    print(f"database size: {size / 1e6:.1f} MB ({size / rows:.0f} bytes a result row)")


if __name__ == "__main__":
    main()
