"""Token kernels against their Python references, CPU time and wall time, in one run.

    python bench/text_kernels.py              # 30,000 pairs (bench/workload.py, seed 11)
    python bench/text_kernels.py --n 20000 --seed 3

For each kernel: evalmark on one thread (CPU seconds, `time.process_time`) against the reference
loop (CPU seconds, same process, on a subset when it is slow), their ratio and the goal; then the
wall-time gain of a second worker on each kernel at the full size, and the calling thread's
share of the 2-worker CPU time (serial work: Amdahl's bound on the gain is 1 / (s + (1 - s) / 2)
for a share s). Best of three rounds each.
The references: the SQuAD v2.0 script's `compute_f1` / `compute_exact`, rouge-score's
`RougeScorer` (unstemmed) and nltk's `sentence_gleu`.
"""

from __future__ import annotations

import argparse
import functools
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import evalmark.metrics as em  # noqa: E402
import oracles  # noqa: E402
import workload  # noqa: E402
from metric_options import squad_exact  # noqa: E402

ROUNDS = 3


def best(fn: Callable[[], Any]) -> tuple[float, float, float]:
    """Best (CPU seconds, wall seconds) of ROUNDS calls of `fn`, and the share of the CPU time
    the calling thread took in the least busy call (its work under the GIL: converting inputs,
    building the result), which bounds the gain of any worker count on any machine."""
    cpu, wall, caller = [], [], 1.0
    for _ in range(ROUNDS):
        gc.collect()
        c0, w0, t0 = time.process_time(), time.perf_counter(), time.thread_time()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        if cpu[-1] == min(cpu) and cpu[-1] > 0:
            caller = (time.thread_time() - t0) / cpu[-1]
    return min(cpu), min(wall), caller


def main(argv: list[str] | None = None) -> int:
    """Print one row per kernel: per-pair CPU cost of both sides, the ratio, the 2-worker gain."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=30_000, help="pairs per kernel")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    try:
        from nltk.translate.gleu_score import sentence_gleu
        from rouge_score import rouge_scorer
    except ImportError as exc:  # pragma: no cover - a bench, not a test
        print(f"reference not installed: {exc.name}")
        return 0
    n = args.n
    exp, act = workload.text_pairs(n, seed=args.seed)
    sub = max(n // 10, 500)
    pairs = list(zip(exp[:sub], act[:sub], strict=True))
    r1 = rouge_scorer.RougeScorer(["rouge1"])
    r2 = rouge_scorer.RougeScorer(["rouge2"])
    tok = [(e.split(), a.split()) for e, a in pairs]

    cases: list[tuple[str, Callable[[int], Any], Callable[[], Any], float]] = [
        (
            "token F1 / SQuAD compute_f1",
            lambda w: em.token_f1_batch(exp, act, workers=w),
            lambda: [oracles.squad_compute_f1(e, a) for e, a in pairs],
            80.0,
        ),
        (
            "SQuAD exact / compute_exact",
            lambda w: em.squad_exact_match_batch(exp, act, workers=w),
            lambda: [squad_exact(e, a) for e, a in pairs],
            30.0,
        ),
        (
            "ROUGE-1 F / rouge-score",
            lambda w: em.rouge_n_batch(exp, act, n=1, workers=w),
            lambda: [r1.score(e, a)["rouge1"].fmeasure for e, a in pairs],
            100.0,
        ),
        (
            "ROUGE-2 F / rouge-score",
            lambda w: em.rouge_n_batch(exp, act, n=2, workers=w),
            lambda: [r2.score(e, a)["rouge2"].fmeasure for e, a in pairs],
            100.0,
        ),
        (
            "GLEU / nltk sentence_gleu",
            lambda w: em.gleu_batch(exp, act, workers=w),
            lambda: [sentence_gleu([e], a) for e, a in tok],
            30.0,
        ),
    ]
    print(f"{n:,} pairs (workload seed {args.seed}); references on {sub:,}; best of {ROUNDS}")
    head = f"{'kernel':<30} {'ours ns/pair':>12} {'ref ns/pair':>12} {'CPU ratio':>9} {'goal':>5}"
    print(head + f" {'wall 1w ms':>10} {'wall 2w ms':>10} {'2w gain':>7} {'caller':>6}")
    for name, ours, ref, goal in cases:
        ours(1)  # warm up
        cpu1, wall1, _ = best(functools.partial(ours, 1))
        _, wall2, caller = best(functools.partial(ours, 2))
        ref_cpu, _, _ = best(ref)
        ours_ns, ref_ns = cpu1 / n * 1e9, ref_cpu / sub * 1e9
        print(
            f"{name:<30} {ours_ns:>12.0f} {ref_ns:>12.0f} {ref_ns / ours_ns:>9.1f} {goal:>5.0f}"
            f" {wall1 * 1e3:>10.1f} {wall2 * 1e3:>10.1f} {wall1 / wall2:>7.2f} {caller:>6.0%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
