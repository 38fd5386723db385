"""The Rogan–Gladen corrected pass rate and its grid interval, against a hand formula and a
seeded Monte Carlo of the same three posteriors (scipy's Beta, not evalmark's quantiles)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import evalmark
from evalmark.noise import RateCounts
from evalmark.noise._correction import corrected_pass_rate, corrected_rate


def test_point_estimate_is_rogan_gladen_clipped() -> None:
    # the judge of golden/judge-calibration: false pass 4/21, false fail 5/23
    fp, ff = 4 / 21, 5 / 23
    assert corrected_pass_rate(0.75, fp, ff) == pytest.approx((0.75 - fp) / (1 - fp - ff))
    assert corrected_pass_rate(0.1, fp, ff) == 0.0
    assert corrected_pass_rate(0.95, fp, ff) == 1.0
    assert corrected_pass_rate(0.6, 0.0, 0.0) == 0.6
    assert evalmark.corrected_pass_rate is corrected_pass_rate


def test_a_judge_no_better_than_chance_is_refused() -> None:
    with pytest.raises(ValueError, match="no better than chance"):
        corrected_pass_rate(0.5, 0.5, 0.5)
    with pytest.raises(ValueError, match="observed"):
        corrected_pass_rate(1.5, 0.1, 0.1)


def _monte_carlo(passed: int, judged: int, fp: RateCounts, ff: RateCounts) -> tuple[float, float]:
    rng = np.random.default_rng(20261206)
    draws = 2_000_000
    q = stats.beta(passed + 0.5, judged - passed + 0.5).rvs(draws, random_state=rng)
    a = stats.beta(fp.alpha, fp.beta).rvs(draws, random_state=rng)
    b = stats.beta(ff.alpha, ff.beta).rvs(draws, random_state=rng)
    j = 1 - a - b
    pi = np.where(j > 0, np.clip((q - a) / np.where(j > 0, j, 1), 0, 1), np.nan)
    chance = np.isnan(pi)
    # a no-better-than-chance draw: half at 0, half at 1, as the module says
    pi[chance] = np.where(np.arange(chance.sum()) % 2 == 0, 0.0, 1.0)
    low, high = np.quantile(pi, [0.025, 0.975])
    return float(low), float(high)


@pytest.mark.parametrize(
    ("passed", "judged", "fp", "ff"),
    [
        (9, 12, RateCounts(4, 21), RateCounts(5, 23)),
        (150, 200, RateCounts(4, 21), RateCounts(5, 23)),
        (40, 50, RateCounts(2, 60), RateCounts(1, 40)),
        (5, 30, RateCounts(8, 20), RateCounts(6, 20)),
    ],
)
def test_interval_matches_a_monte_carlo_of_the_posteriors(
    passed: int, judged: int, fp: RateCounts, ff: RateCounts
) -> None:
    result = corrected_rate(passed, judged, fp, ff)
    low, high = _monte_carlo(passed, judged, fp, ff)
    assert result.raw == passed / judged
    assert result.estimate == pytest.approx(
        min(
            max(
                (passed / judged - fp.errors / fp.trials)
                / (1 - fp.errors / fp.trials - ff.errors / ff.trials),
                0,
            ),
            1,
        )
    )
    assert result.low == pytest.approx(low, abs=0.012)
    assert result.high == pytest.approx(high, abs=0.012)
    assert result.low <= result.estimate <= result.high


def test_the_interval_is_deterministic_and_narrows_with_more_calibration() -> None:
    a = corrected_rate(150, 200, RateCounts(4, 21), RateCounts(5, 23))
    assert a == corrected_rate(150, 200, RateCounts(4, 21), RateCounts(5, 23))
    b = corrected_rate(150, 200, RateCounts(40, 210), RateCounts(50, 230))
    assert b.high - b.low < a.high - a.low


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="no judged checks"):
        corrected_rate(0, 0, RateCounts(1, 10), RateCounts(1, 10))
    with pytest.raises(ValueError, match="false_fail was measured on no items"):
        corrected_rate(3, 10, RateCounts(1, 10), RateCounts(0, 0))
    with pytest.raises(ValueError, match="cannot exceed"):
        corrected_rate(11, 10, RateCounts(1, 10), RateCounts(1, 10))
