"""Exact gate risk: the number of passing cases is Poisson-binomial; no sampling involved.

A case passes when every check is reported passing. A judged check decided by the majority of
``k`` calls (a tie fails, as ``LLMJudge(reducer="majority")`` decides) is reported passing
when, of its k calls, fewer than half are wrong if it truly passes, more than half are wrong if
it truly fails. Each call errs with the case's error probability θ: the false-fail rate for a
truly passing check, the false-pass rate for a truly failing one. Under the independent model θ
is the rate itself; under the correlated model each case draws θ from a Beta distribution with
that mean and the overdispersion ρ, shared by the case's checks of the same truth and by every
repeat (a check with a rate of its own draws its own θ).

Given θ, a case's pass probability is a polynomial in θ, written in the basis θʷ(1 − θ)ᵈ⁻ʷ; the
Beta expectation of each basis term is a ratio of rising factorials, so the expectation is exact.
Cases are independent, so the number of passing cases is a sum of binomials, one per kind of
case, convolved.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evalmark.noise._gates import Gate, make_gates
from evalmark.noise._rates import ErrorRates, JudgeRates, as_error_rates
from evalmark.noise._suite import BuildTruth

Array = npt.NDArray[np.float64]
RatesLike = ErrorRates | JudgeRates | float

# Below this the Beta's variance ρ·m(1 − m) is under 2.5·10⁻¹⁶: treated as independent errors.
_NO_DISPERSION = 1e-15


@dataclass(frozen=True, slots=True)
class GateRisk:
    """A gate and the exact probability that it fails a build."""

    gate: Gate
    fails: float


@dataclass(frozen=True, slots=True)
class CaseKind:
    """Cases alike for the noise analysis: the same checks by truth, judged or not.

    ``passing`` and ``failing`` count the judged checks (without a rate of their own) whose true
    verdict passes and fails; ``own`` lists the judged checks with their own flip rate as
    ``(rate, passes)``; ``forced`` is True when a deterministic check fails (the case fails
    whatever the judge says).
    """

    forced: bool
    passing: int
    failing: int
    own: tuple[tuple[float, bool], ...] = ()


def check_repeats(repeats: int) -> int:
    """``repeats`` if it is a whole number ≥ 1, else a ``ValueError``."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(
            f"repeats must be a whole number ≥ 1 (judge calls per check), got {repeats!r}"
        )
    return repeats


_Key = tuple[bool, int, int, tuple[tuple[float, bool], ...]]


def _case_keys(suite: BuildTruth, needs_rates: bool) -> list[_Key]:
    """Each case's kind as a plain tuple (cheap to hash: suites can have many cases)."""
    keys: list[_Key] = []
    forced_key: _Key = (True, 0, 0, ())
    for case in suite.cases:
        forced = False
        passing = failing = 0
        own: list[tuple[float, bool]] = []
        for check in case.checks:
            if not check.judged:
                forced = forced or not check.passes
            elif check.flip_rate is not None:
                own.append((check.flip_rate, check.passes))
            elif needs_rates:
                raise ValueError(
                    f"judged check {check.name!r} of case {case.name!r} has no flip_rate of its "
                    "own: pass flip_rate= (or rates=) to set the judge's noise level"
                )
            elif check.passes:
                passing += 1
            else:
                failing += 1
        keys.append(forced_key if forced else (False, passing, failing, tuple(own)))
    return keys


def case_kinds(suite: BuildTruth, *, needs_rates: bool) -> list[CaseKind]:
    """The kind of each case of ``suite``, in order.

    With ``needs_rates`` True a judged check without a rate of its own is an error naming it.
    """
    kinds: dict[_Key, CaseKind] = {}
    return [kinds.setdefault(key, CaseKind(*key)) for key in _case_keys(suite, needs_rates)]


def suite_kinds(suite: BuildTruth, *, needs_rates: bool) -> dict[CaseKind, int]:
    """The kinds of case in ``suite`` with how many cases each, in order of first appearance."""
    counts: dict[_Key, int] = {}
    for key in _case_keys(suite, needs_rates):
        counts[key] = counts.get(key, 0) + 1
    return {CaseKind(*key): n for key, n in counts.items()}


