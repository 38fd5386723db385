"""A judge model that hands back something odd: no text at all, a score no float can hold,
half an emoji. Each is a typed error naming the prompt, or text kept as it came."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evalmark import Sample, Scorer
from evalmark.errors import EvalmarkError, JudgeReplyError
from evalmark.models import ScriptedChat
from evalmark.report import write_report
from evalmark.strategies._llm_judge import LLMJudge

TEMPLATE = "Rate {response}; reply JSON with score and reasoning"


class Returns:
    """A chat model whose every reply is ``value``, whatever it is."""

    def __init__(self, value: object) -> None:
        self.value = value

    def chat(self, messages: Any, **options: Any) -> object:
        return self.value

    async def achat(self, messages: Any, **options: Any) -> object:
        return self.value


@pytest.mark.parametrize("value", [None, 7, {"score": 1}, b'{"score": 1}', 2.5, ["x"]])
def test_a_reply_that_is_no_text_is_a_typed_error(value: object) -> None:
    judge = LLMJudge(TEMPLATE, Returns(value), parse="json")
    with pytest.raises(JudgeReplyError) as caught:
        judge.grade(response="hi")
    assert caught.value.problem == "type"
    assert f"returned {type(value).__name__}, not a reply" in str(caught.value)
    with pytest.raises(JudgeReplyError):
        asyncio.run(judge.agrade(response="hi"))


@pytest.mark.parametrize(
    ("prompt", "options", "reply"),
    [
        (TEMPLATE, {"parse": "json"}, '{"score": ' + "9" * 400 + "}"),
        (TEMPLATE, {"parse": "json"}, '{"score": -' + "9" * 400 + "}"),
        ("correctness", {"score": "continuous"}, '{"reasoning": "r", "score": ' + "9" * 400 + "}"),
        (TEMPLATE, {"parse": "json"}, '{"score": ' + "9" * 5000 + "}"),
        (TEMPLATE, {"parse": "json"}, '{"score": ' + "[" * 5000 + "]" * 5000 + "}"),
    ],
)
def test_a_score_no_float_can_hold_is_a_typed_error(
    prompt: str, options: dict[str, Any], reply: str
) -> None:
    judge = LLMJudge(prompt, ScriptedChat([reply] * 2), **options)
    values = (
        {"response": "hi"}
        if prompt == TEMPLATE
        else {"inputs": "q", "outputs": "a", "reference_outputs": "a"}
    )
    with pytest.raises(EvalmarkError) as caught:
        judge.grade(**values)
    assert isinstance(caught.value, ValueError)
    assert "the reply was" in str(caught.value)


def test_an_odd_reply_in_an_evaluation_is_an_error_result_not_a_crash() -> None:
    judge = LLMJudge(TEMPLATE, Returns(None), parse="json", name="judge")
    report = Scorer().evaluate(
        [Sample(name="s", parameters=["q"], expected_output="a")], lambda q: "a", judge
    )
    (row,) = report.rows()
    assert row.verdict == "error"


def test_half_an_emoji_in_a_reply_is_kept_in_the_report(tmp_path: Path) -> None:
    reply = '{"score": 1, "reasoning": "fine \ud83d"}'  # the second half cut off
    judge = LLMJudge(TEMPLATE, ScriptedChat([reply]), parse="json", name="judge")
    report = Scorer().evaluate(
        [Sample(name="s", parameters=["q"], expected_output="a")], lambda q: "a", judge
    )
    path = write_report(report, tmp_path / "r.json")
    assert "fine \\\\ud83d" in path.read_text(encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["name"] == report.name
