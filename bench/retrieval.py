"""Retrieval measures against pytrec_eval (trec_eval's C code), measured in one run.

    python bench/retrieval.py                 # query sets of 100, 1,000 and 10,000 queries
    python bench/retrieval.py --docs 100

For each query set (every query ranks ``--docs`` documents and has about 30 judgments) it checks
that ``evalmark.metrics.retrieval_metrics(qrels, run, measures)`` gives the numbers of
``pytrec_eval`` on the default measures, then compares it like for like twice:

* parse + evaluate: ``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` (the
  evaluator reads the qrels dicts when it is made) against one ``retrieval_metrics`` call;
* evaluate only: ``evaluator.evaluate(run)`` on an evaluator made beforehand (it still reads the
  run dicts) against the same ``retrieval_metrics`` call, which reads both the qrels and the run.

Both sides return the same dict of dicts. One-thread figures and their ratios are CPU time
(``time.process_time``, steadier on a busy machine; pytrec_eval runs on one thread); the
all-cores figure is wall time against pytrec_eval's wall time. Nothing here fails a build.
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


def best_of(fn: Callable[[], Any], rounds: int = 3) -> tuple[float, float]:
    """Wall and CPU seconds of the fastest of ``rounds`` calls (each the least of its kind)."""
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return min(walls), min(cpus)


def main() -> None:
    """Print the ratio to pytrec_eval for each query set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100, help="ranked documents per query")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 10000])
    args = parser.parse_args()
    import pytrec_eval

    print("queries/s of each (one thread: CPU time); ratios are evalmark over pytrec_eval")
    print(
        f"{'queries':>8} {'pytrec parse+eval':>18} {'pytrec eval':>12} {'evalmark 1 thr':>15} "
        f"{'all cores':>10} {'x parse+eval':>13} {'x eval only':>12} {'x all (wall)':>13}"
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
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    ref_wall, ref_cpu = best_of(reference)
    _, eval_cpu = best_of(lambda: evaluator.evaluate(run))
    _, one_cpu = best_of(lambda: em.retrieval_metrics(qrels, run, MEASURES, workers=1))
    all_wall, _ = best_of(lambda: em.retrieval_metrics(qrels, run, MEASURES, workers=-1))
    print(
        f"{size:>8} {size / ref_cpu:>18,.0f} {size / eval_cpu:>12,.0f} {size / one_cpu:>15,.0f} "
        f"{size / all_wall:>10,.0f} {ref_cpu / one_cpu:>12.1f}x {eval_cpu / one_cpu:>11.1f}x "
        f"{ref_wall / all_wall:>12.1f}x"
    )


if __name__ == "__main__":
    main()
