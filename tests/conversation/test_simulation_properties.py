"""Properties of one simulated conversation over generated scripts and applications: the turn
count is bounded by the script, the turn limit, the stop condition and the first application
error (whichever comes first, with that reason); the messages are the turns in order; the thread
id reaches every call; every shape of tool call gives the same ``ToolCall``; a model-played user
ends at its end token; and a bad user or limit is a typed error naming the conversation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import SimulatedUser, simulate
from evalmark.conversation._simulate import StopReason, messages_of, tool_calls_of
from evalmark.errors import ConversationError
from evalmark.samples._case import ToolCall

WORDS = st.sampled_from(["refund", "price", "plan", "hello", "é", "名", "\u202e", "a b"])
MESSAGES = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
SCRIPTS = st.lists(MESSAGES, min_size=1, max_size=6)
LIMITS = st.integers(1, 8)
FIRST = st.none() | st.integers(1, 8)  # a turn number, or never
NAMES = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8)
ARGS = st.dictionaries(st.sampled_from(["a", "b", "n"]), st.integers() | st.text(max_size=3))


def echo(message: str, thread_id: str) -> str:
    return f"re: {message}"


@settings(max_examples=examples(80), deadline=None)
@given(SCRIPTS, LIMITS, FIRST, FIRST)
def test_a_conversation_stops_at_the_first_of_script_end_limit_condition_or_app_error(
    script: list[str], limit: int, stop_at: int | None, fail_at: int | None
) -> None:
    calls: list[int] = []

    def app(message: str, thread_id: str) -> str:
        calls.append(len(calls) + 1)
        if fail_at is not None and len(calls) == fail_at:
            raise RuntimeError("down")
        return message.upper()

    def stop(messages: list[Any], turn: int) -> bool:
        assert len(messages) == 2 * turn
        return turn == stop_at

    result = simulate(
        app, SimulatedUser.scripted(script), max_turns=limit, stop_when=stop, name="c"
    )
    ends = {
        "script": len(script) + 1,  # the user ends before a turn past the script
        "limit": limit + 1,
        "stop": (stop_at + 1) if stop_at is not None else 99,
        "error": fail_at if fail_at is not None else 99,
    }
    first = min(ends.values())
    assert len(result.turns) == first - 1
    assert len(result.turns) <= min(len(script), limit)
    assert calls == list(range(1, len(calls) + 1))
    if ends["error"] < min(v for k, v in ends.items() if k != "error"):  # else never called
        assert result.stopped is StopReason.APP_ERROR
        assert result.error_turn == fail_at and result.error == "RuntimeError: down"
        assert str(fail_at) in result.why
    elif ends["stop"] == first:
        assert result.stopped is StopReason.STOP_CONDITION
    elif ends["limit"] == first:
        assert result.stopped is StopReason.MAX_TURNS
    else:
        assert result.stopped is StopReason.USER_ENDED
    assert [t.input for t in result.turns] == script[: len(result.turns)]
    assert [t.name for t in result.turns] == [f"turn-{i}" for i in range(1, first)]


@settings(max_examples=examples(60), deadline=None)
@given(SCRIPTS, LIMITS, NAMES)
def test_the_messages_are_the_turns_in_order_and_the_thread_id_reaches_every_call(
    script: list[str], limit: int, thread: str
) -> None:
    threads: list[str] = []

    def app(message: str, thread_id: str) -> dict[str, Any]:
        threads.append(thread_id)
        return {"content": message[::-1], "tool_calls": [{"name": "t", "args": {"m": message}}]}

    result = simulate(app, SimulatedUser.scripted(script), max_turns=limit, thread_id=thread)
    assert result.thread_id == thread and set(threads) <= {thread}
    messages = result.messages
    assert len(messages) == 2 * len(result.turns) == 2 * len(threads)
    assert [m["role"] for m in messages] == ["user", "assistant"] * len(result.turns)
    pairs = zip(messages[::2], messages[1::2], strict=True)
    for turn, (asked, answered) in zip(result.turns, pairs, strict=True):
        assert asked["content"] == turn.input
        assert answered["content"] == turn.actual_output == turn.input[::-1]
        assert answered["tool_calls"] == [{"name": "t", "arguments": {"m": turn.input}}]
    assert result.tool_calls == tuple(ToolCall("t", {"m": t.input}) for t in result.turns)
    assert messages_of(result.turns) == messages


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(NAMES, ARGS, st.integers(0, 3)), max_size=4))
def test_every_shape_of_tool_call_gives_the_same_tool_call(
    calls: list[tuple[str, dict[str, Any], int]],
) -> None:
    shapes = [
        lambda n, a: ToolCall(n, a),
        lambda n, a: {"name": n, "arguments": a},
        lambda n, a: {"function": {"name": n, "arguments": a}},
        lambda n, a: {"name": n, "args": a},
    ]
    mixed = [shapes[shape](name, args) for name, args, shape in calls]
    assert tool_calls_of(mixed, "here") == tuple(ToolCall(n, a) for n, a, _ in calls)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.integers() | st.text(max_size=3) | st.none(), min_size=1, max_size=3), st.data())
def test_a_tool_call_that_is_not_a_mapping_is_a_typed_error_naming_where(
    bad: list[Any], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(bad)))
    items = [{"name": "ok", "arguments": {}}] * at + bad
    with pytest.raises(ConversationError, match=r"^turn 3: a tool call is a mapping"):
        tool_calls_of(items, "turn 3")


class Chat:
    """A chat model that answers from a list, then the end token."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, str]]] = []

    def chat(self, messages: list[dict[str, str]], **params: Any) -> str:
        self.requests.append(messages)
        return self.replies.pop(0) if self.replies else "[DONE]"


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(MESSAGES, max_size=6), LIMITS, st.none() | MESSAGES)
def test_a_model_played_user_speaks_until_its_end_token_or_the_limit(
    replies: list[str], limit: int, opening: str | None
) -> None:
    chat = Chat(replies)
    user = SimulatedUser.model("a customer", chat, opening=opening, end_token="[DONE]")
    result = simulate(echo, user, max_turns=limit, name="m")
    said = ([opening] if opening is not None else []) + replies
    assert [t.input for t in result.turns] == said[:limit]
    if len(said) >= limit:
        assert result.stopped is StopReason.MAX_TURNS
    else:
        assert result.stopped is StopReason.USER_ENDED
    for request in chat.requests:  # the roles are swapped: the model plays the user
        assert request[0]["role"] == "system" and "a customer" in request[0]["content"]
        assert all(m["role"] != "system" for m in request[1:])
        assert [m["content"] for m in request[1:] if m["role"] == "assistant"] == [
            t.input for t in result.turns[: len([m for m in request if m["role"] == "assistant"])]
        ]


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(MESSAGES, max_size=3),
    st.sampled_from(["", " ", "\n\t"]),
    NAMES,
)
def test_an_empty_user_message_is_a_typed_error_naming_the_conversation_and_turn(
    before: list[str], empty: str, name: str
) -> None:
    with pytest.raises(ConversationError) as caught:
        simulate(echo, SimulatedUser.scripted([*before, empty]), max_turns=10, name=name)
    assert f"conversation '{name}', turn {len(before) + 1}" in str(caught.value)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(-3, 0) | st.booleans() | st.floats(1, 3) | st.text(max_size=2), NAMES)
def test_a_turn_limit_that_is_not_a_positive_whole_number_is_a_typed_error(
    limit: Any, name: str
) -> None:
    with pytest.raises(ConversationError, match="max_turns"):
        simulate(echo, SimulatedUser.scripted(["hi"]), max_turns=limit, name=name)


@settings(max_examples=examples(40), deadline=None)
@given(SCRIPTS, LIMITS)
def test_a_scripted_simulation_is_the_same_every_time_it_is_played(
    script: list[str], limit: int
) -> None:
    first = simulate(echo, SimulatedUser.scripted(script), max_turns=limit, thread_id="t")
    again = simulate(echo, SimulatedUser.scripted(script), max_turns=limit, thread_id="t")
    assert first == again
