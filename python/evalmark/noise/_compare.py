"""Is build B better or worse than build A beyond noise? Paired tests on the same cases.

Per case, each build passed or failed and has a score. Three answers, each on the cases both
builds ran:

- the exact McNemar test on pass/fail: of the cases the builds disagree on, how many went each
  way; under "no difference" each way is a fair coin, so the two-sided p-value is twice the
  binomial tail of the smaller count (capped at 1);
- a paired confidence interval for the mean difference (B − A) of the scores and of the pass
  rates, with standard errors clustered by group (cases of one conversation, or sharing tags,
  are not independent): V = G/(G − 1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n², Student t with G − 1
  degrees of freedom (with no groups, each case is its own: the usual paired t interval);
- the number of cases needed to detect a difference of a given size with the given power
  (:mod:`evalmark.noise._power`, re-exported here): for pass rates, where McNemar's exact test
  reaches that power at the observed share of disagreeing cases; for scores, by the normal
  approximation with the observed spread of differences and the design effect of the groups;
- the minimum detectable difference at the number of cases compared: the smallest pass-rate
  change McNemar's exact test sees with the given power, at the observed share of disagreeing
  cases (:func:`~evalmark.noise._power.minimum_detectable_difference`). When it is larger than
  the change that matters, "no difference beyond noise" says little.

The inputs are plain per-case data; reading reports or running suites is the caller's job.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from evalmark.noise._power import (
    cases_to_detect_pass_rate,
    cases_to_detect_score,
    check_power,
    mcnemar_power,
    minimum_detectable_difference,
)
from evalmark.noise._special import student_t_ppf

__all__ = [
    "BuildComparison",
    "CaseOutcome",
    "McNemarResult",
    "MeanDifference",
    "cases_to_detect_pass_rate",
    "cases_to_detect_score",
    "clustered_mean_difference",
    "compare_builds",
    "mcnemar_exact",
    "mcnemar_power",
    "minimum_detectable_difference",
]


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One case of one build: did it pass, its score (None if it has none), and its group."""

    name: str
    passed: bool
    score: float | None = None
    group: Hashable | None = None


@dataclass(frozen=True, slots=True)
class McNemarResult:
    """The exact McNemar test: ``worse`` cases passed in A and failed in B, ``better`` the
    reverse; ``p_value`` is two-sided."""

    both_passed: int
    both_failed: int
    worse: int
    better: int
    p_value: float

    @property
    def discordant(self) -> int:
        """The cases the two builds disagree on."""
        return self.worse + self.better


@dataclass(frozen=True, slots=True)
class MeanDifference:
    """The paired mean difference B − A with its clustered standard error and interval."""

    mean_a: float
    mean_b: float
    difference: float
    standard_error: float
    low: float
    high: float
    confidence: float
    cases: int
    clusters: int
    design_effect: float  # clustered variance over the variance if cases were independent

    @property
    def degrees_of_freedom(self) -> int:
        """Of the t interval: clusters − 1."""
        return self.clusters - 1


@dataclass(frozen=True, slots=True)
class BuildComparison:
    """The answer of ``compare_builds``."""

    cases: int
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]
    mcnemar: McNemarResult
    pass_rate: MeanDifference | None
    score: MeanDifference | None
    scored_cases: int
    alpha: float
    power: float
    detect: float
    cases_for_pass_rate: int
    exact_power_at_cases: float
    cases_for_score: int | None
    # the smallest pass-rate change detected with ``power`` on these cases (None: none is)
    detectable: float | None = None

    @property
    def underpowered(self) -> bool:
        """True when McNemar's test on these cases is unlikely (less than ``power``) to see a
        pass-rate change of ``detect``: the minimum detectable difference is larger."""
        return self.detectable is None or self.detectable > self.detect

    @property
    def pass_verdict(self) -> str:
        """``"worse"``, ``"better"`` or ``"no difference"`` by McNemar's test at ``alpha``."""
        m = self.mcnemar
        if m.discordant == 0 or m.p_value > self.alpha:
            return "no difference"
        return "worse" if m.worse > m.better else "better"

    @property
    def score_verdict(self) -> str:
        """``"worse"``, ``"better"`` or ``"no difference"``: the score interval excludes 0."""
        s = self.score
        if s is None or s.clusters < 2 or (s.low <= 0.0 <= s.high):
            return "no difference"
        return "worse" if s.high < 0.0 else "better"

    @property
    def verdict(self) -> str:
        """``"worse"``, ``"better"``, ``"mixed"`` (the two answers disagree) or
        ``"no difference"`` (beyond noise)."""
        found = {self.pass_verdict, self.score_verdict} - {"no difference"}
        if not found:
            return "no difference"
        return found.pop() if len(found) == 1 else "mixed"


def mcnemar_exact(a_passed: Sequence[bool], b_passed: Sequence[bool]) -> McNemarResult:
    """The exact two-sided McNemar test on paired pass/fail verdicts."""
    if len(a_passed) != len(b_passed):
        raise ValueError(
            f"paired verdicts need equal lengths, got {len(a_passed)} and {len(b_passed)}"
        )
    both_passed = both_failed = worse = better = 0
    for a, b in zip(a_passed, b_passed, strict=True):
        if a and b:
            both_passed += 1
        elif a:
            worse += 1
        elif b:
            better += 1
        else:
            both_failed += 1
    return McNemarResult(both_passed, both_failed, worse, better, _mcnemar_p(worse, better))


def _mcnemar_p(worse: int, better: int) -> float:
    n = worse + better
    if n == 0:
        return 1.0
    low = min(worse, better)
    tail = sum(math.comb(n, i) for i in range(low + 1))
    return min(1.0, float(Fraction(2 * tail, 2**n)))


