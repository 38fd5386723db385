"""The Spring AI evaluators article's examples (issue: seed parity, second round): a golden row
with facts and context but no expected answer, and graded judge scores on a 0..5 scale."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark import Sample, Scorer, load_samples
from evalmark.errors import SampleError
from evalmark.models import ScriptedChat
from evalmark.strategies import ContainsFacts, ExactMatch, LLMJudge

GOLDEN_ROW = """\
- name: refund-policy
  parameters: [What is the refund policy?]
  context:
    - Customers may request a full refund within 30 days.
  expected-facts:
    - 30 days
"""

ARTICLE_TEMPLATE = (
    "Rate the response to {question} against {expected_output} from 0 to 5.\n"
    "Response: {response}\nReply with the grade only."
)


def test_a_golden_row_without_an_expected_answer_loads(tmp_path: Path) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text(GOLDEN_ROW, encoding="utf-8")
    (sample,) = load_samples(path)
    assert sample.expected_output is None
    assert sample.expected_facts == ("30 days",)
    assert sample.context == ("Customers may request a full refund within 30 days.",)


def test_only_the_check_that_needs_the_missing_answer_fails_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text(GOLDEN_ROW, encoding="utf-8")
    answer = "You can get a full refund within 30 days."
    report = Scorer().evaluate(load_samples(path), lambda q: answer, ContainsFacts(), ExactMatch())
    facts = report.result("refund-policy", "ContainsFacts")
    exact = report.result("refund-policy", "ExactMatch")
    assert facts.passed and facts.error is None
    assert not exact.passed
    assert exact.error is not None and "expected-output" in str(exact.error)


@pytest.mark.parametrize(
    "fields",
    [{"metadata": {"rubric": "mentions the 30-day window"}}, {"context": ["a document"]}],
)
def test_a_rubric_or_context_is_an_expectation(fields: dict[str, object]) -> None:
    sample = Sample(name="row", parameters=["q"], **fields)  # type: ignore[arg-type]
    assert sample.expected_output is None


def test_a_row_with_no_expectation_at_all_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text("- name: bare\n  parameters: [hi]\n", encoding="utf-8")
    with pytest.raises(SampleError, match=r"missing the expectation.*expected-facts"):
        load_samples(path)


SAMPLE = Sample(
    name="capital", parameters=["What is the capital of France?"], expected_output="Paris"
)


@pytest.mark.parametrize(("reply", "score"), [("4/5", 0.8), ("3", 0.6), ("0", 0.0)])
def test_the_articles_grades_on_zero_to_five(reply: str, score: float) -> None:
    judge = LLMJudge(ARTICLE_TEMPLATE, ScriptedChat([reply]), parse="grade", grades=(0, 5))
    result = judge.evaluate(SAMPLE, "Paris")
    assert result.error is None, result.error
    assert result.score == pytest.approx(score)


def test_the_built_in_rubric_refuses_a_scale_it_is_not_written_for() -> None:
    with pytest.raises(ValueError, match=r"'rubric' is written for grades 1\.\.5"):
        LLMJudge("rubric", ScriptedChat(["4"]), grades=(0, 5))


def test_a_scale_on_a_judge_that_does_not_grade_is_refused() -> None:
    with pytest.raises(ValueError, match="applies to graded replies"):
        LLMJudge("correctness", ScriptedChat(["yes"]), grades=(0, 5))


def test_the_built_in_rubric_keeps_its_own_scale() -> None:
    judge = LLMJudge("rubric", ScriptedChat(["GRADE: 4"]), grades=(1, 5))
    result = judge.evaluate(SAMPLE, "Paris")
    assert result.score == pytest.approx(0.75)
