"""One span as the trace reader sees it, whatever file it came from (OTLP JSON or protobuf):
hex ids, times in nanoseconds, attributes as a plain mapping of JSON-like values, and its
events. Both decoders (:mod:`~evalmark.traces._otlp_json`, :mod:`~evalmark.traces._otlp_proto`)
build these; everything above reads only them.

They are msgspec structs (made in C, several times faster than a Python ``__init__``, which
counts at hundreds of thousands of spans a second), not tracked by the garbage collector: a
span holds only plain values, never itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = ["STATUS_ERROR", "Event", "Span"]

STATUS_ERROR = 2  # Status.code: 0 unset, 1 ok, 2 error


class Event(msgspec.Struct, gc=False):
    """A span event: its name, time (ns) and attributes."""

    name: str
    time: int
    attributes: Mapping[str, Any]


class Span(msgspec.Struct, gc=False):
    """A span: ids (lower-case hex; ``parent_id`` is "" for a root), name, kind (the OTLP enum
    number), start and end (ns since the epoch), attributes, events, status code and message,
    and the attributes of its resource (shared by the spans of one resource)."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    start: int
    end: int
    attributes: Mapping[str, Any]
    events: tuple[Event, ...]
    status_code: int
    status_message: str
    resource: Mapping[str, Any]

    @property
    def duration_ms(self) -> float:
        """The span's duration in milliseconds (0 when the end is before the start)."""
        return max(self.end - self.start, 0) / 1e6
