"""The minimum detectable difference of ``compare``: checked against a closed form, a direct
enumeration of every outcome with scipy's binomial test, and a seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from evalmark.noise._compare import CaseOutcome, compare_builds, minimum_detectable_difference


def _model(n: int, delta: float, discordant: float) -> tuple[float, float]:
    psi = min(max(discordant, delta), 1.0)
    worse = min((psi + delta) / 2, psi)
    return worse, psi - worse


def _direct_power(n: int, worse: float, better: float, alpha: float) -> float:
    """Every (worse, better, unchanged) count of n cases, its multinomial probability, and
    whether scipy's exact binomial test on the changed cases rejects."""
    total = 0.0
    shares = [worse, better, 1 - worse - better]
    for w in range(n + 1):
        for b in range(n - w + 1):
            if w + b == 0:
                continue
            p_value = stats.binomtest(min(w, b), w + b, 0.5).pvalue
            if p_value <= alpha:
                total += stats.multinomial.pmf([w, b, n - w - b], n, shares)
    return total


@pytest.mark.parametrize(
    ("n", "discordant", "alpha", "power"),
    [(8, 0.0, 0.05, 0.8), (12, 0.25, 0.05, 0.8), (20, 0.4, 0.05, 0.8), (30, 0.1, 0.1, 0.9)],
)
def test_the_mdd_is_where_the_directly_computed_power_crosses(
    n: int, discordant: float, alpha: float, power: float
) -> None:
    mdd = minimum_detectable_difference(n, discordant, alpha=alpha, power=power)
    assert mdd is not None
    at = _direct_power(n, *_model(n, mdd, discordant), alpha)
    below = _direct_power(n, *_model(n, mdd - 1e-4, discordant), alpha)
    assert at >= power - 1e-9
    assert below < power


def test_the_mdd_of_eight_cases_in_closed_form() -> None:
    # With 8 cases the exact test at α = 0.05 rejects only when 6 or more cases change, all the
    # same way (2 · ½⁶ = 0.031; 5 of 5 gives 0.0625). With every change going one way, the
    # power is P(Binomial(8, Δ) ≥ 6): the MDD solves P(Binomial(8, Δ) ≥ 6) = 0.8.
    expected = optimize.brentq(lambda d: stats.binom.sf(5, 8, d) - 0.8, 0.01, 0.999, xtol=1e-12)
    assert minimum_detectable_difference(8) == pytest.approx(expected, abs=2e-6)
    assert minimum_detectable_difference(8) >= expected
    # with 6 cases only 6 of 6 rejects: Δ⁶ = 0.8
    assert minimum_detectable_difference(6) == pytest.approx(0.8 ** (1 / 6), abs=2e-6)


def test_too_few_cases_detect_nothing() -> None:
    # 5 of 5 changes one way: p = 2 · ½⁵ = 0.0625 > 0.05
    assert minimum_detectable_difference(5) is None
    assert minimum_detectable_difference(0) is None
    assert minimum_detectable_difference(5, alpha=0.1) is not None


def test_the_mdd_agrees_with_a_seeded_simulation() -> None:
    n, discordant, runs = 60, 0.3, 40_000
    mdd = minimum_detectable_difference(n, discordant)
    assert mdd is not None
    worse, better = _model(n, mdd, discordant)
    rng = np.random.default_rng(20261206)
    counts = rng.multinomial(n, [worse, better, 1 - worse - better], size=runs)
    changed = counts[:, 0] + counts[:, 1]
    smaller = np.minimum(counts[:, 0], counts[:, 1])
    p_values = np.minimum(1.0, 2 * stats.binom.cdf(smaller, changed, 0.5))
    rejected = float(np.mean((changed > 0) & (p_values <= 0.05)))
    sigma = math.sqrt(0.8 * 0.2 / runs)
    assert abs(rejected - 0.8) < 4 * sigma


def test_the_mdd_falls_as_cases_grow_and_rises_with_disagreement() -> None:
    values = [minimum_detectable_difference(n) for n in (10, 40, 160, 640)]
    assert all(v is not None for v in values)
    assert values == sorted(values, reverse=True)
    one_way = minimum_detectable_difference(200, 0.0)
    mixed = minimum_detectable_difference(200, 0.3)
    assert one_way is not None and mixed is not None and mixed > one_way


def test_compare_builds_reports_the_mdd_at_its_cases() -> None:
    a = [CaseOutcome(f"c{i}", True) for i in range(8)]
    b = [CaseOutcome(f"c{i}", i >= 2) for i in range(8)]
    result = compare_builds(a, b, detect=0.1)
    assert result.detectable == minimum_detectable_difference(8, 2 / 8)
    assert result.underpowered and result.verdict == "no difference"
    big = [CaseOutcome(f"c{i}", True) for i in range(400)]
    assert not compare_builds(big, big, detect=0.1).underpowered


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="n must be a whole number"):
        minimum_detectable_difference(-1)
    with pytest.raises(ValueError, match="discordant must be a share"):
        minimum_detectable_difference(10, 1.5)
    with pytest.raises(ValueError, match="power must be between 0 and 1"):
        minimum_detectable_difference(10, power=1.0)
