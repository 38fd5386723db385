"""The AgentTestCase model's examples (issue: seed parity, second round): contextual precision
and recall as the field defines them, and every check reading a field from the test case."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark import Sample, TestCase
from evalmark.models import HashEmbedding, ScriptedChat
from evalmark.strategies import (
    ContextualPrecision,
    ContextualRecall,
    ExactMatch,
    Faithfulness,
    LLMJudge,
    TokenF1,
)

RETRIEVED = "Customers may request a full refund within 30 days."
TRUTH = "Full refund within 30 days of purchase."
SAMPLE = Sample(name="refund", parameters=["What is the refund window?"], context=[TRUTH])


@pytest.mark.parametrize("check", [ContextualPrecision, ContextualRecall])
def test_the_seed_example_no_longer_scores_zero(check: type[ContextualPrecision]) -> None:
    result = check().evaluate(SAMPLE, [RETRIEVED])
    assert result.score == 1.0 and result.passed
    unrelated = check().evaluate(SAMPLE, ["The store opens at nine."])
    assert unrelated.score == 0.0


def test_precision_is_the_mean_of_precision_at_each_relevant_rank() -> None:
    retrieved = ["The store opens at nine.", RETRIEVED, "Refunds take 30 days of purchase, full."]
    # relevant at ranks 2 and 3: (1/2 + 2/3) / 2
    result = ContextualPrecision().evaluate(SAMPLE, retrieved)
    assert result.score == pytest.approx(7 / 12)


def test_recall_is_the_share_of_ground_truth_statements_attributable() -> None:
    sample = Sample(
        name="two", parameters=["q"], context=[TRUTH + " Store credit is given after that."]
    )
    assert ContextualRecall().evaluate(sample, [RETRIEVED]).score == 0.5


def test_embedding_relevance_with_the_offline_embedding() -> None:
    check = ContextualRecall(relevance="embedding", model=HashEmbedding())
    assert check.evaluate(SAMPLE, [RETRIEVED]).score == 1.0
    strict = ContextualRecall(relevance="embedding", min_similarity=0.9)
    assert strict.evaluate(SAMPLE, [RETRIEVED]).score == 0.0


def test_judge_relevance_asks_about_each_chunk_and_statement() -> None:
    chat = ScriptedChat({"store opens": "no", "full refund": "yes"})
    check = ContextualPrecision(relevance="judge", model=chat)
    result = check.evaluate(SAMPLE, ["The store opens at nine.", RETRIEVED])
    assert result.score == pytest.approx(1 / 2)
    assert len(chat.calls) == 2


def test_a_suite_check_picks_judge_relevance_and_uses_the_suites_judge() -> None:
    from evalmark.errors import StrategyError
    from evalmark.strategies._registry import build_strategy

    chat = ScriptedChat({"store opens": "no", "full refund": "yes"})
    check = build_strategy("contextual-precision", {"relevance": "judge"}, chat)
    assert check.evaluate(SAMPLE, ["The store opens at nine.", RETRIEVED]).score == 0.5
    assert len(chat.calls) == 2
    with pytest.raises(StrategyError, match="set judge: in the suite"):
        build_strategy("contextual-recall", {"relevance": "judge"}, None)
    assert build_strategy("contextual-recall", {}, chat).model is None  # lexical by default


def test_relevance_options_are_checked() -> None:
    with pytest.raises(ValueError, match="relevance must be one of"):
        ContextualRecall(relevance="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs model="):
        ContextualRecall(relevance="judge")


# --------------------------------------------------------------- one place for each field

CASE_SAMPLE = Sample(
    name="capital",
    parameters=["What is the capital of France?"],
    expected_output="Lyon",
    context=["Lyon is a city in France."],
)
CASE = TestCase(
    "What is the capital of France?",
    "Paris",
    expected_output="Paris",
    retrieval_context=("Paris is the capital of France.",),
    context=("Paris is the capital of France.",),
)


def test_token_f1_and_the_correctness_judge_read_the_same_expected_output() -> None:
    f1 = TokenF1().evaluate(CASE_SAMPLE, CASE)
    exact = ExactMatch().evaluate(CASE_SAMPLE, CASE)
    chat = ScriptedChat(["VERDICT: yes"])
    LLMJudge("correctness", chat).evaluate(CASE_SAMPLE, CASE)
    assert f1.score == 1.0 and exact.passed
    assert "Paris" in str(chat.calls[0]) and "Lyon" not in str(chat.calls[0])


def test_context_checks_read_the_test_cases_context() -> None:
    for check in (ContextualPrecision(), ContextualRecall()):
        assert check.evaluate(CASE_SAMPLE, CASE).score == 1.0


def test_without_its_own_value_the_test_case_falls_back_to_the_sample() -> None:
    case = TestCase("What is the capital of France?", "Lyon")
    assert TokenF1().evaluate(CASE_SAMPLE, case).score == 1.0
    assert Faithfulness().evaluate(CASE_SAMPLE, case).passed


def test_a_suite_check_takes_the_relevance_options() -> None:
    from evalmark.strategies._registry import get_strategy_kind

    kind = get_strategy_kind("contextual-recall")
    check = kind.build({"name": "recall", "relevance": "embedding", "min-similarity": 0.9}, None)
    assert check.relevance == "embedding" and check.min_similarity == 0.9
    assert check.evaluate(SAMPLE, [RETRIEVED]).score == 0.0


def test_a_suite_whose_context_check_asks_the_judge_builds_its_judge(tmp_path: Path) -> None:
    from evalmark import load_suite

    (tmp_path / "samples.yaml").write_text("- name: a\n  parameters: [q]\n  context: [x]\n")
    (tmp_path / "app.py").write_text("def answer(q):\n    return ['x']\n")
    text = (
        "name: ctx\nsamples: samples.yaml\napplication:\n  function: app.py:answer\n"
        "strategies:\n  - contextual-recall: {relevance: RELEVANCE}\n"
    )
    (tmp_path / "suite.yaml").write_text(text.replace("RELEVANCE", "judge"))
    assert load_suite(tmp_path / "suite.yaml").judged
    (tmp_path / "suite.yaml").write_text(text.replace("RELEVANCE", "lexical"))
    assert not load_suite(tmp_path / "suite.yaml").judged
