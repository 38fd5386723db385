"""Deterministic contextual precision and recall of a retrieval against the ground-truth
context (the sample's ``context``).

A retrieved item is relevant when, after normalization, it contains a ground-truth item or is
contained in one. Contextual precision is the ranked (average) precision of the retrieval:
the mean of precision@k over the ranks k of the relevant items, so relevant items retrieved
first score higher. Contextual recall is the share of ground-truth items found in some
retrieved item. Both pass at ``threshold``.
"""

from __future__ import annotations

from typing import Any, Literal

from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._retrieval import retrieved_items
from evalmark.strategies._text import normalize_text
from evalmark.telemetry._direct import recorded

__all__ = ["ContextualPrecision", "ContextualRecall"]


def _related(a: str, b: str) -> bool:
    return bool(a) and bool(b) and (a in b or b in a)


class _ContextMetric:
    measure: Literal["precision", "recall"]

    def __init__(self, threshold: float = 0.5, *, name: str | None = None) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.threshold = float(threshold)
        self.name = name or type(self).__name__

    def _inputs(self, sample: Sample, output: Any) -> tuple[list[str], list[str]]:
        truth = [normalize_text(str(c)) for c in sample.context]
        if not truth:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no ground-truth context; add context "
                "to the sample"
            )
        items = retrieved_items(output, strategy=self.name, sample=sample)
        return truth, [normalize_text(i) for i in items]

    def _score(self, truth: list[str], retrieved: list[str]) -> float:
        raise NotImplementedError

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Score the retrieval against the sample's context."""
        truth, retrieved = self._inputs(sample, output)
        score = self._score(truth, retrieved)
        text = f"contextual {self.measure} {score:.3f}"
        relation = ">=" if score >= self.threshold else "<"
        metadata = {"retrieved": len(retrieved), "ground_truth": len(truth)}
        return EvaluationResult(
            score >= self.threshold,
            score,
            f"{text} {relation} threshold {self.threshold:g}",
            metadata,
        )


class ContextualPrecision(_ContextMetric):
    """Ranked precision of the retrieved items; see the module docstring."""

    measure = "precision"

    def _score(self, truth: list[str], retrieved: list[str]) -> float:
        hits = 0
        total = 0.0
        for rank, item in enumerate(retrieved, start=1):
            if any(_related(item, t) for t in truth):
                hits += 1
                total += hits / rank
        return total / hits if hits else 0.0


class ContextualRecall(_ContextMetric):
    """Share of ground-truth context items retrieved; see the module docstring."""

    measure = "recall"

    def _score(self, truth: list[str], retrieved: list[str]) -> float:
        found = sum(1 for t in truth if any(_related(item, t) for item in retrieved))
        return found / len(truth)
