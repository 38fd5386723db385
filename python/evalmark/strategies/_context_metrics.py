"""Contextual precision and recall of a retrieval against the ground truth, as the field
defines them.

The ground truth is the case's ``context`` (what should have been retrieved: the TestCase's
when it carries one, else the sample's), split into statements (its sentences). The retrieved
chunks are the output's items, or a TestCase's ``retrieval_context``, in rank order.

* Contextual precision: rank-weighted precision of the relevant retrieved chunks, the mean of
  precision@k over the positions k of the relevant chunks (relevant chunks ranked first score
  higher; none relevant scores 0).
* Contextual recall: the share of ground-truth statements attributable to some retrieved chunk.

Whether a chunk supports a statement is one pluggable verdict, ``relevance``:

* ``"lexical"`` (the default, deterministic and offline): at least ``min_overlap`` (0.5) of the
  statement's distinct content words (stop words dropped, case-folded; see
  :func:`evalmark.models._lexical.overlap`) appear in the chunk;
* ``"embedding"``: the cosine of the two embeddings reaches ``min_similarity`` (0.5); ``model``
  is an :class:`~evalmark.models.EmbeddingModel` or its name, by default the offline
  ``HashEmbedding`` (``"hash"``; ``"wordllama:l2_supercat_256"`` is a trained offline model);
* ``"judge"``: a chat model (``model``, e.g. a recorded one) or an ``LLMJudge`` answers yes or
  no to "is this statement supported by this passage?", one call per pair.

Both checks pass at ``threshold``. The seed's example: retrieved "Customers may request a full
refund within 30 days." against "Full refund within 30 days of purchase." shares 5 of the
statement's 6 content words, so both score 1.0.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.models import embedding_model
from evalmark.models._lexical import overlap
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import case_context
from evalmark.strategies._faithfulness import claims_of
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._retrieval import retrieved_items

__all__ = ["RELEVANCE_TEMPLATE", "ContextualPrecision", "ContextualRecall"]

Relevance = Literal["lexical", "embedding", "judge"]
RELEVANCE_MODES: tuple[str, ...] = ("lexical", "embedding", "judge")

RELEVANCE_TEMPLATE = (
    "Passage:\n{context}\n\nStatement:\n{expected_output}\n\n"
    "Is the statement supported by the passage? Answer yes or no."
)


class _ContextMetric:
    measure: Literal["precision", "recall"]

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        relevance: Relevance = "lexical",
        model: Any = None,
        min_overlap: float = 0.5,
        min_similarity: float = 0.5,
        name: str | None = None,
    ) -> None:
        for what, value in (
            ("threshold", threshold),
            ("min_overlap", min_overlap),
            ("min_similarity", min_similarity),
        ):
            if isinstance(value, bool) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{what} must be in [0, 1], got {value!r}")
        if relevance not in RELEVANCE_MODES:
            raise ValueError(
                f"relevance must be one of {', '.join(RELEVANCE_MODES)}, got {relevance!r}"
            )
        self.threshold = float(threshold)
        self.relevance: Relevance = relevance
        self.min_overlap = float(min_overlap)
        self.min_similarity = float(min_similarity)
        self.name = name or type(self).__name__
        self.model = self._model(relevance, model)

    def _model(self, relevance: Relevance, model: Any) -> Any:
        if relevance == "embedding":
            return embedding_model(model)
        if relevance == "judge":
            if model is None:
                raise ValueError(f"{self.name}: relevance='judge' needs model= (a chat model)")
            if hasattr(model, "grade"):
                return model
            return LLMJudge(RELEVANCE_TEMPLATE, model, name=f"{self.name} relevance")
        if model is not None:
            raise ValueError(f"{self.name}: model= is for relevance 'embedding' or 'judge'")
        return None

    def _inputs(self, sample: Sample, output: Any) -> tuple[list[str], list[str]]:
        truth = [s for item in case_context(sample, output) for s in claims_of(str(item))]
        if not truth:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no ground-truth context; add context "
                "to the sample (or to the TestCase)"
            )
        return truth, retrieved_items(output, strategy=self.name, sample=sample)

    def supports(self, chunks: list[str], statements: list[str]) -> np.ndarray:
        """The verdict matrix: ``[i, j]`` is True when chunk i supports statement j."""
        if not chunks:
            return np.zeros((0, len(statements)), dtype=bool)
        if self.relevance == "lexical":
            return np.array(
                [[overlap(s, c)[0] >= self.min_overlap for s in statements] for c in chunks],
                dtype=bool,
            )
        if self.relevance == "embedding":
            vectors = np.asarray(self.model.embed([*chunks, *statements]), dtype=np.float64)
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            unit = vectors / np.where(norms == 0.0, 1.0, norms)
            cosine = unit[: len(chunks)] @ unit[len(chunks) :].T
            return np.asarray(cosine >= self.min_similarity, dtype=bool)
        return np.array(
            [
                [bool(self.model.grade(context=c, expected_output=s).passed) for s in statements]
                for c in chunks
            ],
            dtype=bool,
        )

    def _score(self, verdicts: np.ndarray) -> float:
        raise NotImplementedError

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Score the retrieval against the case's ground-truth context."""
        truth, retrieved = self._inputs(sample, output)
        verdicts = self.supports(retrieved, truth)
        score = self._score(verdicts)
        relation = ">=" if score >= self.threshold else "<"
        metadata = {
            "retrieved": len(retrieved),
            "ground_truth": len(truth),
            "relevance": self.relevance,
        }
        return EvaluationResult(
            score >= self.threshold,
            score,
            f"contextual {self.measure} {score:.3f} {relation} threshold {self.threshold:g} "
            f"({self.relevance} relevance)",
            metadata,
        )


class ContextualPrecision(_ContextMetric):
    """Rank-weighted precision of the relevant retrieved chunks; see the module docstring."""

    measure = "precision"

    def _score(self, verdicts: np.ndarray) -> float:
        hits = 0
        total = 0.0
        for rank, row in enumerate(verdicts, start=1):
            if row.any():
                hits += 1
                total += hits / rank
        return total / hits if hits else 0.0


class ContextualRecall(_ContextMetric):
    """Share of ground-truth statements attributable to the retrieval; see the module
    docstring."""

    measure = "recall"

    def _score(self, verdicts: np.ndarray) -> float:
        found = int(verdicts.any(axis=0).sum()) if len(verdicts) else 0
        return found / int(verdicts.shape[1])
