"""``RetrievalMetric``: one trec_eval measure of the document ids a retriever returned against
the ids it should have returned."""

from __future__ import annotations

import math
from typing import Any

from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._retrieval import retrieved_items

__all__ = ["RetrievalMetric"]


def _expected_ids(sample: Sample, output: Any) -> tuple[str, ...]:
    context = getattr(output, "context", None)
    if isinstance(context, tuple) and context:
        return context
    if sample.expected_outputs:
        return tuple(sample.expected_outputs)
    return (sample.expected_output,) if sample.expected_output else ()


def _graded(sample: Sample, name: str) -> dict[str, int] | None:
    graded = (sample.metadata or {}).get("qrels")
    if graded is None:
        return None
    if not isinstance(graded, dict) or not all(
        isinstance(doc, str) and isinstance(grade, int) and not isinstance(grade, bool)
        for doc, grade in graded.items()
    ):
        raise StrategyError(
            f"{name}: sample '{sample.name}': metadata qrels must map each document id to an "
            "integer relevance grade, e.g. qrels: {doc-1: 2, doc-7: 1, doc-9: 0}"
        )
    return dict(graded)


class RetrievalMetric:
    """A retrieval measure (trec_eval's name: ``ndcg_cut_10``, ``map``, ``recip_rank``,
    ``P_5``, ``recall_10``, ``Rprec``, ``success_1`` ...) of the retrieved document ids, in
    rank order, against the expected ids, each relevant with judgment 1.

    The retrieved ids are the output (a list of ids, or of items with ``text``) or a TestCase's
    ``retrieval_context``; the expected ids are the TestCase's ``context``, else the sample's
    ``expected_outputs`` (or ``expected_output``). Graded judgments come from the sample's
    metadata ``qrels`` (document id to integer grade, as trec_eval's qrels: 0 is judged not
    relevant; nDCG uses the grades as gains). Passes when the measure reaches ``threshold``."""

    def __init__(
        self, measure: str = "ndcg_cut_10", threshold: float = 0.5, *, name: str | None = None
    ) -> None:
        from evalmark.metrics._retrieval import _parse

        keys, _, _ = _parse((measure,))
        if len(keys) != 1:
            raise ValueError(f"RetrievalMetric: {measure!r} names {len(keys)} measures; name one")
        if not 0.0 <= threshold <= 1.0 or not math.isfinite(threshold):
            raise ValueError(f"RetrievalMetric: threshold must be in [0, 1], got {threshold}")
        self.measure = keys[0]
        self.threshold = float(threshold)
        self.name = name or f"RetrievalMetric({self.measure})"

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Score the retrieved ids against the expected ones."""
        from evalmark.metrics._retrieval import retrieval_metrics_batch

        qrel = _graded(sample, self.name)
        if qrel is None:
            qrel = dict.fromkeys(_expected_ids(sample, output), 1)
        if not any(grade > 0 for grade in qrel.values()):
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' lists no relevant document ids; give "
                "expected-outputs: [id, ...], metadata qrels: {id: grade} (or a TestCase context)"
            )
        retrieved = list(dict.fromkeys(retrieved_items(output, strategy=self.name, sample=sample)))
        score = float(
            retrieval_metrics_batch([qrel], [retrieved], (self.measure,))[self.measure][0]
        )
        relevant = sum(1 for grade in qrel.values() if grade > 0)
        found = sum(1 for doc in retrieved if qrel.get(doc, 0) > 0)
        passed = score >= self.threshold
        text = (
            f"{self.measure} = {score:.4f}: {found} of {relevant} relevant ids among "
            f"{len(retrieved)} retrieved"
        )
        metadata: dict[str, Any] = {
            "measure": self.measure,
            "found": found,
            "expected": relevant,
            "retrieved": len(retrieved),
        }
        return EvaluationResult(passed, score, text, metadata)
