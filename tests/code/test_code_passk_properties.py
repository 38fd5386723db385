"""Properties of the two pass@k estimators evalmark has (code tasks' and repeated runs'): they
agree for every n, c and k; pass^k is pass@k of the failures mirrored and never above pass@k;
and the mean over tasks lies between the tasks' values whatever their order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.code import pass_at_k
from evalmark.code._passk import mean_pass_at_k
from evalmark.engine._repeats import pass_at_k as runs_pass_at_k
from evalmark.engine._repeats import pass_hat_k


@st.composite
def nck(draw: st.DrawFn, most: int = 300) -> tuple[int, int, int]:
    n = draw(st.integers(1, most))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@settings(max_examples=examples(200), deadline=None)
@given(nck())
def test_the_code_and_the_repeated_runs_estimators_agree(drawn: tuple[int, int, int]) -> None:
    n, c, k = drawn
    assert pass_at_k(n, c, k) == pytest.approx(runs_pass_at_k(n, c, k), abs=1e-12)


@settings(max_examples=examples(200), deadline=None)
@given(nck())
def test_pass_hat_k_is_pass_at_k_of_the_failures_mirrored_and_never_above_it(
    drawn: tuple[int, int, int],
) -> None:
    n, c, k = drawn
    assert pass_hat_k(n, c, k) == pytest.approx(1 - runs_pass_at_k(n, n - c, k), abs=1e-12)
    assert 0.0 <= pass_hat_k(n, c, k) <= runs_pass_at_k(n, c, k) + 1e-12 <= 1.0 + 1e-12


@settings(max_examples=examples(100), deadline=None)
@given(
    st.integers(1, 20).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(
                st.integers(k, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
                min_size=1,
                max_size=8,
            ),
        )
    ),
    st.randoms(use_true_random=False),
)
def test_the_mean_over_tasks_lies_between_their_values_in_any_order(
    drawn: tuple[int, list[tuple[int, int]]], random: Any
) -> None:
    k, counts = drawn
    values = [pass_at_k(n, c, k) for n, c in counts]
    mean = mean_pass_at_k(counts, k)
    shuffled = list(counts)
    random.shuffle(shuffled)
    assert mean_pass_at_k(shuffled, k) == pytest.approx(mean, abs=1e-15)
    assert min(values) - 1e-15 <= mean <= max(values) + 1e-15
