"""Benchmarks of the noise package: exact gate risk, and the gate Monte Carlo.

    .venv/bin/python bench/noise.py [--runs 1000000] [--cases 100] [--judged-checks 2]
                                    [--exact-cases 10000]

Exact risk: a regressed build of ``--exact-cases`` cases (3% truly failing on a judged check),
every distinct gate in one call, under three judge models, with ``evalmark.noise`` and with a
plain ``scipy.stats`` computation of the same numbers (each case's pass probability from
``scipy.stats.binom`` / ``betabinom``, the Poisson-binomial distribution case by case with
``numpy.convolve``, every gate's risk by a cumulative sum), in the same run; the script checks
the two agree and prints the ratio. A second scipy figure groups equal cases into binomials
first (what a careful hand-written version would do).

Monte Carlo: simulates a healthy build whose every check truly passes, at flip rate 0.03, with
``simulate_gates`` (vectorized numpy, Philox draws, threads) and with two plain-Python loops on
a smaller number of runs: one drawing from ``random.Random``, one drawing every verdict from
``evalmark.models._seeded.uniform`` as the seeded noisy judge does. Rates are per simulated
run, so the ratios compare equal work.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

import numpy as np
from scipy import stats

from evalmark.models._seeded import uniform
from evalmark.noise import BuildTruth, ErrorRates, builds_from_counts, gate_risk, simulate_gates
from evalmark.noise._exact import every_gate_risk

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


def _beta(mean: float, rho: float) -> tuple[float, float]:
    size = 1.0 / rho - 1.0
    return mean * size, (1.0 - mean) * size


def scipy_case_probabilities(suite: BuildTruth, rates: ErrorRates, repeats: int) -> np.ndarray:
    """Each case's pass probability with scipy.stats, for suites of one or more judged checks
    (one call each when repeats = 1; one judged check per case when repeats > 1)."""
    passing = np.array([sum(c.passes for c in case.checks if c.judged) for case in suite.cases])
    failing = np.array([sum(not c.passes for c in case.checks if c.judged) for case in suite.cases])
    forced = np.array(
        [any(not c.judged and not c.passes for c in case.checks) for case in suite.cases]
    )
    rho = rates.overdispersion
    if repeats == 1 and rho == 0.0:
        q = stats.binom.pmf(0, passing, rates.false_fail) * stats.binom.pmf(
            failing, failing, rates.false_pass
        )
    elif repeats == 1:
        q = stats.betabinom.pmf(0, passing, *_beta(rates.false_fail, rho)) * stats.betabinom.pmf(
            failing, failing, *_beta(rates.false_pass, rho)
        )
    else:  # one judged check per case, decided by the majority of `repeats` calls
        good = stats.betabinom.cdf((repeats - 1) // 2, repeats, *_beta(rates.false_fail, rho))
        bad = stats.betabinom.sf(repeats // 2, repeats, *_beta(rates.false_pass, rho))
        q = np.where(passing == 1, good, bad)
    return np.where(forced, 0.0, q)


def scipy_every_gate(suite: BuildTruth, rates: ErrorRates, repeats: int) -> np.ndarray:
    """P(fewer than k cases pass) for every k: scipy per case, convolved case by case."""
    pmf = np.ones(1)
    for q in scipy_case_probabilities(suite, rates, repeats).tolist():
        pmf = np.convolve(pmf, [1.0 - q, q])
    return np.concatenate(([0.0], np.cumsum(pmf)[:-1]))


def scipy_every_gate_grouped(suite: BuildTruth, rates: ErrorRates, repeats: int) -> np.ndarray:
    """The same with equal cases grouped into binomials (scipy.stats.binom.pmf) first."""
    values, counts = np.unique(scipy_case_probabilities(suite, rates, repeats), return_counts=True)
    pmf = np.ones(1)
    for q, n in zip(values.tolist(), counts.tolist(), strict=True):
        pmf = np.convolve(pmf, stats.binom.pmf(np.arange(n + 1), n, q))
    return np.concatenate(([0.0], np.cumsum(pmf)[:-1]))


def best_of(work: Callable[[], object], repeat: int = 3) -> float:
    return min(timed(work) for _ in range(repeat))


def exact_benchmark(cases: int) -> None:
    """Exact risk of every gate for a big suite: evalmark against plain scipy.stats."""
    failing = max(1, cases * 3 // 100)
    two_checks = builds_from_counts(cases, 2, failing=failing)[1]
    one_check = builds_from_counts(cases, 1, failing=failing)[1]
    models = [
        ("false pass 0.1, false fail 0.02", two_checks, ErrorRates(0.1, 0.02), 1),
        ("same, overdispersion 0.2", two_checks, ErrorRates(0.1, 0.02, 0.2), 1),
        ("overdispersion 0.2, majority of 3 calls", one_check, ErrorRates(0.1, 0.02, 0.2), 3),
    ]
    print(f"exact risk of every gate ({cases:,} gates), {cases:,}-case regressed build:")
    for label, suite, rates, repeats in models:
        ours = every_gate_risk(suite, rates, repeats=repeats)
        plain = scipy_every_gate(suite, rates, repeats)
        grouped = scipy_every_gate_grouped(suite, rates, repeats)
        worst = max(float(np.abs(ours - plain).max()), float(np.abs(ours - grouped).max()))
        if worst > 1e-9:
            raise SystemExit(f"{label}: evalmark and scipy disagree by {worst:.2e}")
        t_ours = best_of(lambda s=suite, r=rates, k=repeats: every_gate_risk(s, r, repeats=k))
        t_objects = best_of(lambda s=suite, r=rates, k=repeats: gate_risk(s, r, repeats=k))
        t_plain = best_of(lambda s=suite, r=rates, k=repeats: scipy_every_gate(s, r, k), 1)
        t_grouped = best_of(lambda s=suite, r=rates, k=repeats: scipy_every_gate_grouped(s, r, k))
        print(
            f"  {label}: every_gate_risk {t_ours * 1e3:.1f} ms, gate_risk (Gate objects) "
            f"{t_objects * 1e3:.1f} ms; scipy case by case {t_plain * 1e3:.0f} ms "
            f"(ratio {t_plain / t_ours:.0f}x), scipy grouped {t_grouped * 1e3:.1f} ms "
            f"(ratio {t_grouped / t_ours:.1f}x); largest difference {worst:.1e}"
        )


def main() -> None:
    """Run the benchmark and print runs per second and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--judged-checks", type=int, default=2)
    parser.add_argument("--python-runs", type=int, default=5_000)
    parser.add_argument("--exact-cases", type=int, default=10_000)
    args = parser.parse_args()
    exact_benchmark(args.exact_cases)
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
    seconds = time.perf_counter() - start
    print(f"exact gate_risk of the same suite, every gate: {seconds * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
