"""Plan adherence, faithfulness and the judged agent checks (trajectory, plan, faithfulness)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.errors import StrategyError
from evalmark.models import record_replay
from evalmark.models._fakes import ScriptedChat
from evalmark.samples._samples import Sample
from evalmark.samples._testcase import ReasoningStep, TestCase, ToolCall
from evalmark.strategies import (
    Faithfulness,
    PlanAdherence,
    PlanAdherenceJudge,
    TrajectoryJudge,
)
from evalmark.strategies._registry import build_strategy, get_strategy_kind

SAMPLE = Sample(name="trip", parameters=["Book a car in Lyon for Friday"], expected_output="booked")

TRACE = (
    ReasoningStep(type="plan", content="1. find cars in Lyon\n2. check the price\n3. book the car"),
    ReasoningStep(type="thought", content="I should look for cars available in Lyon"),
    ReasoningStep(
        type="action",
        content="search the fleet",
        tool_call=ToolCall(name="find_cars", arguments={"city": "Lyon"}),
    ),
    ReasoningStep(type="action", content="book the car for Friday"),
    ReasoningStep(type="observation", content="the price is 42 euros, checked"),
)


def case(trace: tuple[ReasoningStep, ...] = TRACE, **more: object) -> TestCase:
    return TestCase(
        input="Book a car in Lyon", actual_output="Booked.", reasoning_trace=trace, **more
    )  # type: ignore[arg-type]


# --------------------------------------------------------------------------- plan adherence


def test_plan_steps_found_in_order_give_the_share_of_the_plan() -> None:
    # The plan comes from the trace's plan step; "check the price" happens only after the
    # booking, so the longest in-order run is find → book: 2 of 3.
    result = PlanAdherence().evaluate(SAMPLE, case())
    assert result.score == pytest.approx(2 / 3)
    assert not result.passed
    assert result.metadata == {"plan_steps": 3, "trace_steps": 4, "in_order": 2}
    assert "'check the price'" in result.explanation
    assert PlanAdherence(threshold=0.6).evaluate(SAMPLE, case()).passed


def test_a_plan_given_or_in_metadata_wins_over_the_trace() -> None:
    given = PlanAdherence(["find cars in Lyon", "book the car"]).evaluate(SAMPLE, case())
    assert given.passed and given.score == 1.0
    sample = Sample(
        name="s",
        parameters=["q"],
        expected_output="x",
        metadata={"plan": "- book the car\n- find cars"},
    )
    # In metadata, the order is reversed: only one of the two can be in order.
    assert PlanAdherence().evaluate(sample, case()).score == 0.5


def test_plan_adherence_reads_a_list_of_steps_and_plain_text() -> None:
    steps = ["find cars in Lyon", "book the car"]
    strategy = PlanAdherence(["find cars", "book the car", "send a receipt"])
    assert strategy.evaluate(SAMPLE, steps).score == pytest.approx(2 / 3)
    assert strategy.evaluate(SAMPLE, "find cars\nbook the car\nsend a receipt").score == 1.0


def test_plan_adherence_without_a_plan_is_an_error_naming_the_sample() -> None:
    with pytest.raises(StrategyError, match="sample 'trip' has no plan"):
        PlanAdherence().evaluate(SAMPLE, "did things")
    with pytest.raises(ValueError, match="min_overlap"):
        PlanAdherence(min_overlap=2)


# --------------------------------------------------------------------------- faithfulness

CONTEXT = (
    "Refunds are issued within 30 days of the request.",
    "The Team plan costs 12 euros per user per month.",
)


def test_faithfulness_is_the_share_of_supported_claims() -> None:
    answer = (
        "Refunds are issued within 30 days. The Team plan costs 12 euros per user. "
        "Support is open on Sundays!"
    )
    output = TestCase(input="q", actual_output=answer, retrieval_context=CONTEXT)
    result = Faithfulness().evaluate(SAMPLE, output)
    assert result.score == pytest.approx(2 / 3)
    assert result.passed  # threshold 0.5
    assert result.metadata == {"claims": 3, "passages": 2, "supported": 2}
    assert "'Support is open on Sundays!'" in result.explanation
    assert not Faithfulness(0.9).evaluate(SAMPLE, output).passed


def test_faithfulness_falls_back_to_the_sample_context() -> None:
    sample = Sample(name="s", parameters=["q"], expected_output="x", context=CONTEXT)
    assert Faithfulness().evaluate(sample, "Refunds are issued within 30 days.").score == 1.0
    assert (
        Faithfulness().evaluate(sample, "...").explanation == "the answer makes no claim to check"
    )
    with pytest.raises(StrategyError, match="no context"):
        Faithfulness().evaluate(SAMPLE, "Refunds take 30 days.")


# --------------------------------------------------------------------------- judged


def verdict(score: bool) -> str:
    return json.dumps({"reasoning": "looked at each step", "score": score})


def test_trajectory_judge_picks_the_referenced_prompt_when_there_is_a_reference() -> None:
    judge = ScriptedChat({"reference trajectory": verdict(True), "trajectory": verdict(False)})
    strategy = TrajectoryJudge(judge, mode="prompted")
    calls = (ToolCall(name="find_cars", arguments={"city": "Lyon"}),)
    with_reference = TestCase(
        input="Book a car", actual_output="ok", tool_calls=calls, expected_tool_calls=calls
    )
    without = TestCase(input="Book a car", actual_output="ok", tool_calls=calls)
    assert strategy.evaluate(SAMPLE, with_reference).passed
    failed = strategy.evaluate(SAMPLE, without)
    assert not failed.passed and failed.metadata["prompt"] == "trajectory-accuracy"
    # The exact messages sent are kept on a result that did not pass.
    sent = failed.metadata["judge_prompt"]
    assert sent == [dict(m) for m in judge.calls[-1].messages]
    with pytest.raises(StrategyError, match="no reference trajectory"):
        TrajectoryJudge(judge, reference="always").evaluate(SAMPLE, without)


def test_trajectory_judge_records_and_replays_through_a_cassette(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    output = TestCase(
        input="Book a car",
        actual_output="ok",
        tool_calls=(ToolCall(name="find_cars", arguments={"city": "Lyon"}),),
    )
    live = record_replay(ScriptedChat([verdict(True)]), cassette, mode="record-missing")
    first = TrajectoryJudge(live, mode="prompted").evaluate(SAMPLE, output)
    replay = record_replay(ScriptedChat([]), cassette, mode="replay")
    again = TrajectoryJudge(replay, mode="prompted").evaluate(SAMPLE, output)
    assert first.passed and again.passed and first.explanation == again.explanation


def test_plan_adherence_judge_sends_the_numbered_plan_and_the_trace() -> None:
    judge = ScriptedChat([verdict(True)])
    result = PlanAdherenceJudge(judge, mode="prompted").evaluate(SAMPLE, case())
    assert result.passed
    prompt = json.dumps([dict(m) for m in judge.calls[0].messages])
    assert "1. find cars in Lyon" in prompt and "3. book the car" in prompt
    assert "book the car for Friday" in prompt


def test_the_new_kinds_build_from_a_suite_option_mapping() -> None:
    judge = ScriptedChat([verdict(True)])
    assert build_strategy("contextual-precision", {"threshold": 0.7}).threshold == 0.7
    assert build_strategy("contextual-recall").name == "contextual-recall"
    assert build_strategy("faithfulness", {"min-overlap": 0.5}).min_overlap == 0.5
    assert build_strategy("plan-adherence", {"plan": ["a", "b"]}).plan == ["a", "b"]
    assert build_strategy("trajectory-match", {"mode": "superset"}).mode == "superset"
    assert build_strategy("json-keys", {"lists": "subset"}).name == "json-keys"
    assert build_strategy("guardrail", {"positive": "REJECT"}).positive == "REJECT"
    assert build_strategy("trajectory-judge", {"reference": "never"}, judge).reference == "never"
    assert build_strategy("plan-adherence-judge", {}, judge).prompt.name == "plan-adherence"
    assert build_strategy("faithfulness-judge", {}, judge).prompt.name == "rag-groundedness"
    assert get_strategy_kind("trajectory-judge").judged
    assert "repeats" in get_strategy_kind("faithfulness-judge").accepted


def test_every_strategy_class_has_a_kind() -> None:
    import evalmark.strategies as package
    from evalmark.strategies._builtin_kinds import KINDS

    judge = ScriptedChat([])
    built = {type(kind.build({}, judge)) for kind in KINDS}
    classes = {
        value
        for name in package.__all__
        if isinstance(value := getattr(package, name), type) and hasattr(value, "evaluate")
    }
    # Composite combines other strategies; FunctionStrategy wraps a function; the rest are
    # protocols or the base class of the metric strategies.
    exempt = {"Composite", "FunctionStrategy", "Strategy", "BatchStrategy", "AsyncStrategy"}
    exempt |= {"MetricStrategy"}
    missing = sorted(c.__name__ for c in classes - built if c.__name__ not in exempt)
    assert missing == []
