"""``evalmark.simulate``: what the application sees, why a conversation stops, the users, and
errors naming the conversation and turn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

import pytest

import evalmark
from evalmark.conversation import ScriptedTurn
from evalmark.conversation._simulate import StopReason, asimulate, simulate
from evalmark.conversation._users import SimulatedUser
from evalmark.errors import CassetteMiss, ConversationError
from evalmark.models import ChatReply, ScriptedChat, record_replay
from evalmark.models._values import ChatToolCall
from evalmark.samples._case import TestCase, ToolCall


class MemoryApp:
    """An application with its own memory per thread: it remembers the first message."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.threads: dict[str, list[str]] = {}

    def __call__(self, message: str, thread_id: str) -> str:
        self.calls.append((message, thread_id))
        seen = self.threads.setdefault(thread_id, [])
        seen.append(message)
        return f"reply {len(seen)}; you first said: {seen[0]}"


def test_the_public_names_are_exported() -> None:
    assert evalmark.simulate is simulate
    assert evalmark.asimulate is asimulate
    assert evalmark.SimulatedUser is SimulatedUser
    assert "simulate" in evalmark.__all__ and "SimulatedUser" in evalmark.__all__


def test_the_app_gets_only_the_newest_message_and_one_thread_id() -> None:
    app = MemoryApp()
    user = SimulatedUser.scripted(["my name is Ada", "what is my name?", "bye"])
    result = simulate(app, user, thread_id="t-1", name="intro")
    assert app.calls == [("my name is Ada", "t-1"), ("what is my name?", "t-1"), ("bye", "t-1")]
    assert [t.input for t in result.turns] == ["my name is Ada", "what is my name?", "bye"]
    assert result.turns[2].actual_output == "reply 3; you first said: my name is Ada"
    assert result.stopped is StopReason.USER_ENDED
    assert result.thread_id == "t-1" and result.name == "intro"
    assert result.conversation.id == "intro" and len(result.conversation) == 3
    assert result.messages[1] == {
        "role": "assistant",
        "content": "reply 1; you first said: my name is Ada",
    }


def test_a_default_thread_id_is_stable_within_a_conversation_and_new_for_the_next() -> None:
    app = MemoryApp()
    first = simulate(app, SimulatedUser.scripted(["a", "b"]))
    second = simulate(app, SimulatedUser.scripted(["c"]))
    assert {tid for _, tid in app.calls[:2]} == {first.thread_id}
    assert first.thread_id != second.thread_id


def test_max_turns_stops_it() -> None:
    result = simulate(MemoryApp(), SimulatedUser.scripted(["1", "2", "3", "4"]), max_turns=2)
    assert result.stopped is StopReason.MAX_TURNS and len(result.turns) == 2
    assert "maximum of 2 turns" in result.why


def test_stop_when_sees_the_messages_and_the_turn() -> None:
    seen: list[tuple[int, int]] = []

    def stop(messages: list[dict[str, Any]], turn: int) -> bool:
        seen.append((len(messages), turn))
        return "reply 2" in messages[-1]["content"]

    result = simulate(MemoryApp(), SimulatedUser.scripted(["1", "2", "3"]), stop_when=stop)
    assert result.stopped is StopReason.STOP_CONDITION and len(result.turns) == 2
    assert seen == [(2, 1), (4, 2)]


def test_an_app_that_raises_stops_it_with_the_turn() -> None:
    def app(message: str, thread_id: str) -> str:
        if message == "boom":
            raise ValueError("the database is down")
        return "fine"

    result = simulate(app, SimulatedUser.scripted(["hi", "boom", "later"]), name="outage")
    assert result.stopped is StopReason.APP_ERROR
    assert result.error_turn == 2 and len(result.turns) == 1
    assert result.error == "ValueError: the database is down"
    assert result.why == "the application raised at turn 2: ValueError: the database is down"


def test_an_empty_user_reply_is_an_error_naming_conversation_and_turn() -> None:
    user = SimulatedUser.model("a customer", ScriptedChat(["first question", "   "]))
    with pytest.raises(ConversationError, match=r"conversation 'billing-chat', turn 2: .*empty"):
        simulate(MemoryApp(), user, name="billing-chat")


def test_max_turns_must_be_positive() -> None:
    with pytest.raises(ConversationError, match="conversation 'x': max_turns"):
        simulate(MemoryApp(), SimulatedUser.scripted(["a"]), max_turns=0, name="x")


def test_replies_of_every_shape_become_turns_with_tool_calls() -> None:
    replies: list[Any] = [
        "plain",
        ChatReply(text="chat", tool_calls=(ChatToolCall("c1", "lookup", '{"id": 7}'),)),
        TestCase("ignored", "case", tool_calls=(ToolCall("refund", {"amount": 10}),)),
        {"content": "mapping", "tool_calls": [{"function": {"name": "close", "arguments": {}}}]},
    ]

    def app(message: str, thread_id: str) -> Any:
        return replies[int(message)]

    result = simulate(app, SimulatedUser.scripted(["0", "1", "2", "3"]))
    assert [t.actual_output for t in result.turns] == ["plain", "chat", "case", "mapping"]
    assert [c.name for c in result.tool_calls] == ["lookup", "refund", "close"]
    assert result.tool_calls[0].arguments == {"id": 7}
    assert result.turns[2].input == "2"  # the user's message, not the TestCase's input


