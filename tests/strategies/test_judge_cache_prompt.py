"""Judge results cached for identical prompts within a run; the prompt shown on failure."""

from __future__ import annotations

import asyncio
from typing import Any

from evalmark import Sample
from evalmark.models import ChatReply
from evalmark.strategies import LLMJudge

SAMPLE = Sample(name="s", parameters=["Capital of France?"], expected_output="Paris")


class Counting:
    """A judge that says no and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, messages: list[dict[str, str]], **params: Any) -> ChatReply:
        self.calls += 1
        return ChatReply(text="NO")


def test_identical_prompts_are_asked_once_with_cache() -> None:
    judge = Counting()
    strategy = LLMJudge("Q: {question}\nA: {response}", judge, cache=True)
    first = strategy.evaluate(SAMPLE, "Lyon")
    second = strategy.evaluate(SAMPLE, "Lyon")
    assert judge.calls == 1 and first == second
    strategy.evaluate(SAMPLE, "Nice")  # another prompt: asked
    assert judge.calls == 2
    plain = Counting()
    uncached = LLMJudge("Q: {question}\nA: {response}", plain)
    uncached.evaluate(SAMPLE, "Lyon")
    uncached.evaluate(SAMPLE, "Lyon")
    assert plain.calls == 2


def test_a_failing_result_shows_the_exact_prompt() -> None:
    strategy = LLMJudge("Q: {question}\nA: {response}", Counting())
    result = strategy.evaluate(SAMPLE, "Lyon")
    assert not result.passed
    assert result.metadata["judge_prompt"] == strategy.messages(strategy.values(SAMPLE, "Lyon"))
    assert "A: Lyon" in result.metadata["judge_prompt"][-1]["content"]
    async_result = asyncio.run(strategy.aevaluate(SAMPLE, "Lyon"))
    assert async_result.metadata["judge_prompt"] == result.metadata["judge_prompt"]


def test_a_passing_result_does_not_carry_the_prompt() -> None:
    class Yes:
        def chat(self, messages: list[dict[str, str]], **params: Any) -> ChatReply:
            return ChatReply(text="YES")

    result = LLMJudge("Q: {question}\nA: {response}", Yes()).evaluate(SAMPLE, "Paris")
    assert result.passed and "judge_prompt" not in result.metadata
