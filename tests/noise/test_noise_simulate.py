"""The seeded Monte Carlo: agreement with exact risk, invariance to chunking and threads, seeds."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.noise import BuildTruth, Case, Check, builds_from_counts, gate_risk, simulate_gates
from evalmark.noise._exact import case_pass_probabilities, passing_distribution


def mixed_suite() -> BuildTruth:
    """Cases of many shapes: deterministic failures, a truly failing judged check, own rates."""
    return BuildTruth(
        (
            Case("a", (Check("j1", True, judged=True), Check("j2", True, judged=True))),
            Case("b", (Check("j1", False, judged=True), Check("d", True))),
            Case("c", (Check("d", False), Check("j1", True, judged=True))),
            Case("d", (Check("d", True),)),
            Case("e", (Check("j1", True, judged=True, flip_rate=0.3),)),
            Case("f", tuple(Check(f"j{i}", True, judged=True) for i in range(5))),
            Case("g", (Check("d", False),)),
        )
    )


CONFIGURATIONS = [
    pytest.param(builds_from_counts(12, 2)[0], 0.03, id="12x2 healthy p=0.03"),
    pytest.param(builds_from_counts(12, 2, failing=3)[1], 0.08, id="12x2 regressed p=0.08"),
    pytest.param(builds_from_counts(100, 2, failing=10)[1], 0.03, id="100x2 regressed p=0.03"),
    pytest.param(builds_from_counts(30, 3, 5, deterministic_checks=2)[1], 0.2, id="30x3+2"),
    pytest.param(mixed_suite(), 0.1, id="mixed shapes"),
]


@pytest.mark.parametrize(("suite", "p"), CONFIGURATIONS)
def test_simulated_failure_rates_agree_with_exact_within_three_standard_errors(
    suite: BuildTruth, p: float
) -> None:
    """Deterministic for a given seed; over seeds 0-19 none of the 300 comparisons exceeded 3σ."""
    runs = 200_000
    thresholds = [1.0, 0.9, 0.8]
    simulated = simulate_gates(suite, p, thresholds, runs=runs, seed=0)
    exact = gate_risk(suite, p, thresholds)
    for sim, risk in zip(simulated.gates, exact, strict=True):
        q = risk.fails
        error = math.sqrt(q * (1 - q) / runs)
        assert abs(sim.rate - q) <= 3 * error + 1e-12, (sim.gate.label, sim.rate, q)


@pytest.mark.parametrize(("suite", "p"), CONFIGURATIONS)
def test_simulated_passing_counts_fit_the_exact_distribution(suite: BuildTruth, p: float) -> None:
    """A chi-square test of the whole histogram: all gates at once, no multiple comparisons."""
    runs = 200_000
    observed = simulate_gates(suite, p, runs=runs, seed=314).passing_histogram
    expected = passing_distribution(case_pass_probabilities(suite, p)) * runs
    statistic, bins, pooled_observed, pooled_expected = 0.0, 0, 0, 0.0
    for o, e in zip(observed, expected, strict=True):
        assert e > 0 or o == 0, "a count that cannot happen was simulated"
        pooled_observed += o
        pooled_expected += e
        if pooled_expected >= 5:
            statistic += (pooled_observed - pooled_expected) ** 2 / pooled_expected
            bins += 1
            pooled_observed, pooled_expected = 0, 0.0
    statistic += (pooled_observed - pooled_expected) ** 2 / max(pooled_expected, 1e-300)
    df = max(bins - 1, 1)
    # Wilson-Hilferty quantile of chi-square at 1 - 1e-4 (z = 3.719)
    limit = df * (1 - 2 / (9 * df) + 3.719 * math.sqrt(2 / (9 * df))) ** 3
    assert statistic <= limit, (statistic, limit, df)


@settings(max_examples=25)
@given(
    chunk_runs=st.integers(1, 3000),
    workers=st.integers(1, 4),
    runs=st.integers(1, 5000),
)
def test_counts_do_not_depend_on_chunk_size_or_thread_count(
    chunk_runs: int, workers: int, runs: int
) -> None:
    suite = mixed_suite()
    reference = simulate_gates(suite, 0.2, runs=runs, seed=7, chunk_runs=8192, workers=1)
    other = simulate_gates(suite, 0.2, runs=runs, seed=7, chunk_runs=chunk_runs, workers=workers)
    assert other == reference


def test_seeds_give_different_draws_and_the_same_seed_the_same() -> None:
    healthy, _ = builds_from_counts(12, 2)
    a = simulate_gates(healthy, 0.1, runs=2000, seed=1)
    b = simulate_gates(healthy, 0.1, runs=2000, seed=1)
    c = simulate_gates(healthy, 0.1, runs=2000, seed=2)
    assert a == b
    assert a.passing_histogram != c.passing_histogram


_CHILD = """
import json
from evalmark.noise import builds_from_counts, simulate_gates
_, regressed = builds_from_counts(40, 2, failing=4)
result = simulate_gates(regressed, 0.07, runs=30_000, seed=99, workers=2, chunk_runs=999)
print(json.dumps(result.passing_histogram))
"""


def test_another_process_draws_the_same_counts() -> None:
    _, regressed = builds_from_counts(40, 2, failing=4)
    here = simulate_gates(regressed, 0.07, runs=30_000, seed=99)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, timeout=120
    )
    assert tuple(json.loads(child.stdout)) == here.passing_histogram


def test_flip_rates_zero_and_one_are_exact() -> None:
    healthy, regressed = builds_from_counts(10, 2, failing=2)
    never = simulate_gates(healthy, 0.0, [1.0], runs=5000)
    assert never.gates[0].failed == 0
    always = simulate_gates(healthy, 1.0, [0.1], runs=5000)
    assert always.gates[0].failed == 5000
    # at p = 1 a truly failing judged check always reads as passing, but its partner fails
    assert simulate_gates(regressed, 1.0, [0.1], runs=100).passing_histogram[0] == 100


def test_a_case_failing_a_deterministic_check_never_passes() -> None:
    suite = BuildTruth((Case("a", (Check("d", False), Check("j", False, judged=True))),))
    assert simulate_gates(suite, 1.0, [1.0], runs=1000).gates[0].failed == 1000


def test_arguments_are_checked_with_their_names() -> None:
    healthy, _ = builds_from_counts(3, 1)
    with pytest.raises(ValueError, match="runs must be a positive integer"):
        simulate_gates(healthy, 0.1, runs=0)
    with pytest.raises(ValueError, match="chunk_runs must be a positive integer"):
        simulate_gates(healthy, 0.1, chunk_runs=0)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        simulate_gates(healthy, 0.1, workers=0)
    with pytest.raises(ValueError, match="seed must be an integer"):
        simulate_gates(healthy, 0.1, seed=1.5)  # type: ignore[arg-type]
