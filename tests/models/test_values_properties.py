"""Properties of the model value types over generated messages, tool calls and replies: message
objects and dicts convert to the same plain dicts (copies, never the caller's own), the last
user text is found wherever it is, content parts join their texts, a tool call's arguments
parse back to the object written, and a recorded reply replays with its text and tool calls.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.models import ChatReply, ChatToolCall, Message, ScriptedChat, record_replay
from evalmark.models._values import content_text, last_user_text, message_dicts, reply_from

TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
ROLES = st.sampled_from(["system", "user", "assistant", "tool"])
MESSAGES = st.lists(st.builds(Message, role=ROLES, content=TEXT), max_size=5)
ARGUMENTS = st.dictionaries(
    st.text(alphabet="abc", min_size=1, max_size=3), st.integers() | TEXT | st.booleans()
)


@settings(max_examples=examples(60), deadline=None)
@given(MESSAGES)
def test_message_objects_and_dicts_convert_to_the_same_copies(messages: list[Message]) -> None:
    dicts = [{"role": m.role, "content": m.content} for m in messages]
    from_objects = message_dicts(messages)
    from_dicts = message_dicts(dicts)
    assert from_objects == from_dicts == dicts
    for original, copy in zip(dicts, from_dicts, strict=True):
        assert copy is not original


@settings(max_examples=examples(60), deadline=None)
@given(MESSAGES)
def test_the_last_user_text_is_found_wherever_it_is(messages: list[Message]) -> None:
    users = [m.content for m in messages if m.role == "user"]
    assert last_user_text(message_dicts(messages)) == (users[-1] if users else None)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["text", "image_url"]), TEXT), max_size=5))
def test_content_parts_join_their_texts(parts: list[tuple[str, str]]) -> None:
    content = [{"type": kind, "text": text} for kind, text in parts]
    want = "\n".join(text for kind, text in parts if kind == "text")
    assert content_text(content) == want


@settings(max_examples=examples(60), deadline=None)
@given(ARGUMENTS, st.text(alphabet="abc_", min_size=1, max_size=6))
def test_a_tool_call_parses_back_to_the_arguments_written(
    arguments: dict[str, Any], name: str
) -> None:
    call = ChatToolCall(id="c1", name=name, arguments=json.dumps(arguments))
    parsed = call.to_tool_call()
    assert parsed.name == name and dict(parsed.arguments) == arguments


@settings(max_examples=examples(60), deadline=None)
@given(st.one_of(st.lists(st.integers(), max_size=2), st.integers(), TEXT.map(json.dumps)))
def test_tool_call_arguments_that_are_not_an_object_are_a_value_error(value: Any) -> None:
    call = ChatToolCall(id="c1", name="f", arguments=json.dumps(value))
    with pytest.raises(ValueError, match="'f'"):
        call.to_tool_call()


@settings(max_examples=examples(60), deadline=None)
@given(TEXT | st.builds(ChatReply, text=TEXT))
def test_a_reply_is_made_from_a_text_or_kept(value: str | ChatReply) -> None:
    reply = reply_from(value, source="f")
    assert reply.text == (value if isinstance(value, str) else value.text)


@settings(max_examples=examples(30), deadline=None)
@given(
    TEXT,
    st.lists(
        st.builds(
            ChatToolCall,
            id=st.text(alphabet="xyz0123", min_size=1, max_size=4),
            name=st.text(alphabet="abc_", min_size=1, max_size=5),
            arguments=ARGUMENTS.map(json.dumps),
        ),
        max_size=3,
    ),
    TEXT,
)
def test_a_recorded_reply_replays_with_its_text_and_tool_calls(
    text: str, calls: list[ChatToolCall], prompt: str
) -> None:
    reply = ChatReply(text=text, tool_calls=tuple(calls) or None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.jsonl"
        live = record_replay(ScriptedChat([reply]), path, "record-missing", model_id="m")
        live.chat([{"role": "user", "content": prompt}])
        again = record_replay(ScriptedChat([]), path, "replay", model_id="m").chat(
            [{"role": "user", "content": prompt}]
        )
    assert again.text == text
    assert (again.tool_calls or ()) == tuple(calls)
