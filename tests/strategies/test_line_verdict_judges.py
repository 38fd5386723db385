"""LLMJudge with line-verdict prompts and templates: parsing, repeats, fallback, call context."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from evalmark import Sample, Scorer, TestCase
from evalmark.models import ChatReply, NoisyJudge, RuleJudge, ScriptedChat, record_replay
from evalmark.models._context import current_call
from evalmark.models._prompts import AGREEMENT
from evalmark.report import render_report
from evalmark.strategies import ExactMatch, LLMJudge, TokenF1
from evalmark.strategies._judge import Vote, reduce_votes

SAMPLE = Sample(
    name="capital",
    parameters=["What is the capital of France?"],
    expected_output="Paris is the capital of France",
    context=["Paris is the capital and largest city of France."],
)
GOOD = "The capital of France is Paris"


class Recording:
    """A judge that answers from a list and records the call context of each call."""

    model_id = "recording"
    default_params: ClassVar[dict[str, Any]] = {}

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.contexts: list[tuple[int, str, str, int | None]] = []
        self.prompts: list[str] = []

    def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
        context = current_call()
        assert context is not None
        self.contexts.append((context.run_index, context.sample, context.check, context.repeat))
        self.prompts.append(messages[-1]["content"])
        return ChatReply(text=self.replies[len(self.contexts) - 1])


def test_rule_judge_through_our_templates() -> None:
    for template in ("agreement", "groundedness", "relevancy"):
        result = LLMJudge(template, RuleJudge()).evaluate(SAMPLE, GOOD)
        assert result.passed and result.score == 1.0, template
        assert result.metadata["template"] == template and result.metadata["judge"] == "rule-judge"
    graded = LLMJudge("rubric", RuleJudge()).evaluate(SAMPLE, "Lyon")
    assert not graded.passed and 0.0 <= graded.score < 0.75


def test_template_variables_come_from_sample_and_test_case() -> None:
    judge = Recording(["VERDICT: yes"])
    case = TestCase("Which city is the capital?", GOOD, retrieval_context=("Retrieved passage.",))
    LLMJudge("groundedness", judge).evaluate(SAMPLE, case)
    assert "Retrieved passage." in judge.prompts[0] and GOOD in judge.prompts[0]
    judge = Recording(["VERDICT: yes"])
    LLMJudge(AGREEMENT, judge).evaluate(SAMPLE, GOOD)
    assert "What is the capital of France?" in judge.prompts[0]
    assert "Paris is the capital of France" in judge.prompts[0]


def test_a_missing_variable_lists_what_the_template_needs() -> None:
    bare = Sample(name="bare", parameters=["q"], expected_output="x")
    with pytest.raises(
        ValueError, match=r"sample 'bare'.*needs context, response; missing context"
    ):
        LLMJudge("groundedness", RuleJudge()).evaluate(bare, "answer")


def test_custom_string_template_with_json_judgments() -> None:
    judge = ScriptedChat(
        {"Paris": 'Sure: ```json\n{"score": 0.9, "passed": true, "explanation": "right"}\n```'}
    )
    strategy = LLMJudge("Q: {question}\nA: {response}\nReply in JSON.", judge, parse="json")
    result = strategy.evaluate(SAMPLE, GOOD)
    assert result.passed and result.score == 0.9 and result.explanation == "right"
    with pytest.raises(ValueError, match="unknown variable"):
        LLMJudge("{answer}", judge)


def test_unreadable_reply_is_a_typed_error_inside_the_result() -> None:
    result = LLMJudge("relevancy", ScriptedChat(["I would rather not say."])).evaluate(SAMPLE, GOOD)
    assert not result.passed and result.error is not None
    assert result.error.kind == "parse" and result.error.type == "JudgeParseError"
    assert result.error.raw == "I would rather not say."


def test_a_judge_that_raises_is_an_error_result() -> None:
    class Down:
        model_id = "down"

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            raise ConnectionError("judge offline")

    result = LLMJudge("relevancy", Down()).evaluate(SAMPLE, GOOD)
    assert result.error is not None and result.error.kind == "judge"
    assert "judge offline" in result.explanation


def test_fallback_runs_when_the_judge_fails() -> None:
    strategy = LLMJudge("relevancy", ScriptedChat(["??"]), fallback=TokenF1(0.3))
    result = strategy.evaluate(SAMPLE, GOOD)
    assert result.passed and result.error is None
    assert result.metadata["fallback"] == "TokenF1"
    assert (
        result.explanation.startswith("the judge failed (")
        and "fallback TokenF1" in result.explanation
    )


def test_fallback_also_works_async() -> None:
    strategy = LLMJudge("relevancy", ScriptedChat(["??"]), fallback=ExactMatch())
    result = asyncio.run(strategy.aevaluate(SAMPLE, "Paris is the capital of France"))
    assert result.passed and result.metadata["fallback"] == "ExactMatch"


def test_repeats_pass_run_sample_check_and_repeat_to_the_model() -> None:
    judge = Recording(["VERDICT: yes", "VERDICT: no", "VERDICT: yes"])
    strategy = LLMJudge("relevancy", judge, repeats=3, name="rel")
    result = Scorer(run_index=7).evaluate([SAMPLE], lambda q: GOOD, strategy).column("rel")[0]
    assert sorted(judge.contexts) == [(7, "capital", f"rel#{r}", r) for r in range(3)]
    assert result.passed and result.score == pytest.approx(2 / 3)
    assert "2 of 3 judge votes passed (majority)" in result.explanation


def test_single_call_uses_the_strategy_name_as_check() -> None:
    judge = Recording(["VERDICT: yes"])
    LLMJudge("relevancy", judge, name="rel").evaluate(SAMPLE, GOOD)
    assert judge.contexts == [(0, "capital", "rel", 0)]


@pytest.mark.parametrize(
    ("reducer", "votes", "passed"),
    [
        ("majority", [True, True, False], True),
        ("majority", [True, False], False),
        ("all", [True, True, False], False),
        ("all", [True, True], True),
        ("any", [False, False, True], True),
        ("any", [False], False),
        ("mean", [True, False], True),
        ("mean", [True, False, False], False),
    ],
)
def test_reducers(reducer: str, votes: list[bool], passed: bool) -> None:
    ballots = [Vote(v, float(v), "", None) for v in votes]
    got, score = reduce_votes(ballots, reducer, 0.5)  # type: ignore[arg-type]
    assert got is passed and score == pytest.approx(sum(votes) / len(votes))


def test_noisy_judge_repeats_draw_independently_and_reproducibly() -> None:
    samples = [
        Sample(
            name=f"s{i}",
            parameters=["What is the capital of France?"],
            expected_output=SAMPLE.expected_output,
            context=SAMPLE.context,
        )
        for i in range(40)
    ]
    noisy = NoisyJudge(RuleJudge(), flip_rate=0.3, seed=5)
    strategy = LLMJudge("groundedness", noisy, repeats=5, name="g")
    first = Scorer(concurrency=4).evaluate(samples, lambda q: GOOD, strategy)
    again = Scorer(concurrency=1).evaluate(samples, lambda q: GOOD, strategy)
    assert render_report(first, "json") == render_report(again, "json")
    flips = [first.column("g")[i].metadata.get("flipped", 0) for i in range(40)]
    assert 0 < sum(flips) < 200
    patterns = {
        tuple(v["passed"] for v in first.column("g")[i].metadata["votes"]) for i in range(40)
    }
    assert len(patterns) > 3  # repeats are not copies of one draw
    other_run = Scorer(run_index=1).evaluate(samples, lambda q: GOOD, strategy)
    assert render_report(other_run, "json") != render_report(first, "json")


def test_grade_threshold_and_clamp() -> None:
    strategy = LLMJudge("rubric", ScriptedChat(["Good.\nGRADE: 4"]))
    result = strategy.evaluate(SAMPLE, GOOD)
    assert result.passed and result.score == 0.75
    strict = LLMJudge("rubric", ScriptedChat(["GRADE: 4"]), min_grade=5).evaluate(SAMPLE, GOOD)
    assert not strict.passed
    clamped = LLMJudge("Rate {response}", ScriptedChat(["I give it 9"]), parse="grade", clamp=True)
    assert clamped.evaluate(SAMPLE, GOOD).score == 1.0


def test_recorded_judge_replays_each_repeat_whatever_the_scheduling(tmp_path: Path) -> None:
    class ByRepeat:
        model_id = "by-repeat"
        default_params: ClassVar[dict[str, Any]] = {}

        def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
            context = current_call()
            assert context is not None and context.repeat is not None
            return ChatReply(text=f"VERDICT: {'yes' if context.repeat != 1 else 'no'}")

    class Offline:
        model_id = "by-repeat"
        default_params: ClassVar[dict[str, Any]] = {}

        def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
            raise AssertionError("replay must not call the model")

    samples = [
        Sample(name=f"s{i}", parameters=[f"question {i}"], expected_output="x") for i in range(6)
    ]
    cassette = tmp_path / "judge.jsonl"

    def run(model: Any, mode: str, concurrency: int) -> str:
        judge = record_replay(model, cassette, mode)
        strategy = LLMJudge("relevancy", judge, repeats=3, reducer="all", name="rel")
        return render_report(
            Scorer(concurrency=concurrency).evaluate(samples, lambda q: q, strategy), "json"
        )

    recorded = run(ByRepeat(), "rewrite", 1)
    assert '"passed": false' in recorded  # repeat 1 said no, so "all" fails
    assert run(Offline(), "replay", 4) == recorded


def test_judge_calls_in_flight_stay_within_the_scorer_concurrency() -> None:
    class Slow:
        model_id = "slow"
        default_params: ClassVar[dict[str, Any]] = {}

        def __init__(self) -> None:
            self.now = 0
            self.peak = 0

        def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
            raise AssertionError("the scorer must use achat")

        async def achat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
            self.now += 1
            self.peak = max(self.peak, self.now)
            await asyncio.sleep(0.002)
            self.now -= 1
            return ChatReply(text="Yes.")

    judge = Slow()
    samples = [Sample(name=f"s{i}", parameters=[f"q{i}"], expected_output="x") for i in range(10)]
    strategy = LLMJudge("relevancy", judge, repeats=3)
    report = Scorer(concurrency=3).evaluate(samples, lambda q: q, strategy)
    assert report.passed == 10
    assert 1 < judge.peak <= 3
