"""JSON judgments on scales other than [0, 1]: ``score_range`` normalises them."""

from __future__ import annotations

import pytest

from evalmark import Sample
from evalmark.errors import JudgeParseError
from evalmark.models import ScriptedChat
from evalmark.strategies import LLMJudge
from evalmark.strategies._parsing import parse_json_judgment

SAMPLE = Sample(name="s", parameters=["Capital of France?"], expected_output="Paris")


def test_a_0_100_score_without_a_range_names_the_fix() -> None:
    with pytest.raises(JudgeParseError, match=r"must be in \[0, 1\], got 85.*score_range"):
        parse_json_judgment('{"score": 85}')


def test_a_0_100_score_is_normalised() -> None:
    judgment = parse_json_judgment('{"score": 85}', score_range=(0, 100))
    assert judgment.score == pytest.approx(0.85) and judgment.passed
    low = parse_json_judgment('{"score": 30}', score_range=(0, 100), threshold=0.5)
    assert low.score == pytest.approx(0.3) and not low.passed
    # a 1-10 scale: (7 - 1) / 9
    assert parse_json_judgment('{"score": 7}', score_range=(1, 10)).score == pytest.approx(6 / 9)
    with pytest.raises(JudgeParseError, match=r"must be in \[0, 100\], got 120"):
        parse_json_judgment('{"score": 120}', score_range=(0, 100))


@pytest.mark.parametrize("bad", [(1, 1), (10, 0), (0, float("inf")), ("a", 2), (1,)])
def test_bad_ranges_are_value_errors(bad: object) -> None:
    with pytest.raises(ValueError, match="score_range"):
        parse_json_judgment('{"score": 1}', score_range=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="score_range"):
        LLMJudge("{response}", ScriptedChat(["x"]), parse="json", score_range=bad)  # type: ignore[arg-type]


def test_judge_strategy_with_a_0_100_scale() -> None:
    judge = ScriptedChat(['{"score": 85, "explanation": "mostly right"}'])
    strategy = LLMJudge(
        "Q: {question}\nA: {response}", judge, parse="json", score_range=(0, 100), threshold=0.8
    )
    result = strategy.evaluate(SAMPLE, "Paris")
    assert result.passed and result.score == pytest.approx(0.85)
    assert result.explanation == "mostly right"