def test_an_unusable_reply_names_conversation_and_turn() -> None:
    with pytest.raises(ConversationError, match=r"conversation 'c', turn 1: .*answered int"):
        simulate(lambda m, t: 42, SimulatedUser.scripted(["hi"]), name="c")


def test_async_apps_and_asimulate() -> None:
    async def app(message: str, thread_id: str) -> str:
        await asyncio.sleep(0)
        return message.upper()

    result = asyncio.run(asimulate(app, SimulatedUser.scripted(["a", "b"]), thread_id="x"))
    assert [t.actual_output for t in result.turns] == ["A", "B"]
    # simulate also works from inside a running event loop (it runs on a helper thread)

    async def inside() -> Any:
        return simulate(app, SimulatedUser.scripted(["c"]))

    assert asyncio.run(inside()).turns[0].actual_output == "C"


def test_scripted_turns_keep_their_expectations() -> None:
    user = SimulatedUser.scripted(["hi", ScriptedTurn("price?", expected_facts=("$29",))])
    assert user.kind == "scripted"
    planned = user.planned(2)
    assert planned is not None and planned.expected_facts == ("$29",)
    assert user.planned(3) is None
    with pytest.raises(TypeError, match="list of messages"):
        SimulatedUser.scripted("hi")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scripted turn 2"):
        SimulatedUser.scripted(["hi", 3])  # type: ignore[list-item]


def test_a_model_user_sees_its_persona_and_the_roles_swapped_and_ends_with_the_token() -> None:
    model = ScriptedChat(["I need a refund", "thanks [END]"], model_id="customer")
    user = SimulatedUser.model("You are Bo, who wants a refund.", model)
    result = simulate(lambda m, t: f"echo {m}", user, name="bo")
    assert result.stopped is StopReason.USER_ENDED and len(result.turns) == 1
    first, second = (call.messages for call in model.calls)
    assert first[0]["role"] == "system" and first[0]["content"].startswith("You are Bo")
    assert "[END]" in first[0]["content"] and first[-1]["role"] == "user"
    assert [m["role"] for m in second[1:]] == ["assistant", "user"]
    assert second[1]["content"] == "I need a refund"
    assert second[2]["content"] == "echo I need a refund"


def test_a_model_user_with_an_opening_does_not_ask_the_model_for_turn_one() -> None:
    model = ScriptedChat(["[END]"])
    user = SimulatedUser.model("p", model, opening="Hello there")
    result = simulate(lambda m, t: "hi", user)
    assert [t.input for t in result.turns] == ["Hello there"] and len(model.calls) == 1


def test_a_recorded_model_user_replays_offline_with_the_same_bytes(tmp_path: Path) -> None:
    cassette = tmp_path / "users.jsonl"

    def app(message: str, thread_id: str) -> str:
        return f"noted: {message}"

    class Customer:
        """Answers the newest message of the request (the assistant's, as role user)."""

        model_id = "customer"
        default_params: ClassVar[dict[str, Any]] = {}
        script: ClassVar[dict[str, str]] = {
            "noted: I want a refund": "and the invoice?",
            "noted: and the invoice?": "[END]",
        }

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            if len(messages) == 2:
                return ChatReply(text="I want a refund")
            return ChatReply(text=self.script[messages[-1]["content"]])

    live = Customer()
    recorded = record_replay(live, cassette, "rewrite")
    first = simulate(app, SimulatedUser.model("a customer", recorded), name="c", thread_id="t")
    written = cassette.read_bytes()

    class Unreachable:
        model_id = "customer"
        default_params: ClassVar[dict[str, Any]] = {}

        def chat(self, messages: Any, **params: Any) -> ChatReply:
            raise AssertionError("replay must not call the model")

    replayed = record_replay(Unreachable(), cassette, "replay")
    again = simulate(app, SimulatedUser.model("a customer", replayed), name="c", thread_id="t")
    assert again == first and len(first.turns) == 2
    assert cassette.read_bytes() == written
    # a conversation that was never recorded is a clear cassette miss, not a network call
    other = SimulatedUser.model(
        "another customer", record_replay(Unreachable(), cassette, "replay")
    )
    with pytest.raises(ConversationError, match=r"'new', turn 1: .*CassetteMiss") as info:
        simulate(app, other, name="new")
    assert isinstance(info.value.__cause__, CassetteMiss)


def test_constructing_a_user_wrongly_says_how() -> None:
    with pytest.raises(TypeError, match="scripted or played by a model"):
        SimulatedUser()
    with pytest.raises(TypeError, match="persona"):
        SimulatedUser.model("", ScriptedChat(["x"]))
    with pytest.raises(TypeError, match="chat model"):
        SimulatedUser.model("p", object())
