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


def test_graded_judgments_from_the_sample_metadata_are_the_gains() -> None:
    qrels = {"d1": 3, "d2": 1, "d3": 0, "d4": 2}
    s = Sample(name="g", parameters=["q"], metadata={"qrels": qrels})
    retrieved = ["d2", "d3", "d4", "d9", "d1"]
    run = {"q": {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}}
    for measure in ("ndcg_cut_5", "map", "P_3", "recall_5"):
        got = RetrievalMetric(measure).evaluate(s, retrieved)
        want = retrieval_metrics({"q": qrels}, run, [measure])["q"][measure]
        assert got.score == pytest.approx(want, abs=1e-12), measure
    graded = RetrievalMetric("ndcg_cut_5").evaluate(s, retrieved).score
    flat = Sample(name="f", parameters=["q"], expected_outputs=["d1", "d2", "d4"])
    assert graded != RetrievalMetric("ndcg_cut_5").evaluate(flat, retrieved).score
    result = RetrievalMetric("P_3").evaluate(s, retrieved)
    assert result.metadata["expected"] == 3 and result.metadata["found"] == 3


@pytest.mark.parametrize(
    "qrels", [["d1"], {"d1": "high"}, {"d1": True}, {"d1": 0}], ids=["list", "str", "bool", "none"]
)
def test_bad_or_empty_graded_judgments_are_typed_errors(qrels: object) -> None:
    s = Sample(name="g", parameters=["q"], metadata={"qrels": qrels})
    with pytest.raises(StrategyError, match="sample 'g'"):
        RetrievalMetric().evaluate(s, ["d1"])
