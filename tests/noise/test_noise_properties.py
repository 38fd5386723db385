"""Properties of the noise tools over generated suites: the seeded simulator's failure counts lie
in exact binomial intervals around the exact risk, and ``tune``'s recommendation never gets
stricter as the judge's flip rate grows."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from budget import examples
from evalmark.noise import (
    BuildTruth,
    Case,
    Check,
    builds_from_counts,
    gate_risk,
    simulate_gates,
    tune,
)

RUNS = 20_000
# Per comparison; over every comparison of a deep run (about 3000 suites x 3 gates) the chance
# of a false failure stays below one in a hundred thousand.
ALPHA = 1e-9


@st.composite
def checks(draw: st.DrawFn) -> Check:
    judged = draw(st.booleans())
    own = draw(st.none() | st.sampled_from([0.0, 0.05, 0.2, 0.5])) if judged else None
    return Check(draw(st.sampled_from(["a", "b", "c"])), draw(st.booleans()), judged, own)


@st.composite
def suites(draw: st.DrawFn) -> BuildTruth:
    cases = draw(st.lists(st.lists(checks(), min_size=1, max_size=3), min_size=1, max_size=12))
    return BuildTruth(tuple(Case(f"c{i}", tuple(found)) for i, found in enumerate(cases)))


THRESHOLDS = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=3)


@settings(max_examples=examples(30), deadline=None)
@given(suites(), st.floats(0.0, 0.4), THRESHOLDS, st.integers(0, 2**32 - 1))
def test_simulated_failures_lie_in_the_exact_binomial_interval_of_the_exact_risk(
    suite: BuildTruth, p: float, thresholds: list[float], seed: int
) -> None:
    simulated = simulate_gates(suite, p, thresholds, runs=RUNS, seed=seed)
    exact = gate_risk(suite, p, thresholds)
    for sim, risk in zip(simulated.gates, exact, strict=True):
        assert sim.gate == risk.gate and sim.runs == RUNS
        q = min(max(risk.fails, 0.0), 1.0)
        low, high = binom.interval(1 - ALPHA, RUNS, q)
        assert low <= sim.failed <= high, (sim.gate.label, sim.failed, q * RUNS)
        if q in (0.0, 1.0):  # a certain outcome is simulated exactly
            assert sim.failed == q * RUNS
    assert sum(simulated.passing_histogram) == RUNS


@example(cases=6, judged=1, failing=6, rates=[1e-06, 0.125])
@settings(max_examples=examples(100), deadline=None)
@given(
    st.integers(4, 30),
    st.integers(1, 3),
    st.integers(1, 30),
    st.lists(st.floats(0.0, 0.3), min_size=2, max_size=4, unique=True),
)
def test_the_gate_tune_allows_never_gets_stricter_as_the_flip_rate_grows(
    cases: int, judged: int, failing: int, rates: list[float]
) -> None:
    """For each gate the false-alarm rate grows with the flip rate, so the strictest gate within
    the false-alarm limit never gets stricter, and the recommendation is never stricter than it,
    misses the regression least among the allowed gates, and never gets stricter either.

    The example recommended 3 of 6 at a flip rate of 1e-6 and 4 of 6 at 0.125 while misses were
    compared as ``1 - P(regressed fails)``, which rounds every miss below 1e-16 to one number."""
    healthy, regressed = builds_from_counts(cases, judged, failing=min(failing, cases))
    thresholds = [k / cases for k in range(cases, 0, -1)]
    report = tune(healthy, regressed, sorted(rates), thresholds=thresholds, runs=0, max_cases=cases)
    strictest: list[int] = []
    chosen_gates: list[int] = []
    previous: dict[int, float] = {}
    for level in report.levels:
        rows = {row.gate.min_passing: row for row in level.rows}
        for k, row in rows.items():
            assert row.healthy_fails >= previous.get(k, 0.0) - 1e-12, (k, level.rates)
            previous[k] = row.healthy_fails
        allowed = [row for row in rows.values() if row.healthy_fails <= report.max_false_alarm]
        strictest.append(max((row.gate.min_passing for row in allowed), default=-1))
        chosen = level.recommendation
        if chosen.gate is None:
            assert not allowed
            continue
        assert chosen.gate.min_passing <= strictest[-1]
        assert chosen.false_alarm is not None and chosen.false_alarm <= report.max_false_alarm
        assert chosen.miss == min(row.miss for row in allowed)
        chosen_gates.append(chosen.gate.min_passing)
    assert strictest == sorted(strictest, reverse=True), (sorted(rates), strictest)
    assert chosen_gates == sorted(chosen_gates, reverse=True), (sorted(rates), chosen_gates)
