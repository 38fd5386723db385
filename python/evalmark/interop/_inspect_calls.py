"""The tool calls an inspect_ai log's samples made, each with the result of the tool message
answering it: what a sample's test case carries beyond its answer (``Imported.extra``), found
when first read (no re-score reads them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._inspect_log import Rows, decode, may_call
from evalmark.samples._case import ToolCall

__all__ = ["tool_calls"]


def tool_calls(
    firsts: Mapping[str, tuple[Any, list[str]]], rows: Rows, where: str
) -> dict[str, Mapping[str, Any]]:
    """The tool calls of each sample that made any (its first epoch's), by name; a tool call
    with no ``function`` is an :class:`ImportFormatError` naming the sample and ``where`` (the
    log)."""
    # whether a sample may call a tool: its messages' text names tool_calls (one search)
    texts = [row.messages for row in rows.typed if type(row.messages) is msgspec.Raw]
    if not may_call(b"".join(texts)):
        return {}
    return {
        name: {"tool_calls": found_calls}
        for name, (row, _) in firsts.items()
        if (found_calls := _calls(row.messages, name, where))
    }


def _calls(messages: Any, name: str, where: str) -> tuple[ToolCall, ...]:
    """The assistant's tool calls, each with the result of the tool message answering it."""
    if type(messages) is msgspec.Raw:
        if not may_call(bytes(messages)):
            return ()
        messages = decode(messages)
    messages = messages or []
    for m in messages:
        if type(m) is dict and m.get("tool_calls"):
            break
    else:
        return ()
    results = {
        m.get("tool_call_id"): m.get("content")
        for m in messages
        if isinstance(m, Mapping) and m.get("role") == "tool"
    }
    calls = []
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if not isinstance(call, Mapping) or "function" not in call:
                    problem = f"sample {name}: a tool call has no 'function' (the tool's name)"
                    raise ImportFormatError([Problem(problem, path=where, record="tool_calls")])
                calls.append(
                    ToolCall(
                        name=str(call["function"]),
                        arguments=dict(call.get("arguments") or {}),
                        result=results.get(call.get("id")),
                        id=call.get("id"),
                    )
                )
    return tuple(calls)
