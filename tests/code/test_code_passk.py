"""pass@k against the exact estimator 1 - C(n-c, k) / C(n, k) in fractions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.code import pass_at_k
from evalmark.code._passk import mean_pass_at_k


def exact(n: int, c: int, k: int) -> Fraction:
    """The estimator in exact rational arithmetic (a naive reference)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


@st.composite
def nck(draw: st.DrawFn, max_n: int = 400) -> tuple[int, int, int]:
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(0, n))
    k = draw(st.integers(1, n))
    return n, c, k


@given(nck())
def test_equals_the_exact_fraction(args: tuple[int, int, int]) -> None:
    n, c, k = args
    assert pass_at_k(n, c, k) == pytest.approx(float(exact(n, c, k)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("n", "c", "k", "value"),
    [
        (1, 0, 1, Fraction(0)),
        (1, 1, 1, Fraction(1)),
        (5, 1, 1, Fraction(1, 5)),
        (10, 3, 1, Fraction(3, 10)),
        (10, 3, 5, Fraction(11, 12)),  # 1 - C(7,5)/C(10,5) = 1 - 21/252
        (5, 0, 5, Fraction(0)),
        (5, 1, 5, Fraction(1)),
        (200, 1, 10, Fraction(1, 20)),
    ],
)
def test_known_values(n: int, c: int, k: int, value: Fraction) -> None:
    assert exact(n, c, k) == value
    assert pass_at_k(n, c, k) == pytest.approx(float(value), rel=1e-12, abs=1e-15)


def test_pass_at_one_is_the_fraction_correct() -> None:
    for n in (1, 7, 100, 1000):
        for c in range(0, n + 1, max(n // 7, 1)):
            assert pass_at_k(n, c, 1) == pytest.approx(c / n, rel=1e-12, abs=1e-15)


def test_large_n_stays_finite_and_accurate() -> None:
    # C(100000, 500) has about 1,400 digits: far beyond a float; the product form never forms it.
    n, c, k = 100_000, 1_234, 500
    value = pass_at_k(n, c, k)
    assert math.isfinite(value) and 0.0 <= value <= 1.0
    assert value == pytest.approx(float(exact(n, c, k)), rel=1e-9)
    n, c, k = 10**6, 3, 1000
    assert pass_at_k(n, c, k) == pytest.approx(float(exact(n, c, k)), rel=1e-9)


def test_fewer_wrong_samples_than_k_is_exactly_one() -> None:
    assert pass_at_k(10, 8, 3) == 1.0
    assert pass_at_k(10**6, 10**6, 10**6) == 1.0


@given(nck(60))
def test_monotone_in_k_and_in_c(args: tuple[int, int, int]) -> None:
    n, c, k = args
    value = pass_at_k(n, c, k)
    if k < n:
        assert pass_at_k(n, c, k + 1) >= value - 1e-12
    if c < n:
        assert pass_at_k(n, c + 1, k) >= value - 1e-12


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (0, 0, 1, "at least one sample"),
        (5, 6, 1, "between 0 and n=5"),
        (5, -1, 1, "between 0 and n=5"),
        (5, 2, 6, "pass@6 needs k between 1 and the number of samples n=5"),
        (5, 2, 0, "pass@0 needs k between 1"),
    ],
)
def test_bad_arguments(n: int, c: int, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        pass_at_k(n, c, k)


def test_non_integers_are_refused() -> None:
    with pytest.raises(TypeError):
        pass_at_k(5.0, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pass_at_k(5, True, 1)


def test_mean_over_tasks() -> None:
    assert mean_pass_at_k([(5, 5), (5, 0)], 1) == 0.5
    assert mean_pass_at_k([(10, 3), (4, 1)], 2) == pytest.approx(
        float((exact(10, 3, 2) + exact(4, 1, 2)) / 2), rel=1e-12
    )
    with pytest.raises(ValueError, match="no tasks"):
        mean_pass_at_k([], 1)
