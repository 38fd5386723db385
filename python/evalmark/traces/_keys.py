"""Which attribute keys the trace reader understands, and the shape of a span's attribute keys
read once: spans of one kind carry the same keys in the same order, so what the conventions
ask of the keys (which ones are unknown, whether any is ``gen_ai.*`` or an indexed
``prefix.N.*`` family) is worked out once per distinct key sequence, not once per span."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["KNOWN_KEYS", "KNOWN_PREFIXES", "Shape", "known", "shape"]

# The one table of the keys the reader understands (the Rust fast path is handed it by
# evalmark.traces._fast): a key not named here is kept in a case's metadata.
KNOWN_KEYS = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.agent.name",
        "gen_ai.agent.id",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.tool.type",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.prompt_tokens",
        "gen_ai.usage.completion_tokens",
        "gen_ai.usage.cost",
        "gen_ai.retrieval.documents",
        "gen_ai.retrieval.query.text",
        "openinference.span.kind",
        "input.value",
        "input.mime_type",
        "output.value",
        "output.mime_type",
        "llm.token_count.prompt",
        "llm.token_count.completion",
        "llm.token_count.total",
        "llm.cost.total",
        "tool.name",
        "tool.parameters",
        "tool_call.id",
        "error.type",
    }
)
KNOWN_PREFIXES = (
    "llm.input_messages.",
    "llm.output_messages.",
    "retrieval.documents.",
    "gen_ai.prompt.",
    "gen_ai.completion.",
)


_KNOWN_SEEN: dict[str, bool] = {}
_MEMO_LIMIT = 10_000  # attribute names (and key sequences) repeat: bounded memos of them


def known(key: str) -> bool:
    """Whether the reader understands attribute ``key`` (the others go to the metadata)."""
    found = _KNOWN_SEEN.get(key)
    if found is None:
        found = key in KNOWN_KEYS or key.startswith(KNOWN_PREFIXES)
        if len(_KNOWN_SEEN) < _MEMO_LIMIT:
            _KNOWN_SEEN[key] = found
    return found


class Shape(NamedTuple):
    """What a span's attribute keys say, whatever their values: the keys not understood (in
    order), whether any is ``gen_ai.*``, and which indexed families (``prefix.N.rest``) appear."""

    unknown: tuple[str, ...]
    genai: bool
    documents: bool  # retrieval.documents.*
    llm_input: bool  # llm.input_messages.*
    llm_output: bool  # llm.output_messages.*
    prompt: bool  # gen_ai.prompt.*
    completion: bool  # gen_ai.completion.*


_SHAPES: dict[tuple[str, ...], Shape] = {}


def _shape_of(keys: tuple[str, ...]) -> Shape:
    def has(prefix: str) -> bool:
        return any(k.startswith(prefix) for k in keys)

    return Shape(
        tuple(k for k in keys if not known(k)),
        has("gen_ai."),
        has("retrieval.documents."),
        has("llm.input_messages."),
        has("llm.output_messages."),
        has("gen_ai.prompt."),
        has("gen_ai.completion."),
    )


def shape(attributes: Mapping[str, Any]) -> Shape:
    """The :class:`Shape` of a span's attribute keys (memoised by the key sequence)."""
    keys = tuple(attributes)
    found = _SHAPES.get(keys)
    if found is None:
        found = _shape_of(keys)
        if len(_SHAPES) < _MEMO_LIMIT and len(keys) <= 64:
            _SHAPES[keys] = found
    return found
