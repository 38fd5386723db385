"""What the attributes of a span mean, under the OpenTelemetry GenAI semantic conventions
(current: ``gen_ai.input.messages`` / ``gen_ai.output.messages``; previous: the message events
``gen_ai.user.message``, ``gen_ai.choice``...; older: ``gen_ai.prompt.N.content``) and
OpenInference (``openinference.span.kind``, ``input.value``, ``llm.input_messages.N...``).

Each reader takes a span and returns plain values; :func:`known` tells which attributes were
understood, so the assembler keeps every other one in the test case's metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.traces._keys import known, shape
from evalmark.traces._span import STATUS_ERROR, Span
from evalmark.traces._values import arguments_of, indexed, parsed, text_of

__all__ = [
    "cost",
    "documents",
    "known",
    "role",
    "tool_call",
    "tool_name",
    "usage",
]

# role: agent (invoke_agent, AGENT), chain (an OpenInference CHAIN: a container), chat (an LLM
# call), tool, retrieval, embedding, genai (another GenAI operation), "" (not GenAI at all)
_OPERATIONS = {
    "invoke_agent": "agent",
    "create_agent": "agent",
    "chat": "chat",
    "text_completion": "chat",
    "generate_content": "chat",
    "execute_tool": "tool",
    "retrieval": "retrieval",
    "retrieve": "retrieval",
    "embeddings": "embedding",
}
_OPENINFERENCE = {
    "AGENT": "agent",
    "CHAIN": "chain",
    "LLM": "chat",
    "TOOL": "tool",
    "RETRIEVER": "retrieval",
    "EMBEDDING": "embedding",
}


def role(span: Span) -> str:
    """The span's part in an agent run (see the table above); "" for a span that is not GenAI."""
    a = span.attributes
    if "gen_ai.evaluation.name" in a:
        return "evaluation"  # a verdict written back (evalmark traces annotate)
    operation = a.get("gen_ai.operation.name")
    if operation is not None:
        return _OPERATIONS.get(operation if type(operation) is str else str(operation), "genai")
    kind = a.get("openinference.span.kind")
    if kind is not None:
        return _OPENINFERENCE.get(str(kind).upper(), "genai")
    if shape(a).genai or any(e.name.startswith("gen_ai.") for e in span.events):
        if "gen_ai.tool.name" in a:
            return "tool"
        return "agent" if "gen_ai.agent.name" in a else "chat"
    return ""


def tool_name(span: Span) -> str:
    """The name of the tool a tool span called."""
    a = span.attributes
    name = a.get("gen_ai.tool.name") or a.get("tool.name")
    if name:
        return str(name)
    return span.name.removeprefix("execute_tool").strip() or span.name


def tool_call(span: Span) -> tuple[str, str, dict[str, Any], Any, bool, str | None]:
    """``(id, name, arguments, result, has_result, error)`` of a tool span; a failed call's
    result is ``{"error": message}``."""
    a = span.attributes
    name = tool_name(span)
    call_id = str(a.get("gen_ai.tool.call.id") or a.get("tool_call.id") or span.span_id)
    if "gen_ai.tool.call.arguments" in a:
        arguments = arguments_of(a["gen_ai.tool.call.arguments"])
    elif "input.value" in a:
        arguments = arguments_of(a["input.value"])
    else:
        arguments = arguments_of(a.get("tool.parameters"))
    error = _error(span)
    for key in ("gen_ai.tool.call.result", "output.value"):
        if key in a:
            return call_id, str(name), arguments, parsed(a[key]), True, error
    if error is not None:
        return call_id, str(name), arguments, {"error": error}, True, error
    return call_id, str(name), arguments, None, False, None


def _error(span: Span) -> str | None:
    if span.status_code != STATUS_ERROR and "error.type" not in span.attributes:
        return None
    for event in span.events:
        if event.name == "exception" and "exception.message" in event.attributes:
            kind = event.attributes.get("exception.type")
            message = str(event.attributes["exception.message"])
            return f"{kind}: {message}" if kind else message
    return span.status_message or str(span.attributes.get("error.type") or "error")


def documents(span: Span) -> list[str]:
    """The documents a retrieval span returned (OpenInference ``retrieval.documents.N``,
    ``gen_ai.retrieval.documents``, or a datastore tool's result)."""
    a = span.attributes
    found = indexed(a, "retrieval.documents.") if shape(a).documents else None
    if found:
        return [text_of(d.get("document.content")) for d in found]
    for key in ("gen_ai.retrieval.documents", "gen_ai.tool.call.result", "output.value"):
        if key in a:
            value = parsed(a[key])
            items = value if isinstance(value, list) else [value]
            return [text_of(i.get("content", i) if isinstance(i, Mapping) else i) for i in items]
    return []


def _int(value: Any) -> int | None:
    if type(value) is int:
        return value if value >= 0 else None
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


_INPUT_TOKENS = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
)
_OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
)


def usage(span: Span) -> tuple[int | None, int | None, int | None] | None:
    """``(input, output, total)`` tokens recorded on the span (None where not recorded), or
    None when it records none."""
    a = span.attributes
    first = second = None
    for key in _INPUT_TOKENS:
        if key in a:
            first = _int(a[key])
            break
    for key in _OUTPUT_TOKENS:
        if key in a:
            second = _int(a[key])
            break
    total = _int(a["llm.token_count.total"]) if "llm.token_count.total" in a else None
    if first is None and second is None and total is None:
        return None
    return first, second, total


def cost(span: Span) -> Any:
    """The cost recorded on the span (``gen_ai.usage.cost`` or ``llm.cost.total``), or None."""
    a = span.attributes
    return a.get("gen_ai.usage.cost", a.get("llm.cost.total"))
