"""Benchmark of the gate Monte Carlo: simulated runs per second against plain-Python loops.

    .venv/bin/python bench/noise.py [--runs 1000000] [--cases 100] [--judged-checks 2]

Simulates a healthy build whose every check truly passes, at flip rate 0.03, with
``simulate_gates`` (vectorized numpy, Philox draws, threads) and with two plain-Python loops on a
smaller number of runs: one drawing from ``random.Random``, one drawing every verdict from
``evalmark.models.seeded.uniform`` as the seeded noisy judge does. Rates are per simulated
run, so the ratios compare equal work.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from evalmark.models.seeded import uniform
from evalmark.noise import builds_from_counts, gate_risk, simulate_gates

FLIP = 0.03


def python_loop_random(runs: int, cases: int, judged: int, seed: int) -> list[int]:
    """Passing-case histogram from a plain loop over runs, cases and checks."""
    rng = random.Random(seed)
    histogram = [0] * (cases + 1)
    for _ in range(runs):
        passing = 0
        for _ in range(cases):
            if all(rng.random() >= FLIP for _ in range(judged)):
                passing += 1
        histogram[passing] += 1
    return histogram


def python_loop_seeded(runs: int, cases: int, judged: int, seed: int) -> list[int]:
    """The same loop with one counter-based blake2b draw per verdict, like the noisy judge."""
    histogram = [0] * (cases + 1)
    for run in range(runs):
        passing = 0
        for case in range(cases):
            if all(uniform(seed, run, case, check) >= FLIP for check in range(judged)):
                passing += 1
        histogram[passing] += 1
    return histogram


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    """Run the benchmark and print runs per second and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--judged-checks", type=int, default=2)
    parser.add_argument("--python-runs", type=int, default=5_000)
    args = parser.parse_args()
    healthy, _ = builds_from_counts(args.cases, args.judged_checks)
    verdicts = args.cases * args.judged_checks
    print(
        f"suite: {args.cases} cases x {args.judged_checks} judged checks, flip rate {FLIP}, "
        f"{os.cpu_count()} cores"
    )

    simulate_gates(healthy, FLIP, [1.0], runs=10_000)  # warm up
    rates = {}
    for workers in (1, 2):
        start = time.perf_counter()
        simulate_gates(healthy, FLIP, runs=args.runs, workers=workers)
        seconds = time.perf_counter() - start
        rates[workers] = args.runs / seconds
        print(
            f"simulate_gates, {workers} thread(s): {args.runs:,} runs in {seconds:.2f} s = "
            f"{rates[workers]:,.0f} runs/s ({rates[workers] * verdicts / 1e6:,.0f} M verdicts/s)"
        )
    best = max(rates.values())

    n = args.python_runs
    loop_rate = n / timed(lambda: python_loop_random(n, args.cases, args.judged_checks, 1))
    print(f"plain Python loop, random.Random: {n:,} runs -> {loop_rate:,.0f} runs/s")
    m = max(n // 10, 1)
    seeded_rate = m / timed(lambda: python_loop_seeded(m, args.cases, args.judged_checks, 1))
    print(f"plain Python loop, seeded blake2b draws: {m:,} runs -> {seeded_rate:,.0f} runs/s")
    print(f"ratio simulate_gates / Python random loop: {best / loop_rate:,.0f}x")
    print(f"ratio simulate_gates / Python seeded loop: {best / seeded_rate:,.0f}x")
    print(f"thread scaling 2 vs 1: {rates[2] / rates[1]:.2f}x")

    start = time.perf_counter()
    gate_risk(healthy, FLIP)
    print(f"exact gate_risk, every distinct gate: {(time.perf_counter() - start) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
