"""Monte Carlo of gates: run the suite's judged checks many times with a seeded noisy judge.

Under the independent model with one call per check (the fast path), every judged check of every
run gets one 32-bit draw from a Philox counter-based generator keyed by the seed. Run ``r`` reads
the counter block that starts at ``r`` times the blocks per run, so its draws do not depend on
how runs are split into chunks or on how many threads take them.
The same seed gives the same draws for every build and every noise level over suites of the same
shape (common random numbers): a flip at a lower rate is also a flip at any higher rate.
A flip happens when the draw is below ⌈p·2³²⌉ (p the check's false-fail rate if it truly passes,
its false-pass rate if it truly fails), so a rate is rounded up to a multiple of 2⁻³² (an error
below 2.4·10⁻¹⁰, far under any Monte Carlo error).

Correlated errors, repeated calls and rates drawn from their posterior take the general path,
which follows the model step by step: runs come in fixed blocks of 1024, each block reading its
own Philox stream (the counter starts at the block's index times 2¹²⁸), so again the counts
depend on neither threads nor chunking. In each run it draws, when asked, the judge's two rates
from their Beta posteriors; then each case's error probability θ from Beta(rate, ρ) (one θ per
case for its truly passing checks, one for its truly failing ones, one per check with a rate of
its own); then the number of wrong calls of each judged check, Binomial(k, θ), and the majority
verdict (a tie fails).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise._exact import RatesLike, check_repeats
from evalmark.noise._gates import Gate, make_gates
from evalmark.noise._rates import ErrorRates, JudgeRates, as_error_rates
from evalmark.noise._suite import BuildTruth, Case, Check

_DRAWS_PER_BLOCK = 8  # Philox4x64 yields four 64-bit words, eight 32-bit draws, per counter
_DRAW_RANGE = 1 << 32
_DRAWS_PER_CHUNK = 1 << 21  # about 8 MB of draws per chunk and thread
_BLOCK_RUNS = 1024  # runs per Philox stream on the general path


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
    suite: BuildTruth,
    rates: RatesLike | None = None,
    thresholds: Sequence[float] | None = None,
    *,
    repeats: int = 1,
    draw_rates: bool = False,
    runs: int = 10_000,
    seed: int = 0,
    workers: int | None = None,
    chunk_runs: int | None = None,
) -> GateSimulation:
    """Simulate ``runs`` runs of the suite with a noisy judge and count how often each gate fails.

    ``rates``: ``ErrorRates``, measured ``JudgeRates`` or a flip rate (as for ``gate_risk``);
    ``repeats``: judge calls per judged check, decided by majority. ``draw_rates`` (with
    ``JudgeRates``): draw the two rates of each run from their posteriors, so the failure rates
    estimate the posterior mean of the risk. The counts depend only on the suite, the model,
    ``runs`` and ``seed``: never on ``workers`` (threads, default: all cores) or ``chunk_runs``
    (runs drawn at once on the fast path, default: about two million draws' worth).
    """
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}")
    if chunk_runs is not None and (
        isinstance(chunk_runs, bool) or not isinstance(chunk_runs, int) or chunk_runs < 1
    ):
        raise ValueError(f"chunk_runs must be a positive integer or None, got {chunk_runs!r}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be a positive integer or None, got {workers!r}")
    repeats = check_repeats(repeats)
    if draw_rates and not isinstance(rates, JudgeRates):
        raise ValueError(f"draw_rates=True needs JudgeRates (counts) as rates, got {rates!r}")
    gates = make_gates(len(suite), thresholds)
    key = _philox_key(seed)
    model = None if rates is None else as_error_rates(rates, "rates")
    if repeats > 1 or draw_rates or (model is not None and model.overdispersion >= 1e-15):
        general = _general_plan(suite, model, repeats)
        posterior = rates if draw_rates and isinstance(rates, JudgeRates) else None
        blocks = [(s, min(_BLOCK_RUNS, runs - s)) for s in range(0, runs, _BLOCK_RUNS)]
        histogram = _run_jobs(
            lambda job: _simulate_block(general, posterior, key, *job), blocks, len(suite), workers
        )
        return _result(gates, histogram, runs, seed)
    plan = _plan(suite, model)
    if chunk_runs is None:
        chunk_runs = max(1, _DRAWS_PER_CHUNK // max(plan.width * plan.depth, 1))
    jobs = [(start, min(chunk_runs, runs - start)) for start in range(0, runs, chunk_runs)]
    histogram = _run_jobs(lambda job: _simulate_chunk(plan, key, *job), jobs, plan.cases, workers)
    return _result(gates, histogram, runs, seed)


def _run_jobs(
    work: Callable[[tuple[int, int]], npt.NDArray[np.int64]],
    jobs: Sequence[tuple[int, int]],
    cases: int,
    workers: int | None,
) -> npt.NDArray[np.int64]:
    """The sum of the jobs' histograms (integer sums: the same whatever the order)."""
    threads = min(workers or os.cpu_count() or 1, len(jobs))
    histogram = np.zeros(cases + 1, dtype=np.int64)
    if threads == 1:
        for job in jobs:
            histogram += work(job)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for part in pool.map(work, jobs):
                histogram += part
    return histogram


def _result(
    gates: Sequence[Gate], histogram: npt.NDArray[np.int64], runs: int, seed: int
) -> GateSimulation:
    below = np.concatenate(([0], np.cumsum(histogram)))
    return GateSimulation(
        runs=runs,
        seed=seed,
        gates=tuple(SimulatedGate(g, int(below[g.min_passing]), runs) for g in gates),
        passing_histogram=tuple(int(c) for c in histogram.tolist()),
    )


def _check_rate(check: Check, case: Case, model: ErrorRates | None) -> float:
    if check.flip_rate is not None:
        return check.flip_rate
    if model is None:
        raise ValueError(
            f"judged check {check.name!r} of case {case.name!r} has no flip_rate of its own: "
            "pass flip_rate= (or rates=) to set the judge's noise level"
        )
    return model.rate_for(check.passes)


def _plan(suite: BuildTruth, model: ErrorRates | None) -> _Plan:
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
            p = _check_rate(check, case, model)
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


@dataclass(frozen=True, slots=True)
class _GeneralPlan:
    """The suite laid out for the general path.

    Slots are the error probabilities drawn per run: for each case with judged checks, one for
    its truly passing checks and one for its truly failing ones (means: the false-fail and the
    false-pass rate), and one per check with a rate of its own. Columns are the judged checks,
    grouped by case; ``starts`` gives each case's first column.
    """

    cases: int
    repeats: int
    overdispersion: float
    slot_kind: npt.NDArray[np.int8]  # 0: the false-fail rate, 1: the false-pass rate, 2: own rate
    slot_rate: npt.NDArray[np.float64]  # the slot's mean (own rate, or the model's point rate)
    column_slot: npt.NDArray[np.intp]
    column_passes: npt.NDArray[np.bool_]
    starts: npt.NDArray[np.intp]
    constant_failures: int


def _general_plan(suite: BuildTruth, model: ErrorRates | None, repeats: int) -> _GeneralPlan:
    slot_kind: list[int] = []
    slot_rate: list[float] = []
    column_slot: list[int] = []
    column_passes: list[bool] = []
    starts: list[int] = []
    constant_failures = 0
    for case in suite.cases:
        judged = [check for check in case.checks if check.judged]
        if any(not c.passes for c in case.checks if not c.judged) or not judged:
            constant_failures += any(not c.passes for c in case.checks if not c.judged)
            continue
        starts.append(len(column_slot))
        shared: dict[bool, int] = {}
        for check in judged:
            rate = _check_rate(check, case, model)
            if check.flip_rate is not None:
                slot_kind.append(2)
                slot_rate.append(rate)
                column_slot.append(len(slot_kind) - 1)
            else:
                if check.passes not in shared:
                    shared[check.passes] = len(slot_kind)
                    slot_kind.append(0 if check.passes else 1)
                    slot_rate.append(rate)
                column_slot.append(shared[check.passes])
            column_passes.append(check.passes)
    return _GeneralPlan(
        cases=len(suite),
        repeats=repeats,
        overdispersion=0.0 if model is None else model.overdispersion,
        slot_kind=np.array(slot_kind, dtype=np.int8),
        slot_rate=np.array(slot_rate, dtype=np.float64),
        column_slot=np.array(column_slot, dtype=np.intp),
        column_passes=np.array(column_passes, dtype=np.bool_),
        starts=np.array(starts, dtype=np.intp),
        constant_failures=constant_failures,
    )


def _simulate_block(
    plan: _GeneralPlan, posterior: JudgeRates | None, key: int, start: int, count: int
) -> npt.NDArray[np.int64]:
    """The histogram of passing cases over the ``count`` runs of the block starting at ``start``."""
    histogram = np.zeros(plan.cases + 1, dtype=np.int64)
    if plan.column_slot.size == 0:
        histogram[plan.cases - plan.constant_failures] = count
        return histogram
    block = start // _BLOCK_RUNS
    generator = np.random.Generator(np.random.Philox(key=key, counter=block << 128))
    means = np.broadcast_to(plan.slot_rate, (count, plan.slot_rate.size)).copy()
    if posterior is not None:
        false_fail = generator.beta(posterior.false_fail.alpha, posterior.false_fail.beta, count)
        false_pass = generator.beta(posterior.false_pass.alpha, posterior.false_pass.beta, count)
        shared_ff = plan.slot_kind == 0
        shared_fp = plan.slot_kind == 1
        means[:, shared_ff] = false_fail[:, None]
        means[:, shared_fp] = false_pass[:, None]
    theta = means
    if plan.overdispersion >= 1e-15:  # below, the Beta is a point (as in the exact model)
        theta = _draw_theta(generator, means, plan.overdispersion)
    wrong = generator.binomial(plan.repeats, theta[:, plan.column_slot])
    k = plan.repeats
    reported_pass = np.where(plan.column_passes, wrong < k - wrong, wrong > k - wrong)
    failing_checks = np.add.reduceat((~reported_pass).astype(np.int32), plan.starts, axis=1)
    failing = np.count_nonzero(failing_checks, axis=1) + plan.constant_failures
    histogram += np.bincount(plan.cases - failing, minlength=plan.cases + 1)
    return histogram


def _draw_theta(
    generator: np.random.Generator, means: npt.NDArray[np.float64], overdispersion: float
) -> npt.NDArray[np.float64]:
    """Each slot's error probability for each run: Beta(mean, ρ); 0 and 1 stay as they are."""
    if overdispersion >= 1.0:  # θ is 1 with probability the mean, else 0
        return (generator.random(means.shape) < means).astype(np.float64)
    inner = (means > 0.0) & (means < 1.0)
    size = 1.0 / overdispersion - 1.0  # α + β
    centred = np.where(inner, means, 0.5)
    drawn = generator.beta(centred * size, (1.0 - centred) * size)
    return np.where(inner, drawn, means)
