"""The messages of a chat or agent span, in every shape the conventions record them: the
current ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (``{role, parts}``), the previous
message events (``gen_ai.user.message``, ``gen_ai.choice``... with OpenAI-style bodies), the
older indexed ``gen_ai.prompt.N.*`` attributes, and OpenInference's ``llm.input_messages.N.*``
and ``input.value`` / ``output.value``. Each message becomes ``{"role", "text", "calls",
"results"}``: its text, the tool calls it asks for and the tool results it carries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.traces._keys import shape
from evalmark.traces._span import Span
from evalmark.traces._values import arguments_of, indexed, parsed, text_of

__all__ = ["Message", "input_messages", "output_messages"]

# {"role": str, "text": str, "calls": [(id, name, arguments)], "results": [(id, value)]}
Message = dict[str, Any]

_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _text_only(raw: Mapping[str, Any]) -> Message | None:
    """The common message ``{role, parts: [{type: text, content}...]}`` read quickly; None for
    any other shape."""
    parts = raw.get("parts")
    role = raw.get("role")
    if type(parts) is not list or type(role) is not str:
        return None
    texts = []
    for part in parts:
        if type(part) is not dict or part.get("type") != "text":
            return None
        content = part.get("content")
        if type(content) is not str:
            return None
        texts.append(content)
    return {
        "role": role or "user",
        "text": "\n".join(t for t in texts if t),
        "calls": [],
        "results": [],
    }


def _message(raw: Any) -> Message:
    """One message in any of the shapes: ``{role, parts: [...]}`` (current), ``{role,
    content, tool_calls}`` (OpenAI style, the previous events), or plain text."""
    if not isinstance(raw, Mapping):
        return {"role": "user", "text": text_of(raw), "calls": [], "results": []}
    plain = len(raw) == 2 or (len(raw) == 3 and "finish_reason" in raw)
    if plain:
        quick = _text_only(raw)
        if quick is not None:
            return quick
    texts: list[str] = []
    calls: list[tuple[str, str, dict[str, Any]]] = []
    results: list[tuple[str, Any]] = []
    parts = raw.get("parts")
    if isinstance(parts, list):
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind == "tool_call":
                calls.append(
                    (
                        str(part.get("id") or ""),
                        str(part.get("name") or ""),
                        arguments_of(part.get("arguments")),
                    )
                )
            elif kind == "tool_call_response":
                results.append((str(part.get("id") or ""), parsed(part.get("response"))))
            elif isinstance(part.get("content"), str):
                texts.append(part["content"])
    if plain and "parts" in raw and "role" in raw:  # {role, parts}: nothing more to read
        return {
            "role": str(raw["role"] or "user"),
            "text": "\n".join(t for t in texts if t),
            "calls": calls,
            "results": results,
        }
    content = raw.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        texts += [str(c.get("text", "")) for c in content if isinstance(c, Mapping)]
    message = parsed(raw.get("message"))  # an event attribute holds it as JSON text
    if isinstance(message, Mapping):  # a gen_ai.choice event's body
        inner = _message(message)
        texts.append(inner["text"])
        calls += inner["calls"]
    for call in parsed(raw.get("tool_calls")) or ():
        if isinstance(call, Mapping):
            inner_call = call.get("function")
            function: Mapping[str, Any] = inner_call if isinstance(inner_call, Mapping) else call
            calls.append(
                (
                    str(call.get("id") or ""),
                    str(function.get("name") or ""),
                    arguments_of(function.get("arguments")),
                )
            )
    if raw.get("role") == "tool" and raw.get("id") is not None:
        results.append((str(raw.get("id")), parsed(content)))
    text = "\n".join(t for t in texts if t)
    return {
        "role": str(raw.get("role") or "user"),
        "text": text,
        "calls": calls,
        "results": results,
    }


def _messages(value: Any) -> list[Message]:
    value = parsed(value)
    if isinstance(value, list):
        return [_message(m) for m in value]
    return [] if value is None else [_message(value)]


def _openinference_messages(attributes: Mapping[str, Any], prefix: str) -> list[Message]:
    out = []
    for item in indexed(attributes, prefix):
        calls = [
            (
                str(c.get("tool_call.id") or ""),
                str(c.get("tool_call.function.name") or ""),
                arguments_of(c.get("tool_call.function.arguments")),
            )
            for c in indexed(item, "message.tool_calls.")
        ]
        texts = [str(c.get("message_content.text", "")) for c in indexed(item, "message.contents.")]
        text = item.get("message.content")
        out.append(
            {
                "role": str(item.get("message.role") or "user"),
                "text": "\n".join(t for t in [text_of(text), *texts] if t),
                "calls": calls,
                "results": [],
            }
        )
    return out


def _event_body(attributes: Mapping[str, Any]) -> Any:
    for key in ("gen_ai.event.content", "body", "event.body"):
        if key in attributes:
            return parsed(attributes[key])
    return attributes


def input_messages(span: Span) -> list[Message]:
    """The messages sent to the model (or the agent), in order."""
    a = span.attributes
    if "gen_ai.input.messages" in a:
        return _messages(a["gen_ai.input.messages"])
    keys = shape(a)
    if keys.llm_input:
        return _openinference_messages(a, "llm.input_messages.")
    from_events = []
    for event in span.events:
        if event.name in _EVENT_ROLES:
            body = _event_body(event.attributes)
            message = _message(body)
            message["role"] = (
                str(body.get("role") or _EVENT_ROLES[event.name])
                if isinstance(body, Mapping)
                else _EVENT_ROLES[event.name]
            )
            from_events.append(message)
        elif event.name == "gen_ai.content.prompt" and "gen_ai.prompt" in event.attributes:
            from_events += _messages(event.attributes["gen_ai.prompt"])
    if from_events:
        return from_events
    flat = indexed(a, "gen_ai.prompt.") if keys.prompt else None
    if flat:
        return [_message({"role": m.get("role"), "content": m.get("content")}) for m in flat]
    if "input.value" in a:
        return [_message(_oi_value(a["input.value"]))]
    return []


def output_messages(span: Span) -> list[Message]:
    """The messages the model (or the agent) answered with, in order."""
    a = span.attributes
    if "gen_ai.output.messages" in a:
        return _messages(a["gen_ai.output.messages"])
    keys = shape(a)
    if keys.llm_output:
        return _openinference_messages(a, "llm.output_messages.")
    from_events = []
    for event in span.events:
        if event.name == "gen_ai.choice":
            message = _message(_event_body(event.attributes))
            message["role"] = "assistant"
            from_events.append(message)
        elif event.name == "gen_ai.content.completion" and "gen_ai.completion" in event.attributes:
            from_events += _messages(event.attributes["gen_ai.completion"])
    if from_events:
        return from_events
    flat = indexed(a, "gen_ai.completion.") if keys.completion else None
    if flat:
        return [_flat_completion(m) for m in flat]
    if "output.value" in a:
        message = _message(_oi_value(a["output.value"]))
        message["role"] = "assistant"
        return [message]
    return []


def _flat_completion(item: Mapping[str, Any]) -> Message:
    calls = [
        {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
        for c in indexed(item, "tool_calls.")
    ]
    return _message(
        {
            "role": item.get("role") or "assistant",
            "content": item.get("content"),
            "tool_calls": calls,
        }
    )


def _oi_value(value: Any) -> Any:
    """An OpenInference ``input.value`` / ``output.value``: text as is; JSON holding messages
    (``{"messages": [...]}``) as the last of them; other JSON as its text."""
    decoded = parsed(value)
    if isinstance(decoded, Mapping) and isinstance(decoded.get("messages"), list):
        messages = decoded["messages"]
        return messages[-1] if messages else ""
    return value if isinstance(value, str) else text_of(value)