def clustered_mean_difference(
    a: Sequence[float],
    b: Sequence[float],
    groups: Sequence[Hashable] | None = None,
    *,
    confidence: float = 0.95,
) -> MeanDifference:
    """The mean of B − A over paired cases, its standard error clustered by ``groups`` (one
    label per case; None: every case its own group) and its t interval with G − 1 degrees of
    freedom. Needs at least two groups."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths, got {len(a)} and {len(b)}")
    if groups is not None and len(groups) != len(a):
        raise ValueError(f"groups needs one label per case: {len(groups)} labels, {len(a)} cases")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    values_a = np.asarray(a, dtype=np.float64)
    values_b = np.asarray(b, dtype=np.float64)
    if not (np.isfinite(values_a).all() and np.isfinite(values_b).all()):
        raise ValueError("scores must be finite numbers (no NaN or infinity)")
    n = values_a.size
    labels: Sequence[Hashable] = list(range(n)) if groups is None else groups
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(label, len(index)) for label in labels], dtype=np.intp)
    clusters = len(index)
    if clusters < 2:
        raise ValueError(f"a clustered interval needs at least two groups of cases, got {clusters}")
    d = values_b - values_a
    mean = math.fsum(d.tolist()) / n
    sums = np.bincount(codes, weights=d - mean, minlength=clusters)
    variance = clusters / (clusters - 1) * math.fsum((sums * sums).tolist()) / (n * n)
    se = math.sqrt(variance)
    plain = math.fsum(((d - mean) ** 2).tolist()) / (n - 1) / n if n > 1 else 0.0
    half = student_t_ppf(0.5 + confidence / 2.0, clusters - 1) * se
    return MeanDifference(
        mean_a=math.fsum(values_a.tolist()) / n,
        mean_b=math.fsum(values_b.tolist()) / n,
        difference=mean,
        standard_error=se,
        low=mean - half,
        high=mean + half,
        confidence=confidence,
        cases=n,
        clusters=clusters,
        design_effect=variance / plain if plain > 0.0 else 1.0,
    )


def compare_builds(
    a: Sequence[CaseOutcome],
    b: Sequence[CaseOutcome],
    *,
    confidence: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
    detect: float = 0.05,
) -> BuildComparison:
    """Compare build B with build A on the cases both ran (matched by name; the group of a case
    is A's, else B's). ``detect``: the difference (in pass rate, and in mean score) whose
    needed number of cases is reported."""
    alpha, power = check_power(alpha, power)
    if not 0.0 < detect <= 1.0:
        raise ValueError(f"detect must be a difference in (0, 1], got {detect!r}")
    by_name_b: dict[str, CaseOutcome] = {}
    for case in b:
        if case.name in by_name_b:
            raise ValueError(f"case {case.name!r} appears twice in build B")
        by_name_b[case.name] = case
    seen: set[str] = set()
    pairs = []
    for case in a:
        if case.name in seen:
            raise ValueError(f"case {case.name!r} appears twice in build A")
        seen.add(case.name)
        other = by_name_b.get(case.name)
        if other is not None:
            pairs.append((case, other))
    only_a = tuple(case.name for case in a if case.name not in by_name_b)
    only_b = tuple(case.name for case in b if case.name not in seen)
    if not pairs:
        raise ValueError("the two builds have no case in common: nothing to compare")
    groups = [x.group if x.group is not None else y.group for x, y in pairs]
    labels: list[Hashable] | None = None
    if any(g is not None for g in groups):  # an ungrouped case is a group of its own
        labels = [
            ("case", x.name) if g is None else g for g, (x, _) in zip(groups, pairs, strict=True)
        ]
    mcnemar = mcnemar_exact([x.passed for x, _ in pairs], [y.passed for _, y in pairs])
    pass_rate = _difference(
        [float(x.passed) for x, _ in pairs],
        [float(y.passed) for _, y in pairs],
        labels,
        confidence,
    )
    scored = [
        (float(x.score), float(y.score), i)
        for i, (x, y) in enumerate(pairs)
        if x.score is not None and y.score is not None
    ]
    score = _difference(
        [sa for sa, _, _ in scored],
        [sb for _, sb, _ in scored],
        None if labels is None else [labels[i] for _, _, i in scored],
        confidence,
    )
    n = len(pairs)
    share = mcnemar.discordant / n
    needed, exact = cases_to_detect_pass_rate(detect, share, alpha=alpha, power=power)
    for_score = None
    if score is not None:
        spread = float(np.std([sb - sa for sa, sb, _ in scored], ddof=1))
        for_score = cases_to_detect_score(
            spread, detect, alpha=alpha, power=power, design_effect=score.design_effect
        )
    return BuildComparison(
        cases=n,
        only_in_a=only_a,
        only_in_b=only_b,
        mcnemar=mcnemar,
        pass_rate=pass_rate,
        score=score,
        scored_cases=len(scored),
        alpha=alpha,
        power=power,
        detect=detect,
        cases_for_pass_rate=needed,
        exact_power_at_cases=exact,
        cases_for_score=for_score,
        detectable=minimum_detectable_difference(n, share, alpha=alpha, power=power),
    )


def _difference(
    a: Sequence[float], b: Sequence[float], labels: Sequence[Hashable] | None, confidence: float
) -> MeanDifference | None:
    clusters = len(set(labels)) if labels is not None else len(a)
    if clusters < 2:
        return None
    return clustered_mean_difference(a, b, labels, confidence=confidence)
