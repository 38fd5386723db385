"""Dot-product embedding similarity beside cosine, and the keyword-relevance strategy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from evalmark import Sample
from evalmark.errors import StrategyError
from evalmark.models._adapters import CallableEmbedding
from evalmark.strategies import KeywordRelevance, SemanticSimilarity
from evalmark.strategies._registry import STRATEGY_KINDS, build_strategy

VECTORS = {"ref": [0.6, 0.8], "a": [0.3, 0.4], "b": [1.2, 1.6]}


def _embed(texts: list[str]) -> Any:
    return np.array([VECTORS[t] for t in texts])


MODEL = CallableEmbedding(_embed, model_id="fixed")


def _sample(expected: str = "ref", **metadata: Any) -> Sample:
    return Sample(name="s", parameters=["q"], expected_output=expected, metadata=metadata)


def test_dot_product_differs_from_cosine_on_unnormalised_vectors() -> None:
    # cosine of parallel vectors is 1; the dot product of ref·a = 0.18 + 0.32 = 0.5
    cosine = SemanticSimilarity(0.7, model=MODEL)
    dot = SemanticSimilarity(0.4, model=MODEL, similarity="dot")
    assert cosine.evaluate(_sample(), "a").score == pytest.approx(1.0)
    result = dot.evaluate(_sample(), "a")
    assert result.passed and result.score == pytest.approx(0.5)
    assert result.explanation.startswith("dot product 0.500")
    # ref·b = 0.72 + 1.28 = 2.0, clipped to 1.0
    assert dot.evaluate(_sample(), "b").score == 1.0
    with pytest.raises(ValueError, match="similarity must be"):
        SemanticSimilarity(model=MODEL, similarity="l2")  # type: ignore[arg-type]


def test_keyword_relevance_counts_whole_words() -> None:
    strategy = KeywordRelevance(["refund", "30 days", "receipt"], threshold=0.6)
    result = strategy.evaluate(_sample("x"), "Refunds within 30 days, with a receipt.")
    # "refund" is not a whole word of "Refunds": 2 of 3
    assert result.passed and result.score == pytest.approx(2 / 3)
    assert result.metadata["missing"] == ["refund"]
    assert not KeywordRelevance(["refund"]).evaluate(_sample("x"), "no").passed


def test_keyword_relevance_from_sample_metadata_and_kind() -> None:
    sample = _sample("x", keywords=["Paris", "France"])
    assert KeywordRelevance().evaluate(sample, "Paris is in France").score == 1.0
    built = build_strategy("keyword-relevance", {"name": "kw", "threshold": 0.5})
    assert built.evaluate(sample, "Paris!").passed and built.name == "kw"
    with pytest.raises(StrategyError, match="has no keywords"):
        KeywordRelevance().evaluate(_sample("x"), "Paris")


def test_semantic_similarity_kind_takes_the_similarity_option() -> None:
    assert "keyword-relevance" in STRATEGY_KINDS
    built = build_strategy("semantic-similarity", {"name": "sim", "similarity": "dot"})
    assert built.similarity == "dot"
