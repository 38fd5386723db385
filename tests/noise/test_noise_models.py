"""Asymmetric, correlated and repeated judge calls: exact risk against scipy.stats and brute
force, and the seeded Monte Carlo of every model against the exact values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from evalmark.noise import (
    BuildTruth,
    Case,
    Check,
    ErrorRates,
    JudgeRates,
    RateCounts,
    builds_from_counts,
    gate_risk,
    posterior_rows,
    simulate_gates,
)
from evalmark.noise._exact import case_pass_probabilities, passing_distribution, suite_distribution
from evalmark.noise._gates import make_gates


def beta_of(mean: float, rho: float) -> tuple[float, float]:
    size = 1 / rho - 1
    return mean * size, (1 - mean) * size


def risks(
    suite: BuildTruth, rates: object, thresholds: list[float], repeats: int = 1
) -> list[float]:
    return [r.fails for r in gate_risk(suite, rates, thresholds, repeats=repeats)]  # type: ignore[arg-type]


# --------------------------------------------------------------------------- exact values


def test_flip_rate_and_equal_error_rates_are_the_same_model() -> None:
    _, regressed = builds_from_counts(30, 2, failing=4, deterministic_checks=1)
    assert risks(regressed, 0.07, [1.0, 0.9, 0.8]) == risks(
        regressed, ErrorRates.flip(0.07), [1.0, 0.9, 0.8]
    )


@given(
    n=st.integers(1, 60),
    judged=st.integers(1, 4),
    fail_rate=st.floats(0.0, 0.5),
    t=st.floats(0.0, 1.0),
)
def test_healthy_build_under_asymmetric_rates_is_binomial(
    n: int, judged: int, fail_rate: float, t: float
) -> None:
    """Only the false-fail rate can fail a healthy build: cases pass with (1 - ff)^J."""
    healthy, _ = builds_from_counts(n, judged)
    gate = make_gates(n, [t])[0]
    q = (1 - fail_rate) ** judged
    expected = stats.binom.cdf(gate.min_passing - 1, n, q) if gate.min_passing else 0.0
    got = risks(healthy, ErrorRates(0.9, fail_rate), [t])[0]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-13)


@given(
    n=st.integers(1, 40),
    judged=st.integers(1, 5),
    mean=st.floats(0.001, 0.6),
    rho=st.floats(0.01, 0.95),
    t=st.floats(0.0, 1.0),
)
def test_correlated_errors_give_beta_binomial_case_probabilities(
    n: int, judged: int, mean: float, rho: float, t: float
) -> None:
    """A healthy case passes when none of its J judged checks errs: betabinom(J).pmf(0)."""
    healthy, _ = builds_from_counts(n, judged)
    a, b = beta_of(mean, rho)
    q = stats.betabinom.pmf(0, judged, a, b)
    (probability,) = set(case_pass_probabilities(healthy, ErrorRates(0.2, mean, rho)))
    assert probability == pytest.approx(q, rel=1e-9)
    gate = make_gates(n, [t])[0]
    expected = stats.binom.cdf(gate.min_passing - 1, n, q) if gate.min_passing else 0.0
    assert risks(healthy, ErrorRates(0.2, mean, rho), [t])[0] == pytest.approx(
        expected, rel=1e-8, abs=1e-13
    )


@given(
    k=st.integers(1, 9),
    mean=st.floats(0.001, 0.7),
    rho=st.one_of(st.just(0.0), st.floats(1e-9, 0.95)),
)
def test_majority_of_k_calls_is_beta_binomial_in_the_wrong_calls(
    k: int, mean: float, rho: float
) -> None:
    """One judged check: it reports pass when fewer than half its k calls are wrong (true pass)
    or more than half are (true fail); ties fail, as the majority reducer decides."""
    good = BuildTruth((Case("c", (Check("j", True, judged=True),)),))
    bad = BuildTruth((Case("c", (Check("j", False, judged=True),)),))
    rates = ErrorRates(mean, mean, rho)
    (p_good,) = case_pass_probabilities(good, rates, repeats=k)
    (p_bad,) = case_pass_probabilities(bad, rates, repeats=k)
    exact = [float(p) for p in _exact_wrong_calls(k, mean, rho)]
    assert p_good == pytest.approx(math.fsum(exact[: (k - 1) // 2 + 1]), rel=1e-12, abs=1e-300)
    assert p_bad == pytest.approx(math.fsum(exact[k // 2 + 1 :]), rel=1e-12, abs=1e-300)
    if 0 < rho < 1e-3:
        return  # scipy's betabinom loses digits when α + β is large (1e-5 relative seen)
    wrong = stats.binom(k, mean) if rho == 0 else stats.betabinom(k, *beta_of(mean, rho))
    assert p_good == pytest.approx(wrong.cdf((k - 1) // 2), rel=1e-5, abs=1e-10)
    assert p_bad == pytest.approx(wrong.sf(k // 2), rel=1e-5, abs=1e-10)


def _exact_wrong_calls(k: int, mean: float, rho: float) -> list[Fraction]:
    """P(w of k calls are wrong) in exact rational arithmetic on the floats given."""
    m, r = Fraction(mean), Fraction(rho)
    if r == 0:
        return [math.comb(k, w) * m**w * (1 - m) ** (k - w) for w in range(k + 1)]
    size = 1 / r - 1
    a, b = m * size, (1 - m) * size

    def rising(x: Fraction, n: int) -> Fraction:
        value = Fraction(1)
        for i in range(n):
            value *= x + i
        return value

    return [
        math.comb(k, w) * rising(a, w) * rising(b, k - w) / rising(a + b, k) for w in range(k + 1)
    ]


def test_overdispersion_limits() -> None:
    healthy, _ = builds_from_counts(20, 3)
    plain = risks(healthy, ErrorRates(0.1, 0.1), [1.0, 0.9, 0.8], repeats=3)
    nearly = risks(healthy, ErrorRates(0.1, 0.1, 1e-9), [1.0, 0.9, 0.8], repeats=3)
    assert nearly == pytest.approx(plain, rel=1e-6)
    # rho = 1: each case is always or never got wrong, whatever the number of checks or calls
    (q,) = set(case_pass_probabilities(healthy, ErrorRates(0.1, 0.1, 1.0), repeats=5))
    assert q == pytest.approx(0.9)
    assert set(case_pass_probabilities(healthy, ErrorRates(0.1, 0.0, 0.5))) == {1.0}


def _wrong_at_most(k: int, limit: int, theta: float) -> float:
    return math.fsum(math.comb(k, w) * theta**w * (1 - theta) ** (k - w) for w in range(limit + 1))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_mixed_case_probability_is_the_beta_expectation_by_quadrature(k: int) -> None:
    """Two truly passing and one truly failing judged check in one case, correlated errors: the
    case's two error rates are independent Beta draws, so the exact value is a product of two
    integrals over their densities (computed by scipy's quadrature)."""
    case = Case(
        "mixed",
        (
            Check("a", True, judged=True),
            Check("b", True, judged=True),
            Check("c", False, judged=True),
            Check("d", True),
        ),
    )
    (exact,) = case_pass_probabilities(BuildTruth((case,)), ErrorRates(0.15, 0.05, 0.2), repeats=k)
    ff_a, ff_b = beta_of(0.05, 0.2)
    fp_a, fp_b = beta_of(0.15, 0.2)
    log_ff = -math.lgamma(ff_a) - math.lgamma(ff_b) + math.lgamma(ff_a + ff_b)
    log_fp = -math.lgamma(fp_a) - math.lgamma(fp_b) + math.lgamma(fp_a + fp_b)

    def passing(theta: float) -> float:  # both passing checks report pass
        density = math.exp(log_ff + (ff_a - 1) * math.log(theta) + (ff_b - 1) * math.log1p(-theta))
        return _wrong_at_most(k, (k - 1) // 2, theta) ** 2 * density

    def failing(theta: float) -> float:  # the failing check reports pass
        density = math.exp(log_fp + (fp_a - 1) * math.log(theta) + (fp_b - 1) * math.log1p(-theta))
        return (1 - _wrong_at_most(k, k // 2, theta)) * density

    first, _ = integrate.quad(passing, 0, 1, epsabs=1e-13, limit=200)
    second, _ = integrate.quad(failing, 0, 1, epsabs=1e-13, limit=200)
    assert exact == pytest.approx(first * second, rel=1e-6)


checks = st.builds(
    Check,
    name=st.just("c"),
    passes=st.booleans(),
    judged=st.booleans(),
    flip_rate=st.one_of(st.none(), st.floats(0.0, 1.0)),
)
small_suites = st.lists(st.lists(checks, min_size=1, max_size=3), min_size=1, max_size=4).filter(
    lambda cases: sum(c.judged for case in cases for c in case) <= 9
)


@given(cases=small_suites, fp=st.floats(0.0, 1.0), ff=st.floats(0.0, 1.0))
def test_asymmetric_rates_match_brute_force_enumeration(
    cases: list[list[Check]], fp: float, ff: float
) -> None:
    suite = BuildTruth(tuple(Case(f"case{i}", tuple(c)) for i, c in enumerate(cases)))
    judged = [(i, c) for i, case in enumerate(cases) for c in case if c.judged]
    pmf = [0.0] * (len(cases) + 1)
    for errs in itertools.product((False, True), repeat=len(judged)):
        probability = 1.0
        failing = set()
        for (i, check), err in zip(judged, errs, strict=True):
            rate = check.flip_rate if check.flip_rate is not None else (ff if check.passes else fp)
            probability *= rate if err else 1 - rate
            if check.passes == err:  # a passing check with an error, or a failing one without
                failing.add(i)
        for i, case in enumerate(cases):
            if any(not c.judged and not c.passes for c in case):
                failing.add(i)
        pmf[len(cases) - len(failing)] += probability
    got = suite_distribution(suite, ErrorRates(fp, ff))
    assert got.tolist() == pytest.approx(pmf, abs=1e-12)


def test_passing_distribution_matches_the_case_by_case_recurrence() -> None:
    rng = np.random.default_rng(2)
    probabilities = rng.random(300).round(2).tolist()  # many repeated values: kinds of case
    pmf = np.zeros(301)
    pmf[0] = 1.0
    for n, q in enumerate(probabilities, start=1):
        pmf[1 : n + 1] = pmf[1 : n + 1] * (1 - q) + pmf[:n] * q
        pmf[0] *= 1 - q
    assert passing_distribution(probabilities) == pytest.approx(pmf, abs=1e-14)


def test_ten_thousand_cases_and_every_gate_match_scipy() -> None:
    _, regressed = builds_from_counts(10_000, 2, failing=300, deterministic_checks=1)
    rates = ErrorRates(0.1, 0.01, 0.2)
    fails = [r.fails for r in gate_risk(regressed, rates)]  # every distinct gate, strictest first
    a, b = beta_of(0.01, 0.2)
    q_good = stats.betabinom.pmf(0, 2, a, b)  # two truly passing judged checks
    fa, fb = beta_of(0.1, 0.2)
    q_broken = stats.betabinom.pmf(1, 1, fa, fb) * stats.betabinom.pmf(0, 1, a, b)
    pmf = np.convolve(
        stats.binom.pmf(np.arange(9_701), 9_700, q_good),
        stats.binom.pmf(np.arange(301), 300, q_broken),
    )
    below = np.concatenate(([0.0], np.cumsum(pmf)[:-1]))
    expected = [below[k] for k in range(10_000, 0, -1)]
    assert fails == pytest.approx(expected, rel=1e-7, abs=1e-12)


# --------------------------------------------------------------------------- simulation


MODELS = [
    pytest.param(builds_from_counts(12, 2, failing=3)[1], ErrorRates(0.15, 0.04), 1, id="asym"),
    pytest.param(builds_from_counts(12, 2)[0], ErrorRates(0.1, 0.08, 0.4), 1, id="correlated"),
    pytest.param(builds_from_counts(20, 2, failing=4)[1], ErrorRates(0.2, 0.1), 3, id="repeats"),
    pytest.param(builds_from_counts(20, 3, failing=4)[1], ErrorRates(0.2, 0.1, 0.3), 3, id="both"),
    pytest.param(builds_from_counts(15, 1, failing=3)[1], ErrorRates(0.3, 0.2, 0.2), 4, id="even"),
    pytest.param(
        BuildTruth(
            (
                Case("a", (Check("j", True, judged=True), Check("k", False, judged=True))),
                Case("b", (Check("j", True, judged=True, flip_rate=0.3), Check("d", True))),
                Case("c", (Check("d", False), Check("j", True, judged=True))),
                Case("d", (Check("d", True),)),
            )
        ),
        ErrorRates(0.25, 0.1, 0.5),
        3,
        id="mixed shapes",
    ),
]


@pytest.mark.parametrize(("suite", "rates", "k"), MODELS)
def test_simulation_of_every_model_agrees_with_exact_within_three_standard_errors(
    suite: BuildTruth, rates: ErrorRates, k: int
) -> None:
    """Seeded, so deterministic; over seeds 0-9 no comparison exceeded 3 standard errors."""
    runs = 100_000
    thresholds = [1.0, 0.9, 0.8, 0.5]
    simulated = simulate_gates(suite, rates, thresholds, repeats=k, runs=runs, seed=0)
    exact = gate_risk(suite, rates, thresholds, repeats=k)
    for sim, risk in zip(simulated.gates, exact, strict=True):
        q = risk.fails
        tolerance = 3 * math.sqrt(max(q * (1 - q), 1e-12) / runs) + 1e-9
        assert abs(sim.rate - q) <= tolerance, (sim.gate.threshold, sim.rate, q)
    pmf = suite_distribution(suite, rates, repeats=k)
    histogram = np.array(simulated.passing_histogram) / runs
    for count, p in enumerate(pmf):
        if p * runs >= 20:  # rarer counts are Poisson, not normal: 3σ says nothing there
            assert abs(histogram[count] - p) <= 3 * math.sqrt(p * (1 - p) / runs), count


def test_simulation_with_rates_drawn_from_their_posterior_agrees_with_the_posterior_mean() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    measured = JudgeRates(RateCounts(6, 50), RateCounts(2, 60), 0.25)
    gates = make_gates(12, [1.0, 0.9, 0.8])
    rows = posterior_rows(healthy, regressed, measured, gates)
    runs = 100_000
    for build, key in ((healthy, "false_alarm"), (regressed, "miss")):
        sim = simulate_gates(build, measured, [1.0, 0.9, 0.8], draw_rates=True, runs=runs, seed=3)
        for s, row in zip(sim.gates, rows, strict=True):
            mean = getattr(row, key).mean
            observed = s.rate if key == "false_alarm" else 1 - s.rate
            tolerance = 3 * math.sqrt(max(mean * (1 - mean), 1e-12) / runs) + 2e-4  # grid error
            assert abs(observed - mean) <= tolerance, (key, s.gate.threshold, observed, mean)


@settings(max_examples=10, deadline=None)
@given(workers=st.integers(1, 3), seed=st.integers(0, 5))
def test_general_path_counts_do_not_depend_on_threads(workers: int, seed: int) -> None:
    _, regressed = builds_from_counts(30, 2, failing=5)
    rates = ErrorRates(0.2, 0.05, 0.3)
    one = simulate_gates(regressed, rates, repeats=3, runs=5_000, seed=seed, workers=1)
    many = simulate_gates(regressed, rates, repeats=3, runs=5_000, seed=seed, workers=workers)
    assert one == many


def test_general_path_seeds_differ_and_repeat() -> None:
    healthy, _ = builds_from_counts(30, 2)
    rates = ErrorRates(0.1, 0.1, 0.2)
    first = simulate_gates(healthy, rates, runs=3_000, seed=1)
    assert first == simulate_gates(healthy, rates, runs=3_000, seed=1)
    assert (
        first.passing_histogram
        != simulate_gates(healthy, rates, runs=3_000, seed=2).passing_histogram
    )


def test_asymmetric_fast_path_keeps_the_flip_draws() -> None:
    """Equal rates draw exactly what the flip model draws (same counts), so README figures hold."""
    _, regressed = builds_from_counts(12, 2, failing=3)
    assert simulate_gates(regressed, 0.03, runs=10_000) == simulate_gates(
        regressed, ErrorRates(0.03, 0.03), runs=10_000
    )


def test_simulation_arguments_are_checked() -> None:
    healthy, _ = builds_from_counts(3, 1)
    with pytest.raises(ValueError, match="repeats must be a whole number"):
        simulate_gates(healthy, 0.1, repeats=0)
    with pytest.raises(ValueError, match="draw_rates=True needs JudgeRates"):
        simulate_gates(healthy, 0.1, draw_rates=True)
    with pytest.raises(ValueError, match="repeats must be a whole number"):
        gate_risk(healthy, 0.1, repeats=True)  # type: ignore[arg-type]


def test_the_worked_example_of_the_docs() -> None:
    """docs/noise.md works these numbers out by hand; they must stay what evalmark computes."""
    healthy, regressed = builds_from_counts(10, 1, failing=2)
    lenient = ErrorRates(0.2, 0.05)

    def alarm_and_miss(rates: ErrorRates, k: int = 1) -> tuple[float, float]:
        alarm = gate_risk(healthy, rates, [0.9], repeats=k)[0].fails
        return round(alarm, 4), round(1 - gate_risk(regressed, rates, [0.9], repeats=k)[0].fails, 4)

    assert alarm_and_miss(lenient) == (0.0861, 0.2500)
    assert alarm_and_miss(ErrorRates.flip(0.05)) == (0.0861, 0.0654)
    assert alarm_and_miss(lenient, 3)[0] == 0.0023
    correlated = ErrorRates(0.2, 0.05, 0.3)
    assert alarm_and_miss(correlated, 3) == (0.0431, 0.2340)
    assert alarm_and_miss(correlated, 1) == (0.0861, 0.2500)
    good = BuildTruth((Case("c", (Check("j", True, judged=True),)),))
    (right,) = case_pass_probabilities(good, correlated, repeats=3)
    assert round(1 - right, 4) == 0.0339
    measured = JudgeRates(RateCounts(8, 40), RateCounts(2, 40))
    low, high = measured.false_fail.interval()
    assert (round(measured.false_fail.mean, 3), round(low, 3), round(high, 3)) == (
        0.061,
        0.011,
        0.151,
    )
    (row,) = posterior_rows(healthy, regressed, measured, make_gates(10, [0.9]))
    assert round(row.false_alarm.mean, 2) == 0.13
    assert (round(row.false_alarm.low, 3), round(row.false_alarm.high, 2)) == (0.005, 0.46)
