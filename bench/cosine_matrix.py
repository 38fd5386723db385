"""Benchmark of cosine_matrix and cosine_top_k against NumPy's matrix product of normalised rows.

    .venv/bin/python bench/cosine_matrix.py [--dim 384] [--repeat 5] [--seed 7]

For 300 x 3,000 and 3,000 x 3,000 rows of ``--dim`` components (the shared workload's
embedding-like vectors), in float64 and float32, with every thread on both sides, times:

- evalmark ``cosine_matrix`` (float64 result, accumulated in float64, identical bits for any
  thread count);
- NumPy: normalise the rows in the input dtype, then ``q @ c.T`` (BLAS, same dtype: a float32
  product accumulates in float32 and returns float32);
- for float32 input, also NumPy with the rows widened to float64 first (the like-for-like
  peer: the same precision as evalmark's result);
- ``cosine_top_k(k=10)`` beside ``argpartition`` over NumPy's product.

Each figure is the best of ``--repeat`` runs; ratios are NumPy's time / evalmark's time, so
above 1.0 means evalmark is faster: the wall-clock ratio, and beside it the ratio of the CPU
time the process spent (all threads), which swings less when other work shares the machine.
On a busy machine, run it twice and read the ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import evalmark.metrics as em
from workload import vectors


def best(f: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """The shortest of ``repeat`` wall-clock timings of ``f()`` and the shortest CPU time of
    the process (all threads), in seconds."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        f()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def line(name: str, ours: tuple[float, float], theirs: tuple[float, float]) -> str:
    """One row: both wall times, the wall ratio and the CPU-time ratio."""
    return (
        f"{name:<44}{ours[0] * 1e3:>9.1f}ms{theirs[0] * 1e3:>9.1f}ms"
        f"{theirs[0] / ours[0]:>8.2f}{theirs[1] / ours[1]:>8.2f}"
    )


def numpy_cosines(q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """NumPy's matrix product of the normalised rows, in the inputs' dtype."""
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    cn = c / np.linalg.norm(c, axis=1, keepdims=True)
    return qn @ cn.T


def numpy_top_k(q: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """The k best columns of each row of NumPy's product (unordered, ties arbitrary)."""
    return np.argpartition(-numpy_cosines(q, c), k, axis=1)[:, :k]


def main() -> None:
    """Print one line per shape and dtype with both timings and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    a, b = vectors(3000, args.dim, seed=args.seed)
    print(f"{'case':<44}{'evalmark':>11}{'numpy':>11}{'ratio':>8}{'cpu':>8}")
    for dtype in (np.float64, np.float32):
        for rows in (300, 3000):
            q, c = a[:rows].astype(dtype), b.astype(dtype)
            name = f"{rows}x{len(c)} {np.dtype(dtype).name}"
            ours = best(partial(em.cosine_matrix, q, c), args.repeat)
            peers = [("", partial(numpy_cosines, q, c))]
            if dtype == np.float32:
                q64, c64 = q.astype(np.float64), c.astype(np.float64)
                peers.append((" vs f64 peer", partial(numpy_cosines, q64, c64)))
            for label, peer in peers:
                print(line("cosine_matrix " + name + label, ours, best(peer, args.repeat)))
            ours = best(partial(em.cosine_top_k, q, c, 10), args.repeat)
            theirs = best(partial(numpy_top_k, q, c, 10), args.repeat)
            print(line("cosine_top_k 10 " + name, ours, theirs))


if __name__ == "__main__":
    main()
