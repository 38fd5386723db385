"""Newcombe's interval for a paired difference of proportions: a published example and an
independent computation (Wilson limits found by bisection on the score equation, the
correlation from its definition) on seeded random tables."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from evalmark.noise._paired import newcombe_paired, paired_counts


def test_the_published_example_of_fagerland_et_al() -> None:
    # Complete response before and after consolidation therapy (Cavo et al. 2012), as worked
    # in Fagerland, Lydersen and Laake, Statistical Analysis of Contingency Tables (2017),
    # chapter 8: the Newcombe square-and-add interval is -0.0621 (-0.1186 to -0.0046).
    found = newcombe_paired(59, 6, 16, 80)
    assert round(found.estimate, 4) == -0.0621
    assert round(found.low, 4) == -0.1186
    assert round(found.high, 4) == -0.0046
    assert found.n == 161 and found.flipped == 22


def _wilson_by_bisection(hits: int, n: int, z: float) -> tuple[float, float]:
    """The two roots of (p̂ - p)^2 = z^2 p (1 - p) / n, found numerically."""
    phat = hits / n

    def excess(p: float) -> float:
        return (phat - p) ** 2 - z * z * p * (1 - p) / n

    def root(lo: float, hi: float) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            if (excess(lo) > 0) == (excess(mid) > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if hits == 0 else root(0.0, phat)
    high = 1.0 if hits == n else root(phat, 1.0)
    return low, high


def _reference(a: int, b: int, c: int, d: int, confidence: float) -> tuple[float, float]:
    n = a + b + c + d
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = _wilson_by_bisection(a + b, n, z)
    l2, u2 = _wilson_by_bisection(a + c, n, z)
    product = (a + b) * (c + d) * (a + c) * (b + d)
    numerator = a * d - b * c
    if product == 0 or 0 <= numerator <= n / 2:
        phi = 0.0
    elif numerator > n / 2:
        phi = (numerator - n / 2) / math.sqrt(product)
    else:
        phi = numerator / math.sqrt(product)
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    eps = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return max(-1.0, p1 - p2 - delta), min(1.0, p1 - p2 + eps)


def test_the_interval_equals_an_independent_computation_on_random_tables() -> None:
    rng = random.Random(20261206)
    for _ in range(400):
        a, b, c, d = (rng.randint(0, 30) for _ in range(4))
        if a + b + c + d == 0:
            continue
        confidence = rng.choice((0.9, 0.95, 0.99))
        low, high = _reference(a, b, c, d, confidence)
        found = newcombe_paired(a, b, c, d, confidence)
        assert found.low == pytest.approx(low, abs=1e-9), (a, b, c, d)
        assert found.high == pytest.approx(high, abs=1e-9), (a, b, c, d)
        assert found.low <= found.estimate <= found.high


def test_counts_of_paired_outcomes_and_bad_counts() -> None:
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, False)]
    assert paired_counts(pairs) == (1, 2, 1, 1)
    with pytest.raises(ValueError, match="at least one item"):
        newcombe_paired(0, 0, 0, 0)
    with pytest.raises(ValueError, match="whole numbers"):
        newcombe_paired(1, -1, 0, 0)
