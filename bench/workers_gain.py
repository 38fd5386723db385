"""The gain of a second worker on every batch kernel, as it would be on an idle machine.

    python bench/workers_gain.py              # 20,000 text pairs, 2,000 BERTScore pairs
    python bench/workers_gain.py --n 5000

A wall-time gain measured on a shared two-core machine says more about the other processes than
about the kernel: when a third process runs, two workers cannot run at once. This bench reads
instead how long each thread of this process was on a CPU during the call (Linux's
``/proc/self/task/*/schedstat``, in nanoseconds), for one worker and for two. The calling
thread's time is serial work (converting inputs and building the result under the GIL); the
workers' times show whether the rows were shared out evenly and whether two threads cost more
CPU than one (memory bandwidth, a shared cache). The rows are cut into 8 blocks a thread and
an idle worker takes the next block, so on an idle machine the two workers share the work
about evenly and a call lasts about the calling thread's time plus half the workers' time:

    idle gain = (caller + worker, 1 worker) / (caller + (worker + worker) / 2, 2 workers).

On a busy machine the split itself follows the load (a worker that waits for a CPU takes fewer
blocks), so "as split", the same with the busiest worker's time, is a pessimistic bound, not
the kernel's. Printed beside them: the wall-time gain of the same run, for comparison. Best of
five calls each (the least CPU). Inputs come from bench/workload.py, the shared generator.
Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402
from limits import KERNELS  # noqa: E402

ROUNDS = 5
TASKS = Path(f"/proc/{os.getpid()}/task")


def on_cpu() -> dict[str, int]:
    """Nanoseconds each thread of this process has run so far, by thread id."""
    out = {}
    for task in TASKS.iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):  # the thread ended meanwhile
            out[task.name] = int((task / "schedstat").read_text().split()[0])
    return out


def split(fn: Callable[[], Any]) -> tuple[float, list[float], float]:
    """(calling thread's CPU seconds, each other thread's, wall seconds) of the call of the
    ``ROUNDS`` that took the least CPU."""
    me = str(threading.get_native_id())  # its name under /proc
    best: tuple[float, list[float], float] | None = None
    for _ in range(ROUNDS):
        gc.collect()
        before, start = on_cpu(), time.perf_counter()
        fn()
        wall, after = time.perf_counter() - start, on_cpu()
        spent = {t: (ns - before.get(t, 0)) / 1e9 for t, ns in after.items()}
        caller = spent.pop(me, 0.0)
        workers = sorted((s for s in spent.values() if s > 1e-5), reverse=True)
        if best is None or caller + sum(workers) < best[0] + sum(best[1]):
            best = (caller, workers, wall)
    assert best is not None
    return best


def cases(n: int) -> dict[str, Callable[[int], Any]]:
    """Every batch kernel of bench/limits.py, GLEU, METEOR and BERTScore, by name."""
    text = workload.text_pairs(n)
    docs = workload.json_pairs(n)
    out: dict[str, Callable[[int], Any]] = {
        name: (lambda w, k=kernel, p=(docs if name == "json_match" else text): k(*p, w))
        for name, kernel in KERNELS.items()
    }
    exp, act = text
    out["gleu"] = lambda w: em.gleu_batch(exp, act, workers=w)
    out["corpus_gleu"] = lambda w: em.corpus_gleu(exp, act, workers=w)
    out["meteor"] = lambda w: em.meteor_batch(exp, act, workers=w)
    rng = np.random.default_rng(7)
    for dim, pairs in ((64, 2000), (768, 200)):
        e = [rng.normal(size=(len(t.split()), dim)) for t in exp[:pairs]]
        a = [rng.normal(size=(len(t.split()), dim)) for t in act[:pairs]]
        out[f"bertscore {dim}-d"] = lambda w, e=e, a=a: em.bertscore_batch(e, a, workers=w)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print one row per kernel: the CPU split of one and two workers and the two gains."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="text pairs per kernel")
    n = parser.parse_args(argv).n
    if not TASKS.is_dir() or not on_cpu():
        print("needs Linux's /proc/<pid>/task/*/schedstat")
        return 0
    print(f"{n:,} text pairs; BERTScore on 2,000 (64-d) and 200 (768-d); CPU ms, best of {ROUNDS}")
    print(
        f"{'kernel':<22}{'1w caller':>10}{'1w worker':>10}{'2w caller':>10}{'2w workers':>16}"
        f"{'CPU 2w/1w':>10}{'idle gain':>10}{'as split':>9}{'wall gain':>10}"
    )
    for name, run in cases(n).items():
        run(1), run(2)  # warm up: the pools start, the pages are touched
        c1, w1, wall1 = split(functools.partial(run, 1))
        c2, w2, wall2 = split(functools.partial(run, 2))
        one, two = c1 + sum(w1), c2 + sum(w2)
        idle = one / (c2 + sum(w2) / 2)
        as_split = one / (c2 + (w2[0] if w2 else 0.0))
        shares = "/".join(f"{s * 1e3:.1f}" for s in w2[:2]) or "-"
        print(
            f"{name:<22}{c1 * 1e3:>10.1f}{sum(w1) * 1e3:>10.1f}{c2 * 1e3:>10.1f}{shares:>16}"
            f"{two / one:>10.2f}{idle:>10.2f}{as_split:>9.2f}{wall1 / wall2:>10.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
