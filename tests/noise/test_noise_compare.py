"""Comparing two builds: exact McNemar, clustered intervals and power, against statsmodels and
scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import NormalIndPower

from evalmark.noise._compare import (
    CaseOutcome,
    cases_to_detect_pass_rate,
    cases_to_detect_score,
    clustered_mean_difference,
    compare_builds,
    mcnemar_exact,
    mcnemar_power,
)


@given(pairs=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=400))
def test_mcnemar_matches_statsmodels(pairs: list[tuple[bool, bool]]) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    result = mcnemar_exact(a, b)
    table = [[result.both_passed, result.worse], [result.better, result.both_failed]]
    expected = mcnemar(table, exact=True).pvalue
    assert result.p_value == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert result.worse == sum(x and not y for x, y in pairs)


def test_mcnemar_by_hand() -> None:
    # 3 cases went from pass to fail, none back: p = 2 · (1/2)^3 = 0.25
    result = mcnemar_exact([True] * 12, [True] * 9 + [False] * 3)
    assert (result.worse, result.better, result.p_value) == (3, 0, 0.25)
    assert mcnemar_exact([True, False], [True, False]).p_value == 1.0


@settings(deadline=None)
@given(
    d=st.lists(st.floats(-1, 1), min_size=3, max_size=60),
    groups=st.integers(2, 8),
    confidence=st.sampled_from([0.9, 0.95, 0.99]),
)
def test_clustered_interval_matches_statsmodels(
    d: list[float], groups: int, confidence: float
) -> None:
    labels = [i % groups for i in range(len(d))]
    if len(set(labels)) < 2:
        return
    a = [0.5] * len(d)
    b = [0.5 + x for x in d]
    result = clustered_mean_difference(a, b, labels, confidence=confidence)
    fit = sm.OLS(np.array(b) - np.array(a), np.ones(len(d))).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(labels)}, use_t=True
    )
    assert result.difference == pytest.approx(fit.params[0], abs=1e-12)
    assert result.standard_error == pytest.approx(fit.bse[0], rel=1e-9, abs=1e-15)
    low, high = fit.conf_int(alpha=1 - confidence)[0]
    assert result.low == pytest.approx(low, rel=1e-8, abs=1e-12)
    assert result.high == pytest.approx(high, rel=1e-8, abs=1e-12)
    assert result.degrees_of_freedom == len(set(labels)) - 1


def test_without_groups_it_is_the_paired_t_interval() -> None:
    rng = np.random.default_rng(4)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.1, 40)
    result = clustered_mean_difference(a.tolist(), b.tolist())
    expected = stats.ttest_rel(b, a).confidence_interval(0.95)
    assert result.low == pytest.approx(expected.low, rel=1e-9)
    assert result.high == pytest.approx(expected.high, rel=1e-9)
    assert result.design_effect == pytest.approx(1.0)  # each case its own group: no inflation


def test_clustered_interval_errors() -> None:
    with pytest.raises(ValueError, match="at least two groups"):
        clustered_mean_difference([1.0, 0.0], [0.0, 1.0], ["x", "x"])
    with pytest.raises(ValueError, match="equal lengths"):
        clustered_mean_difference([1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        clustered_mean_difference([1.0, math.nan], [0.0, 1.0])


@pytest.mark.parametrize(
    ("sd", "difference", "alpha", "power"),
    [(0.2, 0.05, 0.05, 0.8), (0.1, 0.02, 0.01, 0.9), (0.5, 0.3, 0.05, 0.5), (0.3, 0.01, 0.1, 0.8)],
)
def test_cases_for_a_score_difference_match_statsmodels(
    sd: float, difference: float, alpha: float, power: float
) -> None:
    expected = NormalIndPower().solve_power(
        effect_size=difference / sd, alpha=alpha, power=power, ratio=0.0, alternative="two-sided"
    )
    assert cases_to_detect_score(sd, difference, alpha=alpha, power=power) == math.ceil(expected)
    doubled = cases_to_detect_score(sd, difference, alpha=alpha, power=power, design_effect=2.0)
    assert doubled == pytest.approx(2 * expected, abs=2)


def _brute_force_power(n: int, worse: float, better: float, alpha: float) -> float:
    """Every outcome of n cases (worse, better, unchanged) with statsmodels' exact p-value."""
    total = 0.0
    for w, b in itertools.product(range(n + 1), repeat=2):
        if w + b > n:
            continue
        probability = stats.multinomial.pmf(
            [w, b, n - w - b], n, [worse, better, 1 - worse - better]
        )
        if w + b and mcnemar([[0, w], [b, 0]], exact=True).pvalue <= alpha:
            total += probability
    return total


@pytest.mark.parametrize(
    ("n", "worse", "better"), [(20, 0.3, 0.05), (35, 0.2, 0.1), (12, 0.5, 0.0)]
)
def test_exact_mcnemar_power_matches_brute_force(n: int, worse: float, better: float) -> None:
    assert mcnemar_power(n, worse, better) == pytest.approx(
        _brute_force_power(n, worse, better, 0.05), abs=1e-9
    )


def test_cases_for_a_pass_rate_change_reach_the_power_exactly() -> None:
    n, achieved = cases_to_detect_pass_rate(0.1, 0.2)
    assert achieved >= 0.8 and achieved == pytest.approx(mcnemar_power(n, 0.15, 0.05))
    # Connor's normal approximation is the starting point: (1.96·√0.2 + 0.8416·√0.19)² / 0.01
    assert n >= math.ceil((1.959964 * math.sqrt(0.2) + 0.841621 * math.sqrt(0.19)) ** 2 / 0.01)
    # the share of changed cases cannot be below the change itself
    assert cases_to_detect_pass_rate(0.1, 0.0) == cases_to_detect_pass_rate(0.1, 0.1)


def test_compare_builds_pairs_cases_and_reads_the_verdicts() -> None:
    a = [CaseOutcome(f"c{i}", True, 1.0, group=f"g{i % 4}") for i in range(40)]
    b = [
        CaseOutcome(f"c{i}", i >= 12, 1.0 if i >= 12 else 0.2, group=f"g{i % 4}") for i in range(40)
    ]
    b.append(CaseOutcome("extra", True, 1.0))
    result = compare_builds(a, b)
    assert result.cases == 40 and result.only_in_b == ("extra",) and result.only_in_a == ()
    assert result.mcnemar.worse == 12 and result.mcnemar.p_value < 0.001
    assert result.pass_verdict == "worse" and result.verdict == "worse"
    assert result.pass_rate is not None and result.pass_rate.clusters == 4
    assert result.pass_rate.difference == pytest.approx(-0.3)
    same = compare_builds(a, a)
    assert same.verdict == "no difference" and same.mcnemar.p_value == 1.0


def test_compare_builds_errors() -> None:
    one = [CaseOutcome("x", True, 1.0)]
    with pytest.raises(ValueError, match="no case in common"):
        compare_builds(one, [CaseOutcome("y", True, 1.0)])
    with pytest.raises(ValueError, match="appears twice in build A"):
        compare_builds(one + one, one)
    with pytest.raises(ValueError, match="detect must be"):
        compare_builds(one, one, detect=0.0)
