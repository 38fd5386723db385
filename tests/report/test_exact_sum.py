"""``exact_sum``: the correctly rounded sum ``math.fsum`` gives, with whole numbers added first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalmark.report._values import exact_sum, tally_of


def test_matches_fsum_on_scores_mixing_whole_numbers_and_fractions() -> None:
    rng = np.random.default_rng(7)
    values = rng.random(5_000)
    values[rng.random(5_000) < 0.6] = 1.0
    values[rng.random(5_000) < 0.2] = 0.0
    values[:10] = [1e16, -1e16, 2.0**40, -3.0, 0.1, 1e-300, -0.0, 7.0, 2.0**32, -(2.0**32)]
    assert exact_sum(values) == math.fsum(values.tolist())


def test_a_sum_that_float_addition_rounds_is_still_exact() -> None:
    # 1.0 repeated then tiny parts: left-to-right float addition drops the tiny parts
    values = np.array([1.0] * 1_000 + [1e-14] * 1_000)
    assert exact_sum(values) == math.fsum(values.tolist())
    assert exact_sum(values) != sum(values.tolist())  # the sum a plain loop would give


def test_negative_zeros_sum_to_zero_as_fsum_does() -> None:
    found = exact_sum(np.array([-0.0] * 100))
    assert found == 0.0 and math.copysign(1.0, found) == 1.0


def test_nan_and_infinity_behave_as_in_fsum() -> None:
    assert math.isnan(exact_sum(np.array([1.0] * 100 + [math.nan])))
    assert exact_sum(np.array([1.0] * 100 + [math.inf])) == math.inf
    with pytest.raises(ValueError):
        exact_sum(np.array([1.0] * 100 + [math.inf, -math.inf]))


def test_the_tally_mean_is_the_correctly_rounded_mean() -> None:
    scores = np.array([1.0] * 300 + [0.1] * 7)
    flags = np.zeros(scores.size, dtype=np.bool_)
    assert tally_of(~flags, flags, scores).mean == math.fsum(scores.tolist()) / scores.size
