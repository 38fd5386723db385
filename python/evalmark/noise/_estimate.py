"""Estimating a judge's flip rate from repeated verdicts on the same prompts.

Two independent readings of a verdict whose reading flips with probability ε disagree with
probability D = 2ε(1 − ε) for yes/no verdicts, so ε = (1 − √(1 − 2D)) / 2. For a graded verdict
with G grades whose flip picks one of the other grades uniformly,
D = 1 − (1 − ε)² − ε²/(G − 1), so ε = (1 − √(1 − aD)) / a with a = G/(G − 1).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True, slots=True)
class FlipRateEstimate:
    """An estimated flip rate with its confidence interval and the data behind it.

    ``low`` and ``high`` come from a Wilson interval on the disagreement rate counted over
    ``independent_pairs`` disjoint pairs (⌊k/2⌋ per prompt with k verdicts): with more than two
    verdicts per prompt the point estimate uses every pair but the interval stays conservative.
    """

    flip_rate: float
    low: float
    high: float
    disagreement: float
    pairs: int
    independent_pairs: int
    prompts: int
    confidence: float


def flip_rate_from_disagreement(disagreement: float, grades: int = 2) -> float:
    """The flip rate giving this pairwise disagreement rate (capped where the judge is random)."""
    a = grades / (grades - 1)
    return (1.0 - math.sqrt(max(0.0, 1.0 - a * disagreement))) / a


def estimate_flip_rate(
    verdicts: Sequence[Sequence[Hashable]],
    *,
    grades: int = 2,
    confidence: float = 0.95,
) -> FlipRateEstimate:
    """Estimate the flip rate from repeated verdicts, one list of k ≥ 2 verdicts per prompt.

    Verdicts are compared for equality (booleans for yes/no judges, grades for graded ones;
    ``grades`` is the number of possible grades). Prompts with fewer than two verdicts are
    skipped.
    """
    if isinstance(grades, bool) or not isinstance(grades, int) or grades < 2:
        raise ValueError(f"grades must be an integer ≥ 2, got {grades!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95), got {confidence!r}")
    pairs = disagreeing = independent = prompts = 0
    labels: set[Hashable] = set()
    for row in verdicts:
        k = len(row)
        if k < 2:
            continue
        prompts += 1
        tally: dict[Hashable, int] = {}
        for verdict in row:
            tally[verdict] = tally.get(verdict, 0) + 1
        labels.update(tally)
        agreeing = sum(c * (c - 1) // 2 for c in tally.values())
        pairs += k * (k - 1) // 2
        disagreeing += k * (k - 1) // 2 - agreeing
        independent += k // 2
    if prompts == 0:
        raise ValueError("verdicts needs at least one prompt with two or more verdicts, got none")
    if len(labels) > grades:
        raise ValueError(
            f"the verdicts hold {len(labels)} distinct values but grades is {grades}: "
            "pass grades= with the number of possible grades"
        )
    d = disagreeing / pairs
    low_d, high_d = wilson_interval(d, independent, confidence)
    return FlipRateEstimate(
        flip_rate=flip_rate_from_disagreement(d, grades),
        low=flip_rate_from_disagreement(low_d, grades),
        high=flip_rate_from_disagreement(high_d, grades),
        disagreement=d,
        pairs=pairs,
        independent_pairs=independent,
        prompts=prompts,
        confidence=confidence,
    )


def wilson_interval(rate: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion observed as ``rate`` over ``trials``."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials!r}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    z2 = z * z
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (
        z * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    )
    low = 0.0 if rate <= 0.0 else max(0.0, centre - half)
    high = 1.0 if rate >= 1.0 else min(1.0, centre + half)
    return low, high
