"""Deterministic contextual precision and recall against the ground-truth context."""

from __future__ import annotations

import pytest

from evalmark import Sample
from evalmark.errors import StrategyError
from evalmark.strategies._context_metrics import ContextualPrecision, ContextualRecall

SAMPLE = Sample(
    name="s",
    parameters=["q"],
    expected_output="x",
    context=("Paris is the capital of France.", "The Seine flows through Paris."),
)


def test_ranked_precision_by_hand() -> None:
    # relevant at ranks 2 and 3: (1/2 + 2/3) / 2 = 7/12
    retrieved = ["Lyon is big.", "Paris is the capital of France", "the Seine flows through Paris"]
    result = ContextualPrecision(0.5).evaluate(SAMPLE, retrieved)
    assert result.score == pytest.approx(7 / 12) and result.passed
    # relevant first: (1/1 + 2/2) / 2 = 1
    assert ContextualPrecision().evaluate(SAMPLE, retrieved[1:] + retrieved[:1]).score == 1.0
    assert ContextualPrecision().evaluate(SAMPLE, ["nothing"]).score == 0.0


def test_recall_is_the_share_of_ground_truth_found() -> None:
    assert ContextualRecall().evaluate(SAMPLE, ["Paris is the capital of France."]).score == 0.5
    assert not ContextualRecall(0.6).evaluate(SAMPLE, ["Paris is the capital of France."]).passed
    both = ["Paris is the capital of France. More text.", "The Seine flows through Paris"]
    assert ContextualRecall().evaluate(SAMPLE, both).score == 1.0


def test_errors() -> None:
    with pytest.raises(StrategyError, match="no ground-truth context"):
        ContextualRecall().evaluate(Sample(name="n", parameters=["q"], expected_output="x"), [])
    with pytest.raises(ValueError, match="threshold"):
        ContextualPrecision(2.0)
