"""Judge votes and how several are combined: :class:`Vote`, :func:`reduce_votes` and the
reducers (``majority``, ``all``, ``any``, ``mean``), shared by every judged strategy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

__all__ = ["REDUCERS", "Reducer", "Vote", "reduce_votes"]

Reducer = Literal["majority", "all", "any", "mean"]
REDUCERS: tuple[str, ...] = ("majority", "all", "any", "mean")


class Vote:
    """One judge call read: pass/fail, score in [0, 1], the reply, and whether it was flipped
    by a noisy judge (None when unknown)."""

    __slots__ = ("flipped", "passed", "reply", "score")

    def __init__(self, passed: bool, score: float, reply: str, flipped: bool | None) -> None:
        self.passed = passed
        self.score = score
        self.reply = reply
        self.flipped = flipped


def reduce_votes(votes: Sequence[Vote], reducer: Reducer, threshold: float) -> tuple[bool, float]:
    """(passed, score) of several votes. ``majority``: more than half passed (a tie fails);
    ``all`` / ``any``: every / some vote passed; ``mean``: the mean score reaches
    ``threshold``. The score is always the votes' mean."""
    if not votes:
        raise ValueError("no votes to reduce")
    score = math.fsum(v.score for v in votes) / len(votes)
    passes = sum(v.passed for v in votes)
    if reducer == "majority":
        return passes * 2 > len(votes), score
    if reducer == "all":
        return passes == len(votes), score
    if reducer == "any":
        return passes > 0, score
    if reducer == "mean":
        return score >= threshold, score
    raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, got {reducer!r}")
