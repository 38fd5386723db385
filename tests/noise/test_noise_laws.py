"""Laws of the noise toolkit's building blocks, for generated inputs: the exact passing-case
distribution equals enumerating every outcome, adjusted p-values never fall below the raw ones
and keep their order, the Rogan-Gladen correction inverts the judge's error model, and suites
scaled by kind keep their mix."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.noise._correction import corrected_pass_rate
from evalmark.noise._exact import fail_probability, passing_distribution
from evalmark.noise._multiple import adjust_p_values
from evalmark.noise._sizing import scaled_kind_counts

probability = st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]) | st.floats(0.0, 1.0)


@settings(max_examples=examples(100))
@given(st.lists(probability, min_size=1, max_size=9))
def test_the_passing_distribution_equals_enumerating_every_outcome(qs: list[float]) -> None:
    expected = [0.0] * (len(qs) + 1)
    for outcome in itertools.product((False, True), repeat=len(qs)):
        chance = math.prod(q if passed else 1 - q for q, passed in zip(qs, outcome, strict=True))
        expected[sum(outcome)] += chance
    pmf = passing_distribution(qs)
    np.testing.assert_allclose(pmf, expected, atol=1e-12)
    tails = [fail_probability(pmf, k) for k in range(len(qs) + 2)]
    assert tails == sorted(tails) and tails[0] == 0.0
    assert abs(tails[-1] - 1.0) < 1e-12


@settings(max_examples=examples(100))
@given(
    st.lists(
        st.floats(0.0, 1.0) | st.sampled_from([0.0, 0.01, 0.05, 1.0]), min_size=1, max_size=12
    ),
    st.sampled_from(["holm", "bh"]),
)
@example([0.0, 0.0, 0.8350894939684224], "bh")  # was adjusted 1 ulp below itself
def test_adjusted_p_values_never_fall_below_raw_and_keep_their_order(
    ps: list[float], method: str
) -> None:
    adjusted = adjust_p_values(ps, method)  # type: ignore[arg-type]
    assert all(p <= a <= 1.0 for p, a in zip(ps, adjusted, strict=True))
    for i, j in itertools.combinations(range(len(ps)), 2):
        if ps[i] <= ps[j]:
            assert adjusted[i] <= adjusted[j]


@settings(max_examples=examples(150))
@given(st.floats(0.0, 1.0), st.floats(0.0, 0.49), st.floats(0.0, 0.49))
def test_the_correction_inverts_the_judges_error_model(
    true_rate: float, false_pass: float, false_fail: float
) -> None:
    observed = true_rate * (1 - false_fail) + (1 - true_rate) * false_pass
    assert math.isclose(
        corrected_pass_rate(observed, false_pass, false_fail), true_rate, abs_tol=1e-9
    )


@settings(max_examples=examples(100))
@given(st.lists(st.integers(0, 20), min_size=1, max_size=5).filter(any), st.integers(0, 120))
def test_scaled_suites_keep_their_mix_and_only_grow(counts: list[int], cases: int) -> None:
    total = sum(counts)
    scaled = scaled_kind_counts(counts, cases)
    assert sum(scaled) == cases
    assert all(abs(s - cases * c / total) < 1 + 1e-9 for s, c in zip(scaled, counts, strict=True))
    grown = scaled_kind_counts(counts, cases + 1)
    assert all(g >= s for g, s in zip(grown, scaled, strict=True))
    assert scaled_kind_counts(counts, total) == tuple(counts)