@functools.lru_cache(maxsize=256)
def _check_polynomial(passes: bool, repeats: int, count: int) -> tuple[float, ...]:
    """Coefficients c_w of P(all ``count`` checks reported passing | θ) = Σ c_w θʷ(1 − θ)ᵈ⁻ʷ."""
    k = repeats
    single = np.zeros(k + 1)
    for wrong in range(k + 1):
        reported_pass = wrong < k - wrong if passes else wrong > k - wrong
        if reported_pass:
            single[wrong] = math.comb(k, wrong)
    result = np.ones(1)
    for _ in range(count):
        result = np.convolve(result, single)
    return tuple(result.tolist())


def _beta_basis_expectations(mean: Array, overdispersion: float, degree: int) -> Array:
    """E[θʷ(1 − θ)ᵈ⁻ʷ] for w = 0..d, θ ~ Beta(mean, ρ); shape (len(mean), d + 1)."""
    m = mean[:, None]
    w = np.arange(degree + 1)
    if overdispersion < _NO_DISPERSION:  # θ is the mean itself (0.0 ** 0 is 1.0)
        return np.asarray(m**w * (1.0 - m) ** (degree - w), dtype=np.float64)
    if overdispersion == 1.0:  # θ is 0 or 1: the case is always or never got wrong
        result = np.zeros((mean.size, degree + 1))
        result[:, 0] += 1.0 - mean
        result[:, degree] += mean
        return result
    size = 1.0 / overdispersion - 1.0  # α + β
    alpha = mean * size
    beta = (1.0 - mean) * size
    result = np.empty((mean.size, degree + 1))
    for j in range(degree + 1):
        value = np.ones(mean.size)
        for i in range(j):  # Π (α + i) / (s + i)
            value *= (alpha + i) / (size + i)
        for i in range(degree - j):  # Π (β + i) / (s + j + i)
            value *= (beta + i) / (size + j + i)
        result[:, j] = value
    return result


def group_pass_probability(
    passes: bool, count: int, mean: Array, overdispersion: float, repeats: int
) -> Array:
    """P(``count`` judged checks of one truth, sharing the case's θ, are all reported passing)."""
    if count == 0:
        return np.ones(mean.size)
    coefficients = np.asarray(_check_polynomial(passes, repeats, count))
    basis = _beta_basis_expectations(mean, overdispersion, coefficients.size - 1)
    result: Array = np.clip(basis @ coefficients, 0.0, 1.0)
    return result


def kind_pass_probability(
    kind: CaseKind,
    false_pass: Array,
    false_fail: Array,
    overdispersion: float,
    repeats: int,
) -> Array:
    """A case's pass probability for each pair of rates in ``false_pass`` / ``false_fail``."""
    if kind.forced:
        return np.zeros(false_pass.size)
    probability = group_pass_probability(True, kind.passing, false_fail, overdispersion, repeats)
    probability = probability * group_pass_probability(
        False, kind.failing, false_pass, overdispersion, repeats
    )
    for rate, passes in kind.own:
        own = np.full(false_pass.size, rate)
        probability = probability * group_pass_probability(passes, 1, own, overdispersion, repeats)
    return probability


def case_pass_probabilities(
    suite: BuildTruth, rates: RatesLike | None = None, *, repeats: int = 1
) -> tuple[float, ...]:
    """For each case, the probability that every check of the case is reported passing.

    ``rates``: the judge's ``ErrorRates``, measured ``JudgeRates`` (their point rates) or a flip
    rate, for judged checks without a rate of their own. ``repeats``: calls per judged check,
    decided by majority.
    """
    model = None if rates is None else as_error_rates(rates, "rates")
    repeats = check_repeats(repeats)
    kinds = case_kinds(suite, needs_rates=model is None)
    values = _kind_values(set(kinds), model, repeats)
    return tuple(values[kind] for kind in kinds)


def _kind_values(
    kinds: Iterable[CaseKind], model: ErrorRates | None, repeats: int
) -> dict[CaseKind, float]:
    rates = model or ErrorRates(0.0, 0.0)
    fp = np.array([rates.false_pass])
    ff = np.array([rates.false_fail])
    return {
        kind: float(kind_pass_probability(kind, fp, ff, rates.overdispersion, repeats)[0])
        for kind in kinds
    }


@functools.lru_cache(maxsize=64)
def _log_binomial_coefficients(count: int) -> Array:
    j = np.arange(1, count + 1, dtype=np.float64)
    logs = np.empty(count + 1)
    logs[0] = 0.0
    np.cumsum(np.log(count - j + 1.0) - np.log(j), out=logs[1:])
    logs.setflags(write=False)
    return logs


