"""How many paired cases it takes to see a difference between two builds, and with what power.

For pass rates: the exact power of McNemar's two-sided test over n cases, where a share of the
cases changes verdict each way (the changed count is binomial; given it, the test's two tails
are incomplete beta functions), and the fewest cases that reach a given power, searched up from
the normal approximation of Connor (1987). For scores: the normal approximation with the
observed spread of per-case differences and the design effect of grouped cases. And the other
way round: the minimum detectable difference, the smallest pass-rate change that McNemar's
exact test sees with a given power over a given number of cases.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from evalmark.noise._exact import binomial_pmf
from evalmark.noise._special import betainc, normal_cdf, normal_ppf

__all__ = [
    "cases_to_detect_pass_rate",
    "cases_to_detect_score",
    "check_power",
    "mcnemar_power",
    "minimum_detectable_difference",
]


def check_power(alpha: float, power: float) -> tuple[float, float]:
    """``(alpha, power)`` unchanged when each is strictly between 0 and 1, else ValueError."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1 (e.g. 0.8), got {power!r}")
    return alpha, power


def cases_to_detect_score(
    standard_deviation: float,
    difference: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> int:
    """The fewest paired cases for a two-sided z test at ``alpha`` to detect a mean difference
    of ``difference`` with probability ``power``, when the per-case differences spread with
    ``standard_deviation`` (times ``design_effect`` for clustered cases, never below 1)."""
    alpha, power = check_power(alpha, power)
    if not difference > 0.0:
        raise ValueError(f"the difference to detect must be positive, got {difference!r}")
    if not standard_deviation >= 0.0:
        raise ValueError(f"standard_deviation must be ≥ 0, got {standard_deviation!r}")
    if standard_deviation == 0.0:
        return 2
    z = normal_ppf(1.0 - alpha / 2.0)
    effect = difference / standard_deviation
    inflate = max(design_effect, 1.0)

    def achieved(n: int) -> float:
        shift = effect * math.sqrt(n / inflate)
        return normal_cdf(shift - z) + normal_cdf(-shift - z)

    guess = math.ceil(inflate * ((z + normal_ppf(power)) / effect) ** 2)
    n = max(guess, 2)
    while n > 2 and achieved(n - 1) >= power:
        n -= 1
    while achieved(n) < power:
        n += 1
    return n


def cases_to_detect_pass_rate(
    difference: float, discordant: float, *, alpha: float = 0.05, power: float = 0.8
) -> tuple[int, float]:
    """The cases McNemar's exact test needs to detect a pass-rate change of ``difference`` with
    probability ``power`` at ``alpha``, when a share ``discordant`` of cases changes verdict
    (raised to ``difference`` when below it: every point of change needs a changed case);
    and the exact power at that number.

    The search starts at the normal approximation of Connor (1987) and moves up in steps of
    1% until the exact power reaches ``power`` (the exact power is not monotone in the number
    of cases, so a smaller number may reach it too).
    """
    alpha, power = check_power(alpha, power)
    if not 0.0 < difference <= 1.0:
        raise ValueError(f"the difference to detect must be in (0, 1], got {difference!r}")
    psi = min(max(discordant, difference), 1.0)
    z_alpha = normal_ppf(1.0 - alpha / 2.0)
    z_beta = normal_ppf(power)
    root = z_alpha * math.sqrt(psi) + z_beta * math.sqrt(max(psi - difference**2, 0.0))
    n = max(1, math.ceil(root * root / (difference * difference)))
    worse, better = (psi + difference) / 2.0, (psi - difference) / 2.0
    achieved = mcnemar_power(n, worse, better, alpha=alpha)
    for _ in range(200):
        if achieved >= power:
            break
        n = max(n + 1, math.ceil(n * 1.01))
        achieved = mcnemar_power(n, worse, better, alpha=alpha)
    return n, achieved


def mcnemar_power(n: int, worse: float, better: float, *, alpha: float = 0.05) -> float:
    """The exact probability that the two-sided exact McNemar test at ``alpha`` rejects, over
    ``n`` cases of which a share ``worse`` goes from pass to fail and ``better`` the reverse.

    The number of changed cases D is Binomial(n, worse + better); given D = d the test rejects
    when the smaller direction has at most the critical count c_d (the largest c with
    2·P(Binomial(d, ½) ≤ c) ≤ alpha); the two tails of Binomial(d, better / (worse + better))
    beyond c_d are incomplete beta functions.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number ≥ 0, got {n!r}")
    if not (worse >= 0.0 and better >= 0.0 and worse + better <= 1.0 + 1e-12):
        raise ValueError(
            f"worse and better must be shares summing to at most 1, got {worse}, {better}"
        )
    psi = min(worse + better, 1.0)
    if n == 0 or psi == 0.0:
        return 0.0
    share = better / psi
    changed = binomial_pmf(n, np.array([psi]))[0]
    total = []
    for d in np.flatnonzero(changed > 1e-17 * changed.max()).tolist():
        critical = _critical_count(d, alpha) if d > 0 else -1
        if critical < 0:
            continue
        tails = betainc(d - critical, critical + 1, 1.0 - share) + (
            betainc(d - critical, critical + 1, share)
        )
        total.append(float(changed[d]) * min(tails, 1.0))
    return min(math.fsum(total), 1.0)


@functools.lru_cache(maxsize=65_536)
def _critical_count(d: int, alpha: float) -> int:
    """The largest c with 2·P(Binomial(d, ½) ≤ c) ≤ alpha (−1 when there is none)."""

    def rejects(c: int) -> bool:
        return c >= 0 and 2.0 * betainc(d - c, c + 1, 0.5) <= alpha * (1.0 + 1e-12)

    guess = math.floor(d / 2.0 - normal_ppf(1.0 - alpha / 2.0) * math.sqrt(d) / 2.0)
    c = min(max(guess, -1), (d - 1) // 2)
    while c >= 0 and not rejects(c):
        c -= 1
    while c + 1 <= (d - 1) // 2 and rejects(c + 1):
        c += 1
    return c


def minimum_detectable_difference(
    n: int, discordant: float = 0.0, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest pass-rate change Δ that the two-sided exact McNemar test at ``alpha`` over
    ``n`` paired cases detects with probability at least ``power``; None when no change can
    (with 5 cases or fewer at α = 0.05 even 5 of 5 going one way is not significant).

    The model is the one of :func:`cases_to_detect_pass_rate`: a share ψ of the cases changes
    verdict, (ψ + Δ)/2 from pass to fail and (ψ − Δ)/2 the other way, with ψ the observed
    share ``discordant`` raised to Δ when below it (at ψ = Δ every changed case goes one way,
    the easiest change to see). The exact power is continuous and increasing in Δ, so Δ is
    found by bisection to within 1e-6 and rounded up: the power at the value returned reaches
    ``power``.
    """
    alpha, power = check_power(alpha, power)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number ≥ 0, got {n!r}")
    if not 0.0 <= discordant <= 1.0:
        raise ValueError(f"discordant must be a share in [0, 1], got {discordant!r}")

    def power_at(delta: float) -> float:
        psi = min(max(discordant, delta), 1.0)
        worse = min((psi + delta) / 2.0, psi)
        return mcnemar_power(n, worse, max(psi - worse, 0.0), alpha=alpha)

    if n == 0 or power_at(1.0) < power:
        return None
    low, high = 0.0, 1.0
    while high - low > 1e-6:
        middle = (low + high) / 2.0
        if power_at(middle) >= power:
            high = middle
        else:
            low = middle
    return high
