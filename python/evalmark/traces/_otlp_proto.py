"""OTLP protobuf files: one ``ExportTraceServiceRequest`` per file, or a stream of them each
preceded by its length as a 4-byte big-endian number (the OpenTelemetry Collector file
exporter's ``proto`` format). Decoded with the message classes of ``opentelemetry-proto`` (the
``traces`` extra), imported only when such a file is read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from evalmark.errors import OptionalDependencyError, Problem, TraceError
from evalmark.traces._span import Event, Span

__all__ = ["is_protobuf", "proto_spans"]

_FIRST_FIELD = 0x0A  # field 1 (resource_spans), length-delimited: a bare request starts so


_TEXT_CONTROLS = frozenset(b"\t\n\r ")


def is_protobuf(head: bytes) -> bool:
    """Whether a file starting with ``head`` (its first bytes) is OTLP protobuf: a bare request
    (first byte 0x0A) or a length-prefixed stream (first byte 0 for any message under 16 MiB),
    and not JSON (text opening with ``{`` or ``[``, no control characters but white space)."""
    if not head or head[0] not in (_FIRST_FIELD, 0x00):
        return False
    text = head.lstrip()
    looks_json = text[:1] in (b"{", b"[") and all(b >= 0x20 or b in _TEXT_CONTROLS for b in head)
    return not looks_json


def _request_class() -> Any:
    try:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise OptionalDependencyError(
            "opentelemetry-proto", "traces", "reading OTLP protobuf trace files"
        ) from None
    return ExportTraceServiceRequest


def _value(v: Any) -> Any:
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in v.kvlist_value.values}
    if which == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, which)


def _attributes(pairs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in pairs}


def _spans(request: Any) -> list[Span]:
    out: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                events = tuple(
                    Event(e.name, e.time_unix_nano, _attributes(e.attributes)) for e in s.events
                )
                out.append(
                    Span(
                        s.trace_id.hex(),
                        s.span_id.hex(),
                        s.parent_span_id.hex(),
                        s.name,
                        int(s.kind),
                        s.start_time_unix_nano,
                        s.end_time_unix_nano,
                        _attributes(s.attributes),
                        events,
                        int(s.status.code),
                        s.status.message,
                        resource,
                    )
                )
    return out


def _parse(data: bytes, path: Path, where: str) -> Any:
    from google.protobuf.message import DecodeError

    request = _request_class()()
    try:
        request.ParseFromString(data)
    except DecodeError as exc:
        raise TraceError(
            [
                Problem(
                    f"not an OTLP protobuf trace request ({where}: {exc}); give an "
                    "ExportTraceServiceRequest, or a stream of them each preceded by its "
                    "length (4 bytes, big-endian)",
                    path=str(path),
                )
            ]
        ) from None
    return request


def proto_spans(path: Path, stream: BinaryIO) -> Iterator[tuple[int, list[Span]]]:
    """``(request number, spans)`` for every request of an OTLP protobuf file."""
    head = stream.read(1)
    if not head:
        return
    if head[0] == _FIRST_FIELD:
        yield 1, _spans(_parse(head + stream.read(), path, "the whole file"))
        return
    number = 0
    prefix = head + stream.read(3)
    while prefix:
        number += 1
        if len(prefix) < 4:
            raise TraceError(
                [Problem(f"request {number}: the file ends inside a length prefix", path=str(path))]
            )
        size = int.from_bytes(prefix, "big")
        data = stream.read(size)
        if len(data) < size:
            raise TraceError(
                [
                    Problem(
                        f"request {number}: the file ends {size - len(data)} bytes early "
                        "(a cut-off file?)",
                        path=str(path),
                    )
                ]
            )
        yield number, _spans(_parse(data, path, f"request {number}"))
        prefix = stream.read(4)
