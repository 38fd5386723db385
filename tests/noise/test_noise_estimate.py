"""The flip-rate estimator from repeated verdicts on the same prompts."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.noise import estimate_flip_rate
from evalmark.noise._estimate import flip_rate_from_disagreement, wilson_interval


def synthetic_verdicts(
    eps: float, prompts: int, k: int, seed: int, grades: int = 2
) -> list[list[int]]:
    """k noisy readings per prompt of a fixed true grade; a flip picks another grade uniformly."""
    rng = random.Random(seed)
    rows = []
    for _ in range(prompts):
        truth = rng.randrange(grades)
        row = []
        for _ in range(k):
            if rng.random() < eps:
                row.append(rng.choice([g for g in range(grades) if g != truth]))
            else:
                row.append(truth)
        rows.append(row)
    return rows


@pytest.mark.parametrize(
    ("eps", "k", "grades"),
    [(0.03, 2, 2), (0.08, 3, 2), (0.15, 5, 2), (0.05, 4, 5), (0.2, 3, 3)],
)
def test_recovers_a_known_flip_rate_from_synthetic_repeated_verdicts(
    eps: float, k: int, grades: int
) -> None:
    verdicts = synthetic_verdicts(eps, 4000, k, seed=11, grades=grades)
    estimate = estimate_flip_rate(verdicts, grades=grades)
    assert estimate.low <= eps <= estimate.high
    assert estimate.flip_rate == pytest.approx(eps, abs=0.015)
    assert estimate.prompts == 4000
    assert estimate.pairs == 4000 * k * (k - 1) // 2
    assert estimate.independent_pairs == 4000 * (k // 2)


def test_interval_covers_the_true_rate_about_as_often_as_promised() -> None:
    covered = sum(
        (e := estimate_flip_rate(synthetic_verdicts(0.1, 300, 2, seed=s))).low <= 0.1 <= e.high
        for s in range(200)
    )
    assert covered >= 180  # nominal 95%: 190 of 200, binomial spread ±6


@given(eps=st.floats(0.0, 0.5), grades=st.integers(2, 10))
def test_the_disagreement_formula_inverts_the_noise_model(eps: float, grades: int) -> None:
    eps = min(eps, (grades - 1) / grades)
    agree = (1 - eps) ** 2 + eps**2 / (grades - 1)
    assert flip_rate_from_disagreement(1 - agree, grades) == pytest.approx(eps, abs=1e-6)


def test_yes_no_formula_is_the_one_in_the_issue() -> None:
    d = 0.1
    assert flip_rate_from_disagreement(d) == pytest.approx((1 - math.sqrt(1 - 2 * d)) / 2)


def test_agreeing_verdicts_give_zero_with_a_positive_upper_bound() -> None:
    estimate = estimate_flip_rate([[True, True, True]] * 20 + [[False, False]] * 10)
    assert estimate.flip_rate == 0.0 and estimate.low == 0.0
    assert 0.0 < estimate.high < 0.2


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson_interval(0.0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(0.5, 100)
    assert (low, high) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_prompts_with_a_single_verdict_are_skipped_and_bad_input_is_named() -> None:
    assert estimate_flip_rate([[True], [True, False]]).prompts == 1
    with pytest.raises(ValueError, match="at least one prompt with two or more verdicts"):
        estimate_flip_rate([[True], []])
    with pytest.raises(ValueError, match="3 distinct values but grades is 2"):
        estimate_flip_rate([["a", "b", "c"]])
    with pytest.raises(ValueError, match="grades must be an integer ≥ 2"):
        estimate_flip_rate([[1, 1]], grades=1)
    with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
        estimate_flip_rate([[1, 1]], confidence=95)
