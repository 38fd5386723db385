"""The special functions written for the noise package, against scipy."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from evalmark.noise._special import betainc, betaincinv, student_t_cdf, student_t_ppf

shapes = st.floats(0.05, 2000.0)


@given(a=shapes, b=shapes, x=st.floats(0.0, 1.0))
def test_incomplete_beta_matches_scipy(a: float, b: float, x: float) -> None:
    assert betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-9, abs=1e-14)


@given(a=shapes, b=shapes, p=st.floats(1e-9, 1 - 1e-9))
def test_inverse_incomplete_beta_matches_scipy_and_inverts(a: float, b: float, p: float) -> None:
    x = betaincinv(a, b, p)
    expected = special.betaincinv(a, b, p)
    assert x == pytest.approx(expected, rel=1e-7, abs=1e-300)
    if 1e-300 < x < 1.0 - 1e-6:  # nearer 1, neighbouring doubles differ too much in I_x
        assert betainc(a, b, x) == pytest.approx(p, rel=1e-7, abs=1e-12)


@given(df=st.floats(0.5, 1e4), p=st.floats(1e-6, 1 - 1e-6))
def test_student_t_quantile_matches_scipy(df: float, p: float) -> None:
    assert student_t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-8, abs=1e-10)


@given(df=st.floats(0.5, 1e4), t=st.floats(-50.0, 50.0))
def test_student_t_distribution_matches_scipy(df: float, t: float) -> None:
    assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-9, abs=1e-14)


def test_edges_and_bad_arguments() -> None:
    assert betainc(2.0, 3.0, 0.0) == 0.0 and betainc(2.0, 3.0, 1.0) == 1.0
    assert betaincinv(2.0, 3.0, 0.0) == 0.0 and betaincinv(2.0, 3.0, 1.0) == 1.0
    assert student_t_ppf(0.5, 7.0) == 0.0
    assert student_t_cdf(math.inf, 3.0) == 1.0
    with pytest.raises(ValueError, match="a > 0 and b > 0"):
        betainc(0.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="probability p in"):
        betaincinv(1.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="degrees of freedom"):
        student_t_ppf(0.9, 0.0)
