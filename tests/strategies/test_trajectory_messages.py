"""Trajectory matching over OpenAI- and LangChain-style message lists, strict per message, and
per-tool argument overrides by dotted path and by predicate."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from evalmark import Sample
from evalmark.strategies._trajectory import TrajectoryMatch

SAMPLE = Sample(name="t", parameters=["q"], expected_output="(calls given to the strategy)")


def openai(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for n, a in calls
        ],
    }


USER = {"role": "user", "content": "weather in SF and NYC?"}
TOOL = {"role": "tool", "content": "sunny"}


def test_openai_messages_with_json_string_arguments() -> None:
    reference = [USER, openai(("weather", {"city": "SF"}), ("weather", {"city": "NYC"})), TOOL]
    made = [USER, openai(("weather", {"city": "NYC"}), ("weather", {"city": "SF"})), TOOL]
    # strict compares the calls of each message in any order within the message (as OpenEvals)
    assert TrajectoryMatch("strict", expected=reference).evaluate(SAMPLE, made).passed
    assert TrajectoryMatch("unordered", expected=reference).evaluate(SAMPLE, made).passed
    # the calls split over two messages are a different trajectory under strict
    split = [USER, openai(("weather", {"city": "NYC"})), TOOL, openai(("weather", {"city": "SF"}))]
    result = TrajectoryMatch("strict", expected=reference).evaluate(SAMPLE, split)
    assert not result.passed and result.score == 0.0
    assert "assistant message 1 differs" in result.explanation
    # unordered only looks at the calls: the same two
    assert TrajectoryMatch("unordered", expected=reference).evaluate(SAMPLE, split).passed


def test_strict_messages_score_is_matching_messages_over_the_longer_list() -> None:
    reference = [openai(("a", {})), openai(("b", {})), openai(("c", {}))]
    made = [openai(("a", {})), openai(("x", {})), openai(("c", {}))]
    result = TrajectoryMatch("strict", expected=reference).evaluate(SAMPLE, made)
    assert not result.passed and result.score == pytest.approx(2 / 3)


@dataclass
class AIMessage:
    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    type: str = "ai"


def test_langchain_messages_as_objects_and_dicts() -> None:
    made = [
        {"type": "human", "content": "hi"},
        AIMessage("", [{"name": "search", "args": {"q": "evalmark"}, "id": "1"}]),
    ]
    reference = [
        {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {"q": "evalmark"}}]}
    ]
    assert TrajectoryMatch("strict", expected=reference).evaluate(SAMPLE, made).passed
    wrong = [AIMessage("", [{"name": "search", "args": {"q": "other"}}])]
    assert not TrajectoryMatch("strict", expected=reference).evaluate(SAMPLE, wrong).passed


def test_override_by_dotted_path() -> None:
    expected = [{"name": "book", "arguments": {"room": 1, "time": {"start": "9:00", "end": "10"}}}]
    actual = [{"name": "book", "arguments": {"room": 1, "time": {"start": "09:00", "end": "10"}}}]
    assert not TrajectoryMatch(expected=expected).evaluate(SAMPLE, actual).passed
    ignore = TrajectoryMatch(expected=expected, tool_arguments={"book": {"time.start": "ignore"}})
    assert ignore.evaluate(SAMPLE, actual).passed
    same_time = TrajectoryMatch(
        expected=expected,
        tool_arguments={"book": {"time.start": lambda e, a: e.zfill(5) == a.zfill(5)}},
    )
    assert same_time.evaluate(SAMPLE, actual).passed
    # the rest of the arguments still compare exactly
    other_room = [
        {"name": "book", "arguments": {"room": 2, "time": {"start": "9:00", "end": "10"}}}
    ]
    assert not same_time.evaluate(SAMPLE, other_room).passed


def test_override_by_predicate() -> None:
    expected = [{"name": "add", "arguments": {"x": 1.0}}]
    close = TrajectoryMatch(
        expected=expected, tool_arguments={"add": lambda e, a: abs(e["x"] - a["x"]) < 0.1}
    )
    assert close.evaluate(SAMPLE, [{"name": "add", "arguments": {"x": 1.05}}]).passed
    assert not close.evaluate(SAMPLE, [{"name": "add", "arguments": {"x": 2}}]).passed


def test_bad_override_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="must be 'ignore' or a predicate"):
        TrajectoryMatch(tool_arguments={"book": {"time.start": "fuzzy"}})


def test_a_predicate_path_requires_the_key_unless_marked_optional() -> None:
    # OpenEvals' "requires_key" cases: an override names a key that neither call has
    expected = [{"name": "book", "arguments": {"city": "Paris"}}]
    actual = [{"name": "book", "arguments": {"city": "Paris"}}]
    same = {"book": {"time.start": lambda e, a: e == a}}
    strict = TrajectoryMatch(expected=expected, tool_arguments=same)
    assert not strict.evaluate(SAMPLE, actual).passed
    optional = {"book": {"time.start?": lambda e, a: e == a}}
    assert (
        TrajectoryMatch(expected=expected, tool_arguments=optional).evaluate(SAMPLE, actual).passed
    )
    one_side = [{"name": "book", "arguments": {"city": "Paris", "time": {"start": "9:00"}}}]
    assert (
        not TrajectoryMatch(expected=expected, tool_arguments=optional)
        .evaluate(SAMPLE, one_side)
        .passed
    )
