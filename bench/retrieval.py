"""Retrieval measures against pytrec_eval (trec_eval's C code), measured in one run.

    python bench/retrieval.py                 # query sets of 100, 1,000 and 10,000 queries
    python bench/retrieval.py --docs 100

For each query set (every query ranks ``--docs`` documents and has about 30 judgments) it times
``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` and
``evalmark.metrics.retrieval_metrics(qrels, run, measures)`` on the default measures, checks
that both give the same numbers, and prints the queries/s of each and their ratio (evalmark on
one thread and on all cores). Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from typing import Any

import evalmark.metrics as em

MEASURES = ("ndcg_cut_10", "map", "recip_rank", "P_5", "recall_10")


def query_set(seed: int, queries: int, docs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Random qrels and run: ``docs`` ranked documents a query, ties and graded judgments."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        pool = [f"doc{rng.randrange(10 * docs)}" for _ in range(2 * docs)]
        qrels[f"q{q}"] = {d: rng.choice((0, 0, 1, 2, 3)) for d in rng.sample(pool, 30)}
        run[f"q{q}"] = {d: round(rng.random(), 2) for d in pool[:docs]}
    return qrels, run


def best_of(fn: Callable[[], Any], rounds: int = 3) -> float:
    """Seconds of the fastest of ``rounds`` calls."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the ratio to pytrec_eval for each query set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100, help="ranked documents per query")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 10000])
    args = parser.parse_args()
    import pytrec_eval

    print(
        f"{'queries':>8} {'pytrec_eval q/s':>16} {'evalmark 1 thread':>18} "
        f"{'all cores':>10} {'ratio 1':>8} {'ratio all':>9}"
    )
    for size in args.sizes:
        row(pytrec_eval, size, args.docs)


def row(pytrec_eval: Any, size: int, docs: int) -> None:
    """Time one query set of ``size`` queries and print its line."""
    qrels, run = query_set(size, size, docs)

    def reference() -> Any:
        return pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)

    want = reference()
    got = em.retrieval_metrics(qrels, run, MEASURES)
    assert all(
        math.isclose(got[q][m], v, rel_tol=1e-12, abs_tol=1e-15)
        for q, values in want.items()
        for m, v in values.items()
    ), "results differ from pytrec_eval"
    t_ref = best_of(reference)
    t_one = best_of(lambda: em.retrieval_metrics(qrels, run, MEASURES, workers=1))
    t_all = best_of(lambda: em.retrieval_metrics(qrels, run, MEASURES, workers=-1))
    print(
        f"{size:>8} {size / t_ref:>16,.0f} {size / t_one:>18,.0f} {size / t_all:>10,.0f} "
        f"{t_ref / t_one:>7.1f}x {t_ref / t_all:>8.1f}x"
    )


if __name__ == "__main__":
    main()
