"""OTLP JSON: the JSON encoding of ``ExportTraceServiceRequest`` (and of ``TracesData``, the
same shape), one request per file or one per line (the OpenTelemetry file exporter's JSON
lines). Ids are hex strings (base64, as a plain protobuf JSON printer writes them, is accepted
too), 64-bit integers may be strings, enums are numbers (their names are accepted too).

Decoding is msgspec's, into typed structs, so a line costs about what ``json.loads`` of it
does; a JSON lines file is read one line at a time, so memory does not grow with the file.
The structs are not tracked by the garbage collector (``gc=False``: decoded JSON holds no
cycles): a request of thousands of values then triggers no collections while it decodes,
which made decoding a third faster.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from evalmark.errors import Problem, TraceError
from evalmark.traces._span import Event, Span

__all__ = ["FastDecoder", "hex_id", "json_spans", "request_spans"]

# the fast path's decoder of one request: its spans, or None to decode it here
FastDecoder = Callable[[bytes], list[Any] | None]


class _AnyValue(msgspec.Struct, gc=False, rename="camel"):
    string_value: str | None = None
    bool_value: bool | None = None
    int_value: int | None = None
    double_value: float | None = None
    array_value: _Array | None = None
    kvlist_value: _KvList | None = None
    bytes_value: str | None = None


class _KeyValue(msgspec.Struct, gc=False):
    key: str = ""  # a protobuf JSON printer leaves an empty key out
    value: _AnyValue | None = None


class _Array(msgspec.Struct, gc=False):
    values: list[_AnyValue] = []


class _KvList(msgspec.Struct, gc=False):
    values: list[_KeyValue] = []


class _Event(msgspec.Struct, gc=False, rename="camel"):
    name: str = ""
    time_unix_nano: int = 0
    attributes: list[_KeyValue] = []


class _Status(msgspec.Struct, gc=False):
    code: int | str = 0
    message: str = ""


class _Span(msgspec.Struct, gc=False, rename="camel"):
    trace_id: str = ""
    span_id: str = ""
    parent_span_id: str = ""
    name: str = ""
    kind: int | str = 0
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    attributes: list[_KeyValue] = []
    events: list[_Event] = []
    status: _Status | None = None


class _ScopeSpans(msgspec.Struct, gc=False):
    spans: list[_Span] = []


class _Resource(msgspec.Struct, gc=False):
    attributes: list[_KeyValue] = []


class _ResourceSpans(msgspec.Struct, gc=False, rename="camel"):
    resource: _Resource | None = None
    scope_spans: list[_ScopeSpans] = []


class _Request(msgspec.Struct, gc=False, rename="camel"):
    resource_spans: list[_ResourceSpans] = []


# strict=False reads 64-bit integers written as strings ("1581452772000000321") as numbers.
_DECODER = msgspec.json.Decoder(_Request, strict=False)
_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
_CODES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
_HEX = frozenset("0123456789abcdef")


def hex_id(value: str) -> str:
    """A trace or span id as lower-case hex: hex as given, base64 (a protobuf JSON printer's
    form) decoded; anything else kept as written."""
    if not value:
        return ""
    lowered = value.lower()
    if len(value) in (16, 32) and _HEX.issuperset(lowered):  # base64 ids are 12 or 24 long
        return lowered
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _value(v: _AnyValue | None) -> Any:
    if v is None:
        return None
    if v.string_value is not None:
        return v.string_value
    if v.int_value is not None:
        return v.int_value
    if v.bool_value is not None:
        return v.bool_value
    if v.double_value is not None:
        return v.double_value
    if v.array_value is not None:
        return [_value(x) for x in v.array_value.values]
    if v.kvlist_value is not None:
        return {kv.key: _value(kv.value) for kv in v.kvlist_value.values}
    if v.bytes_value is not None:
        return _bytes_hex(v.bytes_value)
    return None


def _bytes_hex(value: str) -> str:
    """A ``bytesValue`` (base64 in OTLP JSON) as lower-case hex, as the protobuf reader gives
    it; text that is not base64 is kept as written."""
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _attributes(pairs: list[_KeyValue]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in pairs:
        v = kv.value
        if v is not None and v.string_value is not None:
            out[kv.key] = v.string_value
        else:
            out[kv.key] = _value(v)
    return out


def _number(value: int | str, table: dict[str, int]) -> int:
    if type(value) is int:
        return value
    text = str(value)
    return int(text) if text.lstrip("-").isdigit() else table.get(text, 0)


def request_spans(request: _Request) -> Iterator[Span]:
    """The spans of one decoded request, in file order."""
    attributes = _attributes
    for resource_spans in request.resource_spans:
        resource = resource_spans.resource
        resource_attributes = attributes(resource.attributes) if resource is not None else {}
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                trace_id, span_id, parent_id = s.trace_id, s.span_id, s.parent_span_id
                if len(trace_id) != 32:
                    trace_id = hex_id(trace_id)
                if len(span_id) != 16:
                    span_id = hex_id(span_id)
                if parent_id and len(parent_id) != 16:
                    parent_id = hex_id(parent_id)
                kind = s.kind if type(s.kind) is int else _number(s.kind, _KINDS)
                status = s.status
                code, message = 0, ""
                if status is not None:
                    message = status.message
                    code = status.code if type(status.code) is int else _number(status.code, _CODES)
                events = (
                    tuple(
                        Event(e.name, e.time_unix_nano, attributes(e.attributes)) for e in s.events
                    )
                    if s.events
                    else ()
                )
                yield Span(
                    trace_id,
                    span_id,
                    parent_id,
                    s.name,
                    kind,
                    s.start_time_unix_nano,
                    s.end_time_unix_nano,
                    attributes(s.attributes),
                    events,
                    code,
                    message,
                    resource_attributes,
                )


def _too_deep(path: Path, line: int | None) -> TraceError:
    message = "the trace request is nested too deeply to read; flatten it"
    return TraceError([Problem(message, path=str(path), line=line)])


def _decode(data: bytes, path: Path, line: int | None) -> _Request:
    try:
        return _DECODER.decode(data)
    except RecursionError:
        raise _too_deep(path, line) from None
    except (msgspec.DecodeError, ValueError) as exc:
        raise TraceError(
            [
                Problem(
                    f"not an OTLP JSON trace request ({exc}); each line (or the whole file) "
                    'must be an ExportTraceServiceRequest: {"resourceSpans": [...]}',
                    path=str(path),
                    line=line,
                )
            ]
        ) from None


def _spans(raw: bytes, path: Path, line: int, fast: FastDecoder | None) -> list[Any]:
    if fast is not None:
        found = fast(raw)
        if found is not None:
            return found
    return list(request_spans(_decode(raw, path, line)))


def json_spans(
    path: Path, stream: BinaryIO, fast: FastDecoder | None = None
) -> Iterator[tuple[int, list[Any]]]:
    """``(line, spans)`` for every request of an OTLP JSON file: one per non-blank line, or
    the whole file as one request when its first line is not a whole JSON document. ``fast``
    (the fast path's decoder) reads each line first; a line it gives up on (None) is decoded
    here into ``Span``s."""
    line = 0
    first = b""
    for raw in stream:
        line += 1
        if not raw.isspace():  # not blank (strip() would copy a long line)
            first = raw
            break
    if not first:
        return
    found = fast(first) if fast is not None else None
    if found is None:
        try:
            msgspec.json.decode(first)
        except RecursionError:
            raise _too_deep(path, line) from None
        except msgspec.DecodeError:  # an indented request spread over lines: the whole file
            whole = first + stream.read()
            yield line, list(request_spans(_decode(whole, path, None)))
            return
        found = list(request_spans(_decode(first, path, line)))
    yield line, found
    for raw in stream:
        line += 1
        if not raw.isspace():  # not blank (strip() would copy a long line)
            yield line, _spans(raw, path, line, fast)
