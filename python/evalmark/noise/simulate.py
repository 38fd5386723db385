"""Monte Carlo of gates: run the suite's judged checks many times with a seeded noisy judge.

Every judged check of every run gets one 32-bit draw from a Philox counter-based generator keyed
by the seed. Run ``r`` reads the counter block that starts at ``r`` times the blocks per run, so
its draws do not depend on how runs are split into chunks or on how many threads take them.
The same seed gives the same draws for every build and every noise level over suites of the same
shape (common random numbers): a flip at a lower rate is also a flip at any higher rate.
A flip happens when the draw is below ⌈p·2³²⌉, so a flip rate is rounded up to a multiple of
2⁻³² (an error below 2.4·10⁻¹⁰, far under any Monte Carlo error).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise.exact import effective_flip_rate
from evalmark.noise.gates import Gate, make_gates
from evalmark.noise.suite import Suite, check_flip_rate

_DRAWS_PER_BLOCK = 8  # Philox4x64 yields four 64-bit words, eight 32-bit draws, per counter
_DRAW_RANGE = 1 << 32
_DRAWS_PER_CHUNK = 1 << 21  # about 8 MB of draws per chunk and thread


@dataclass(frozen=True, slots=True)
class SimulatedGate:
    """A gate and how many simulated runs it failed."""

    gate: Gate
    failed: int
    runs: int

    @property
    def rate(self) -> float:
        """The fraction of runs the gate failed."""
        return self.failed / self.runs


@dataclass(frozen=True, slots=True)
class GateSimulation:
    """The outcome of ``simulate_gates``: per gate failure counts and the passing-case histogram."""

    runs: int
    seed: int
    gates: tuple[SimulatedGate, ...]
    passing_histogram: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """The suite laid out for drawing: one 32-bit draw per judged check and run.

    Columns are check-major: column ``j * width + i`` is the ``j``-th judged check of the ``i``-th
    case that has judged checks, so that a case fails when any of its ``depth`` column slices
    does. Cases with fewer judged checks are padded with columns that never fail.
    """

    cases: int
    width: int  # cases with judged checks
    depth: int  # most judged checks in one case
    thresholds: npt.NDArray[np.uint32]  # a draw below this flips the check
    fails_unflipped: npt.NDArray[np.bool_]  # the reported failure when the draw does not flip
    constant_failures: int  # cases without judged checks that fail on a deterministic one


def simulate_gates(
    suite: Suite,
    flip_rate: float | None = None,
    thresholds: Sequence[float] | None = None,
    *,
    runs: int = 10_000,
    seed: int = 0,
    workers: int | None = None,
    chunk_runs: int | None = None,
) -> GateSimulation:
    """Simulate ``runs`` runs of the suite with a noisy judge and count how often each gate fails.

    The counts depend only on the suite, the flip rates, ``runs`` and ``seed``: never on
    ``workers`` (threads, default: all cores) or ``chunk_runs`` (runs drawn at once, default:
    about two million draws' worth).
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    if chunk_runs is not None and (
        isinstance(chunk_runs, bool) or not isinstance(chunk_runs, int) or chunk_runs < 1
    ):
        raise ValueError(f"chunk_runs must be a positive integer or None, got {chunk_runs!r}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
    gates = make_gates(len(suite), thresholds)
    plan = _plan(suite, flip_rate)
    key = _philox_key(seed)
    if chunk_runs is None:
        chunk_runs = max(1, _DRAWS_PER_CHUNK // max(plan.width * plan.depth, 1))
    jobs = [(start, min(chunk_runs, runs - start)) for start in range(0, runs, chunk_runs)]
    threads = min(workers or os.cpu_count() or 1, len(jobs))
    histogram = np.zeros(plan.cases + 1, dtype=np.int64)
    if threads == 1:
        for start, count in jobs:
            histogram += _simulate_chunk(plan, key, start, count)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for part in pool.map(lambda job: _simulate_chunk(plan, key, *job), jobs):
                histogram += part
    below = np.concatenate(([0], np.cumsum(histogram)))
    return GateSimulation(
        runs=runs,
        seed=seed,
        gates=tuple(SimulatedGate(g, int(below[g.min_passing]), runs) for g in gates),
        passing_histogram=tuple(int(c) for c in histogram.tolist()),
    )


def _plan(suite: Suite, flip_rate: float | None) -> _Plan:
    if flip_rate is not None:
        flip_rate = check_flip_rate(flip_rate, "flip_rate")
    columns: list[list[tuple[int, bool]]] = []  # per case with judged checks: (threshold, fails)
    constant_failures = 0
    for case in suite.cases:
        forced = not all(check.passes for check in case.checks if not check.judged)
        judged = [check for check in case.checks if check.judged]
        if not judged:
            constant_failures += forced
            continue
        row = []
        for check in judged:
            where = f"judged check {check.name!r} of case {case.name!r}"
            p = effective_flip_rate(check.flip_rate, flip_rate, where)
            threshold, fails = math.ceil(math.ldexp(p, 32)), not check.passes
            if forced:  # drawn like any other column, but the case fails whatever the judge says
                threshold, fails = 0, True
            elif threshold >= _DRAW_RANGE:  # always flipped: reported opposite to the truth
                threshold, fails = 0, not fails
            row.append((threshold, fails))
        columns.append(row)
    depth = max((len(row) for row in columns), default=0)
    padded = [row + [(0, False)] * (depth - len(row)) for row in columns]
    check_major = [padded[i][j] for j in range(depth) for i in range(len(padded))]
    return _Plan(
        cases=len(suite),
        width=len(columns),
        depth=depth,
        thresholds=np.array([t for t, _ in check_major], dtype=np.uint32),
        fails_unflipped=np.array([f for _, f in check_major], dtype=np.bool_),
        constant_failures=constant_failures,
    )


def _philox_key(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    digest = hashlib.blake2b(str(seed).encode(), digest_size=16, person=b"evalmark-noise")
    return int.from_bytes(digest.digest(), "little")


def _simulate_chunk(plan: _Plan, key: int, start: int, count: int) -> npt.NDArray[np.int64]:
    """The histogram of passing cases over runs ``start .. start + count - 1``."""
    histogram = np.zeros(plan.cases + 1, dtype=np.int64)
    columns = plan.width * plan.depth
    if columns == 0:
        histogram[plan.cases - plan.constant_failures] = count
        return histogram
    blocks_per_run = -(-columns // _DRAWS_PER_BLOCK)
    stride = blocks_per_run * _DRAWS_PER_BLOCK
    generator = np.random.Philox(key=key, counter=start * blocks_per_run)
    words = generator.random_raw(count * stride // 2)
    draws = words.view(np.uint32).reshape(count, stride)[:, :columns]
    reported_fail = draws < plan.thresholds
    if plan.fails_unflipped.any():
        reported_fail ^= plan.fails_unflipped
    case_fail = reported_fail[:, : plan.width]
    for j in range(1, plan.depth):
        case_fail = case_fail | reported_fail[:, j * plan.width : (j + 1) * plan.width]
    failing = np.count_nonzero(case_fail, axis=1) + plan.constant_failures
    histogram += np.bincount(plan.cases - failing, minlength=plan.cases + 1)
    return histogram