def binomial_pmf(count: int, q: Array) -> Array:
    """P(j of ``count`` independent cases pass) for j = 0..count, one row per value of ``q``."""
    j = np.arange(count + 1)
    log_q = np.empty(q.size)
    log_not = np.empty(q.size)
    with np.errstate(divide="ignore"):
        np.log(q, out=log_q)
        np.log1p(-q, out=log_not)
    with np.errstate(invalid="ignore"):
        terms = np.where(j == 0, 0.0, j * log_q[:, None])
        terms += np.where(j == count, 0.0, (count - j) * log_not[:, None])
    terms += _log_binomial_coefficients(count)
    return np.exp(terms)


def _convolve_rows(left: Array, right: Array) -> Array:
    if left.shape[0] == 1:
        return np.convolve(left[0], right[0])[None, :]
    if left.shape[1] < right.shape[1]:
        left, right = right, left
    out = np.zeros((left.shape[0], left.shape[1] + right.shape[1] - 1))
    width = left.shape[1]
    for i in range(right.shape[1]):
        out[:, i : i + width] += right[:, i : i + 1] * left
    return out


def distribution_of_kinds(parts: Sequence[tuple[Array, int]]) -> Array:
    """The passing-case distribution of independent kinds of case, one row per rate point.

    ``parts`` holds, per kind, its pass probability at each point and its number of cases.
    """
    points = parts[0][0].size if parts else 1
    pmf = np.ones((points, 1))
    for q, count in sorted(parts, key=lambda part: -part[1]):
        pmf = _convolve_rows(pmf, binomial_pmf(count, q))
    return np.clip(pmf, 0.0, None)


def passing_distribution(probabilities: Sequence[float]) -> Array:
    """P(exactly k cases pass) for k = 0..n, for independent cases with these pass probabilities."""
    counts: dict[float, int] = {}
    for q in probabilities:
        counts[float(q)] = counts.get(float(q), 0) + 1
    parts = [(np.array([q]), count) for q, count in counts.items()]
    pmf: Array = distribution_of_kinds(parts)[0]
    return pmf


def fail_probabilities(pmf: Array) -> Array:
    """P(fewer than k cases pass) for k = 0..n (along the last axis), each clipped to [0, 1]."""
    below = np.zeros(pmf.shape)
    np.cumsum(pmf[..., :-1], axis=-1, out=below[..., 1:])
    return np.clip(below, 0.0, 1.0)


def fail_probability(pmf: Array, min_passing: int) -> float:
    """P(fewer than ``min_passing`` cases pass), summed from the lower tail for accuracy."""
    return min(math.fsum(pmf[:min_passing].tolist()), 1.0)


def suite_distribution(
    suite: BuildTruth, rates: RatesLike | None = None, *, repeats: int = 1
) -> Array:
    """The exact distribution of the number of passing cases of ``suite`` under ``rates``."""
    model = None if rates is None else as_error_rates(rates, "rates")
    repeats = check_repeats(repeats)
    kinds = suite_kinds(suite, needs_rates=model is None)
    values = _kind_values(kinds, model, repeats)
    pmf: Array = distribution_of_kinds([(np.array([values[k]]), n) for k, n in kinds.items()])[0]
    return pmf


def gate_risk(
    suite: BuildTruth,
    rates: RatesLike | None = None,
    thresholds: Sequence[float] | None = None,
    *,
    repeats: int = 1,
) -> tuple[GateRisk, ...]:
    """The exact probability that each gate fails a build whose true verdicts are ``suite``.

    ``rates``: the judge's ``ErrorRates`` (false pass, false fail, overdispersion), measured
    ``JudgeRates`` (their point rates), or a flip rate, for judged checks without a rate of
    their own. ``repeats``: judge calls per judged check, decided by majority. ``thresholds``
    are pass rates (1.0 is "every case passes"); by default every distinct gate. Each result's
    gate lists the other thresholds that are the same gate.
    """
    below = every_gate_risk(suite, rates, repeats=repeats)
    gates = make_gates(len(suite), thresholds)
    values = below[[gate.min_passing for gate in gates]].tolist()
    return tuple(GateRisk(gate, value) for gate, value in zip(gates, values, strict=True))


def every_gate_risk(
    suite: BuildTruth, rates: RatesLike | None = None, *, repeats: int = 1
) -> Array:
    """The exact failure probability of every gate at once: entry k is P(fewer than k of the
    suite's cases pass), the risk of the gate "at least k cases pass", for k = 0..n."""
    return fail_probabilities(suite_distribution(suite, rates, repeats=repeats))
