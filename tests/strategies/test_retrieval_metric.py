"""The retrieval-metric check: trec_eval measures of retrieved ids against expected ids."""

from __future__ import annotations

import pytest

from evalmark import Sample, TestCase
from evalmark.errors import StrategyError
from evalmark.metrics import retrieval_metrics
from evalmark.strategies import RetrievalMetric
from evalmark.strategies._registry import build_strategy


def sample(*expected: str) -> Sample:
    return Sample(name="r", parameters=["q"], expected_outputs=list(expected))


def test_score_is_the_trec_eval_measure_of_the_ranked_ids() -> None:
    s = sample("d2", "d7")
    retrieved = ["d1", "d2", "d3", "d7"]
    result = RetrievalMetric("map", threshold=0.5).evaluate(s, retrieved)
    run = {"q": {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}}
    want = retrieval_metrics({"q": {"d2": 1, "d7": 1}}, run, ["map"])["q"]["map"]
    assert result.score == pytest.approx(want) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert result.passed
    assert result.metadata["found"] == 2 and result.metadata["retrieved"] == 4
    assert not RetrievalMetric("P_1", threshold=0.5).evaluate(s, retrieved).passed


def test_reads_a_test_case_retrieval_context_and_context() -> None:
    case = TestCase("q", "a", retrieval_context=("x", "gold"), context=("gold",))
    result = RetrievalMetric("recip_rank").evaluate(sample("ignored"), case)
    assert result.score == 0.5


def test_suite_kind_builds_the_strategy() -> None:
    strategy = build_strategy("retrieval-metric", {"measure": "recall_10", "threshold": 1.0})
    result = strategy.evaluate(sample("a", "b"), ["b", "c", "a"])
    assert result.score == 1.0 and result.passed


def test_bad_measure_and_bad_output_are_typed_errors() -> None:
    with pytest.raises(ValueError, match="bpref"):
        RetrievalMetric("bpref")
    with pytest.raises(ValueError, match="name one"):
        RetrievalMetric("P")
    with pytest.raises(StrategyError, match="expected the retrieved items as a list"):
        RetrievalMetric().evaluate(sample("a"), "a")
