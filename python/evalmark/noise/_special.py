"""The few special functions the noise analysis needs, in plain Python (no scipy at run time).

The regularized incomplete beta function I_x(a, b) by its continued fraction (evaluated with the
modified Lentz method, on the side of x where it converges fast), its inverse by safeguarded
Newton steps, and from them the Beta and Student t distribution functions and quantiles. The
tests compare every one with ``scipy.special`` / ``scipy.stats``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def log_beta(a: float, b: float) -> float:
    """ln B(a, b) for a, b > 0."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), converging fast for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        numerator = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + numerator * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + numerator / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        numerator = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + numerator * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + numerator / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) = P(X ≤ x) for X ~ Beta(a, b)."""
    if not (a > 0.0 and b > 0.0):
        raise ValueError(f"betainc needs a > 0 and b > 0, got a={a!r}, b={b!r}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def betaincinv(a: float, b: float, p: float) -> float:
    """The x with I_x(a, b) = p: the p-quantile of Beta(a, b).

    Newton steps on log x (below ½) or log(1 − x) (above), where the tails of I_x are close to
    power laws, kept inside a shrinking bracket; a step leaving the bracket is replaced by its
    (geometric, for a wide bracket) midpoint.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"betaincinv needs a probability p in [0, 1], got {p!r}")
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    low, high = 0.0, 1.0
    log_norm = log_beta(a, b)
    x = _initial_guess(a, b, p, log_norm)
    for _ in range(300):
        if not 0.0 < x < 1.0:  # the bracket closed on an end: that end, to double precision
            return min(max(x, 0.0), 1.0)
        error = betainc(a, b, x) - p
        if error == 0.0:
            return x
        if error > 0.0:
            high = x
        else:
            low = x
        log_density = (a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - log_norm
        candidate = -1.0  # outside the bracket unless a Newton step lands inside
        if x < 0.5:
            slope = math.exp(min(log_density + math.log(x), 700.0))
            step = math.log(x) - error / slope if slope > 0.0 else 1.0
            if step < 0.0:
                candidate = math.exp(step)
        else:
            slope = math.exp(min(log_density + math.log1p(-x), 700.0))
            step = math.log1p(-x) + error / slope if slope > 0.0 else 1.0
            if step < 0.0:
                candidate = -math.expm1(step)
        if not low < candidate < high:
            if low > 0.0 and high > 4.0 * low:
                candidate = math.exp(0.5 * (math.log(low) + math.log(high)))
            elif low == 0.0:
                candidate = high * 1e-3
            else:
                candidate = 0.5 * (low + high)
        if candidate <= 0.0:  # below the smallest float: the quantile is 0 to double precision
            return 0.0
        if abs(candidate - x) <= 4 * _EPS * min(x, 1.0 - x):
            return candidate
        x = candidate
    return x


def _initial_guess(a: float, b: float, p: float, log_norm: float) -> float:
    """A starting point for the inverse: the normal approximation, or in a far tail the
    leading term of I_x there (x^a / (a B) near 0, (1 − x)^b / (b B) near 1)."""
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    guess = mean + sd * NormalDist().inv_cdf(p)
    if guess <= 0.0 or p < 1e-3:
        guess = math.exp((math.log(p) + math.log(a) + log_norm) / a)
    elif guess >= 1.0 or p > 1.0 - 1e-3:
        guess = -math.expm1((math.log1p(-p) + math.log(b) + log_norm) / b)
    return min(max(guess, 1e-300), 1.0 - 1e-16)


def student_t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    t2 = t * t
    if t2 < df:  # near the centre: P(|T| < |t|) = I_y(½, df/2), y = t² / (df + t²), no cancellation
        inner = 0.5 * betainc(0.5, df / 2.0, t2 / (df + t2))
        return 0.5 + inner if t > 0 else 0.5 - inner
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t2))
    return 1.0 - tail if t > 0 else tail


def student_t_ppf(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs p strictly between 0 and 1, got {p!r}")
    if p == 0.5:
        return 0.0
    tail = 2.0 * min(p, 1.0 - p)
    if tail > 0.5:  # |t| is small and x = df / (df + t²) near 1: solve for 1 - x instead
        y = betaincinv(0.5, df / 2.0, 1.0 - tail)
        t = math.sqrt(df * y / (1.0 - y))
    else:
        x = betaincinv(df / 2.0, 0.5, tail)
        t = math.sqrt(df * (1.0 - x) / x) if x > 0.0 else math.inf
    return t if p > 0.5 else -t


def normal_ppf(p: float) -> float:
    """The p-quantile of the standard normal distribution."""
    return NormalDist().inv_cdf(p)


def normal_cdf(z: float) -> float:
    """P(Z ≤ z) for the standard normal distribution."""
    return NormalDist().cdf(z)
