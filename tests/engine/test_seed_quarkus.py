"""The Quarkus LangChain4j testing extension's examples, as its users write them (issue: seed
parity, second round): true/false judges, two instances of one strategy, samples from a path,
the extension's score beside the pass rate, and assertions on one result."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark import Evaluation, EvaluationResult, Sample, Scorer, write_samples
from evalmark.errors import SampleError
from evalmark.gates import assert_that
from evalmark.models import ScriptedChat
from evalmark.strategies import ExactMatch, LLMJudge, SemanticSimilarity, TokenF1
from evalmark.strategies._parsing import parse_yes_no

SEED_PROMPT = (
    "Question: {question}\nResponse: {response}\nExpected: {expected_output}\n"
    "Return true if the response is correct, false otherwise."
)
SAMPLES = [
    Sample(
        name="capital", parameters=["What is the capital of France?"], expected_outputs=["Paris"]
    ),
    Sample(name="sum", parameters=["What is 2 + 2?"], expected_outputs=["4"]),
]


@pytest.mark.parametrize(
    ("reply", "passed"),
    [("true", True), ("True.", True), ("**false**", False), ("FALSE - wrong city", False)],
)
def test_a_true_false_judge_prompt_gives_verdicts(reply: str, passed: bool) -> None:
    judge = LLMJudge(SEED_PROMPT, ScriptedChat([reply]))
    result = judge.evaluate(SAMPLES[0], "Paris")
    assert result.error is None, result.error
    assert result.passed is passed


@pytest.mark.parametrize(
    ("word", "meaning"),
    [
        ("yes", True),
        ("true", True),
        ("pass", True),
        ("passed", True),
        ("correct", True),
        ("no", False),
        ("false", False),
        ("fail", False),
        ("failed", False),
        ("incorrect", False),
    ],
)
def test_every_verdict_word_reads_the_same_as_a_first_word_and_a_verdict_line(
    word: str, meaning: bool
) -> None:
    assert parse_yes_no(f"{word.title()}, because the answer matches.") is meaning
    judge = LLMJudge("relevancy", ScriptedChat([f"Reasoning first.\nVERDICT: {word.upper()}"]))
    assert judge.evaluate(SAMPLES[0], "Paris").passed is meaning


@given(st.text(max_size=30))
def test_other_first_words_are_never_guessed(text: str) -> None:
    from evalmark.errors import JudgeParseError
    from evalmark.models._prompts import VERDICT_WORDS

    first = "".join(ch for ch in text.split(" ")[0] if ch.isalpha()).casefold()
    try:
        verdict = parse_yes_no(text)
    except JudgeParseError:
        return
    assert VERDICT_WORDS[first] is verdict  # only a listed word can give a verdict


def test_two_instances_of_one_strategy_take_names_from_their_options() -> None:
    report = (
        Evaluation(SAMPLES)
        .evaluate(lambda question: "Paris" if "France" in question else "four")
        .using(SemanticSimilarity(0.85))
        .using(SemanticSimilarity(0.75))
        .run()
    )
    assert report.strategies == ("SemanticSimilarity(0.85)", "SemanticSimilarity(0.75)")
    again = Scorer().evaluate(SAMPLES, str, SemanticSimilarity(0.85), SemanticSimilarity(0.75))
    assert again.strategies == report.strategies  # stable across runs
    with pytest.raises(ValueError, match=r"SemanticSimilarity\(0\.85\) appears more than once"):
        Scorer().evaluate(SAMPLES, str, SemanticSimilarity(0.85), SemanticSimilarity(0.85))


def test_a_named_instance_keeps_its_name_beside_a_default_one() -> None:
    report = Scorer().evaluate(SAMPLES, str, TokenF1(0.5), TokenF1(0.8, name="strict"))
    assert report.strategies == ("TokenF1", "strict")


def _answer(question: str) -> str:
    return "Paris" if "France" in question else "5"


def test_an_evaluation_takes_a_path_and_several_paths(tmp_path: Path) -> None:
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    write_samples(SAMPLES[:1], first)
    write_samples(SAMPLES[1:], second)
    one = Evaluation(str(first)).evaluate(_answer).using(ExactMatch()).run()
    assert one.sample_names == ("capital",)
    both = Evaluation([first, second]).evaluate(_answer).using(ExactMatch()).run()
    assert both.sample_names == ("capital", "sum")  # merged in the order given
    assert Scorer().evaluate(first, _answer, ExactMatch()).sample_names == ("capital",)
    with pytest.raises(SampleError, match=r"missing\.yaml: no such file"):
        Evaluation(tmp_path / "missing.yaml")


def test_the_extension_score_and_the_pass_rate_have_their_own_names() -> None:
    # 2 cases × 2 checks: 3 of 4 evaluations pass (the extension's score, 75), 1 of 2 cases
    # passes every check (evalmark's pass rate, 50%).
    report = Scorer().evaluate(SAMPLES, _answer, ExactMatch(), TokenF1(0.0, name="anything"))
    assert report.check_pass_rate == 0.75 and report.pass_rate == 0.5
    assert_that(report).has_score(75).has_check_pass_rate_at_least(0.75)
    with pytest.raises(AssertionError, match=r"score \(100 × passed evaluations"):
        assert_that(report).has_score(80)
    with pytest.raises(AssertionError, match="check pass rate"):
        assert_that(report).has_check_pass_rate_at_least(0.8)
    with pytest.raises(AssertionError, match=r"pass rate of 0\.75"):
        assert_that(report).has_pass_rate_equal_to(0.75)
    with pytest.raises(ValueError, match="percentage"):
        assert_that(report).has_score(150)


def test_assertions_on_one_result_carry_the_explanation() -> None:
    good = EvaluationResult(True, 0.9, "names the right city")
    assert_that(good).passed().score_at_least(0.8).score_at_most(1.0)
    bad = EvaluationResult(False, 0.2, "the answer names Lyon, not Paris")
    with pytest.raises(AssertionError, match="Explanation: the answer names Lyon, not Paris"):
        assert_that(bad).passed()
    with pytest.raises(AssertionError, match=r"at least 0\.5.*score 0\.2"):
        assert_that(bad).failed().score_at_least(0.5)
    judged = LLMJudge(SEED_PROMPT, ScriptedChat(["false: the capital is Paris"]))
    with pytest.raises(AssertionError, match="the check said fail"):
        assert_that(judged.evaluate(SAMPLES[0], "Lyon")).passed()
