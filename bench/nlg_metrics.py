"""Throughput of GLEU, METEOR and BERTScore against their references, measured in one run.

    python bench/nlg_metrics.py            # 5,000 pairs per metric
    python bench/nlg_metrics.py --n 2000

For each metric it prints evalmark's pairs/s on one thread (CPU time, robust on a busy machine)
against the reference's pairs/s (CPU time, same inputs, same process) and their ratio; then the
wall time of one worker and of two workers, timed alike in the same run, their gain, and the
share of the CPU time spent on the calling thread (converting inputs and building the result
while holding the GIL: it bounds the gain of any worker count, whatever the machine's load).
A one-thread CPU rate is not compared with an all-cores wall rate: on a busy machine wall time
runs far above CPU time, so that comparison shows a slowdown that is not there. The references:
NLTK's ``sentence_gleu`` and ``corpus_gleu`` and ``meteor_score`` (with a WordNet that knows no
synonyms, as evalmark matches) on ``str.split()`` tokens, in a Python loop; for BERTScore a
numpy transcription of the ``bert_score`` package's greedy matching, pair by pair, at 64
dimensions, at 256 and at a transformer's 768 (the last two on a tenth of the pairs). The text
pairs come from the shared workload generator (bench/workload.py). Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import evalmark.metrics as em

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload


class _NoSynonyms:
    def synsets(self, word: str) -> list[Any]:
        return []


def timed(fn: Callable[[], Any], rounds: int = 3) -> tuple[float, float, float]:
    """(wall, process CPU, calling thread's CPU) seconds of the fastest of ``rounds`` calls."""
    best = (float("inf"), 0.0, 0.0)
    for _ in range(rounds):
        w0, c0, t0 = time.perf_counter(), time.process_time(), time.thread_time()
        fn()
        got = (time.perf_counter() - w0, time.process_time() - c0, time.thread_time() - t0)
        best = min(best, got)
    return best


def best_of(
    fn: Callable[[], Any], rounds: int = 3, clock: Callable[[], float] = time.process_time
) -> float:
    """Seconds of the fastest of ``rounds`` calls: CPU seconds of this process by default (on
    a shared machine they vary less than wall time; the single-thread runs and the references
    use one core), wall seconds for the all-cores run."""
    times = []
    for _ in range(rounds):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def _greedy(ref: np.ndarray, hyp: np.ndarray) -> tuple[float, float, float]:
    r = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    h = hyp / np.linalg.norm(hyp, axis=1, keepdims=True)
    sim = h @ r.T
    p, rc = float(sim.max(axis=1).mean()), float(sim.max(axis=0).mean())
    return p, rc, 2 * p * rc / (p + rc) if p + rc else 0.0


def main(argv: list[str] | None = None) -> int:
    """Print one row per metric: evalmark's and the reference's pairs/s and their ratios."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=5_000, help="pairs per metric")
    n = parser.parse_args(argv).n
    try:
        from nltk.translate.gleu_score import corpus_gleu, sentence_gleu
        from nltk.translate.meteor_score import meteor_score
    except ImportError as exc:  # pragma: no cover - a bench, not a test
        print(f"reference not installed: {exc.name}")
        return 0
    expected, actual = workload.text_pairs(n, seed=7)
    sub = max(n // 5, 200)
    e_tok = [e.split() for e in expected]
    a_tok = [a.split() for a in actual]
    rng = np.random.default_rng(7)
    refs = [rng.normal(size=(len(t), 64)) for t in e_tok]
    hyps = [rng.normal(size=(len(t), 64)) for t in a_tok]
    # a transformer's width, on fewer pairs: here numpy's BLAS matrix product (fused
    # multiply-adds, in its own order) competes with a kernel that sums each cosine in order
    wide = max(n // 10, 100)
    refs_768 = [rng.normal(size=(len(t), 768)) for t in e_tok[:wide]]
    hyps_768 = [rng.normal(size=(len(t), 768)) for t in a_tok[:wide]]
    refs_256 = [rng.normal(size=(len(t), 256)) for t in e_tok[:wide]]
    hyps_256 = [rng.normal(size=(len(t), 256)) for t in a_tok[:wide]]
    wordnet = _NoSynonyms()

    cases: list[tuple[str, Callable[[int], Any], Callable[[], Any], int]] = [
        (
            "gleu",
            lambda w: em.gleu_batch(expected, actual, workers=w),
            lambda: [sentence_gleu([r], h) for r, h in zip(e_tok[:sub], a_tok[:sub], strict=True)],
            sub,
        ),
        (
            "corpus_gleu",
            lambda w: em.corpus_gleu(expected, actual, workers=w),
            lambda: corpus_gleu([[r] for r in e_tok[:sub]], a_tok[:sub]),
            sub,
        ),
        (
            "meteor",
            lambda w: em.meteor_batch(expected, actual, workers=w),
            lambda: [
                meteor_score([r], h, wordnet=wordnet)
                for r, h in zip(e_tok[:sub], a_tok[:sub], strict=True)
            ],
            sub,
        ),
        (
            "bertscore (dim 64)",
            lambda w: em.bertscore_batch(refs, hyps, workers=w),
            lambda: [_greedy(r, h) for r, h in zip(refs[:sub], hyps[:sub], strict=True)],
            sub,
        ),
        (
            "bertscore (dim 256)",
            lambda w: em.bertscore_batch(refs_256, hyps_256, workers=w),
            lambda: [_greedy(r, h) for r, h in zip(refs_256, hyps_256, strict=True)],
            wide,
        ),
        (
            "bertscore (dim 768)",
            lambda w: em.bertscore_batch(refs_768, hyps_768, workers=w),
            lambda: [_greedy(r, h) for r, h in zip(refs_768, hyps_768, strict=True)],
            wide,
        ),
    ]
    print(f"{n} pairs per metric (workload.text_pairs seed 7); reference timed on {sub}")
    print(
        f"{'metric':<20}{'1 thread/s':>12}{'reference/s':>12}{'x (CPU)':>8}"
        f"{'1w wall ms':>11}{'2w wall ms':>11}{'2w gain':>8}{'2w CPU ms':>10}{'caller':>7}"
    )
    for name, ours, ref, count in cases:
        size = wide if name.endswith(("256)", "768)")) else n
        ours(1)  # warm up: the pools start, the pages are touched
        one = size / best_of(functools.partial(ours, 1))
        theirs = count / best_of(ref, rounds=2)
        wall1, _, _ = timed(functools.partial(ours, 1))
        wall2, cpu2, caller2 = timed(functools.partial(ours, 2))
        print(
            f"{name:<20}{one:>12,.0f}{theirs:>12,.0f}{one / theirs:>8.1f}"
            f"{wall1 * 1e3:>11.1f}{wall2 * 1e3:>11.1f}{wall1 / wall2:>8.2f}"
            f"{cpu2 * 1e3:>10.1f}{caller2 / cpu2:>7.0%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
