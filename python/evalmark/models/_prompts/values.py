"""How a value becomes the text of a prompt variable: plain text, numbered passages, a
conversation or trajectory as a transcript, anything else as JSON.

A transcript has one entry per message, ``[role] content``; a tool call is ``[call]
name({...arguments})`` and a tool's result ``[result name] content``. The same value always
gives the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

__all__ = ["VARIABLE_TYPES", "VariableType", "as_text", "tool_names"]

VariableType = Literal["text", "passages", "conversation", "trajectory", "json"]
VARIABLE_TYPES: tuple[str, ...] = ("text", "passages", "conversation", "trajectory", "json")


def _plain(value: Any) -> Any:
    """Structs (TestCase, Conversation, ToolCall, Message...) as builtins; the rest as is."""
    if isinstance(value, msgspec.Struct):
        kind = type(value).__name__
        if kind == "Conversation":
            return _conversation_messages(value)
        if kind == "TestCase":
            return _test_case_messages(value)
        return msgspec.to_builtins(value)
    return value


def _conversation_messages(conversation: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    system = getattr(conversation, "system_prompt", None)
    if system:
        messages.append({"role": "system", "content": system})
    for turn in getattr(conversation, "turns", ()):
        messages.extend(_test_case_messages(turn))
    return messages


def _test_case_messages(case: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": case.input}]
    for call in case.tool_calls:
        messages.append({"role": "assistant", "tool_calls": [msgspec.to_builtins(call)]})
        if call.result is not None:
            messages.append({"role": "tool", "name": call.name, "content": call.result})
    messages.append({"role": "assistant", "content": case.actual_output})
    return messages


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _content(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(
        isinstance(part, Mapping) and part.get("type") == "text" for part in value
    ):
        return "\n".join(str(part.get("text", "")) for part in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _call_line(call: Mapping[str, Any]) -> str:
    function = call.get("function")
    source = function if isinstance(function, Mapping) else call
    name = str(source.get("name") or "?")
    arguments = source.get("arguments", {})
    if isinstance(arguments, str):
        text = arguments
    else:
        text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return f"[call] {name}({text})"


def _is_message(item: object) -> bool:
    return isinstance(item, Mapping) and "role" in item


def _is_call(item: object) -> bool:
    return (
        isinstance(item, Mapping) and "role" not in item and ("name" in item or "function" in item)
    )


def _transcript(items: Sequence[Any]) -> str:
    entries: list[str] = []
    for item in items:
        item = _plain(item)
        if isinstance(item, list):
            entries.append(_transcript(item))
        elif _is_message(item):
            role = str(item["role"])
            content = _content(item.get("content"))
            if role == "tool":
                label = item.get("name") or item.get("tool_call_id") or "tool"
                entries.append(f"[result {label}] {content}")
            elif content or not item.get("tool_calls"):
                entries.append(f"[{role}] {content}")
            for call in item.get("tool_calls") or ():
                if isinstance(call, Mapping):
                    entries.append(_call_line(call))
        elif _is_call(item):
            entries.append(_call_line(item))
            if item.get("result") is not None:
                entries.append(f"[result {item.get('name')}] {_content(item['result'])}")
        elif isinstance(item, str):
            entries.append(item)
        else:
            entries.append(_json(item))
    return "\n".join(entries)


def as_text(value: Any, kind: str) -> str | None:
    """The text of ``value`` for a variable of type ``kind``; None when it cannot be shown
    (a value that is neither text, a sequence, a mapping, a number nor a struct)."""
    value = _plain(value)
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return _json(value)
    if isinstance(value, Mapping):
        if kind in ("conversation", "trajectory") and isinstance(value.get("messages"), list):
            return _transcript(value["messages"])
        if kind in ("conversation", "trajectory") and (_is_message(value) or _is_call(value)):
            return _transcript([value])
        return _json(dict(value))
    if isinstance(value, Sequence):
        items = list(value)
        if kind in ("conversation", "trajectory"):
            return _transcript(items)
        if all(isinstance(item, str) for item in items):
            if kind == "passages" and len(items) > 1:
                return "\n\n".join(f"[{n}] {text}" for n, text in enumerate(items, 1))
            return "\n\n".join(items)
        if any(_is_message(item) or _is_call(item) for item in items) and kind != "json":
            return _transcript(items)
        try:
            return _json([_plain(item) for item in items])
        except TypeError:
            return None
    return None


def tool_names(transcript: str) -> list[str]:
    """The names of the tools called in a transcript, in order."""
    names = []
    for line in transcript.split("\n"):
        if line.startswith("[call] "):
            names.append(line[len("[call] ") :].split("(", 1)[0].strip())
    return names
