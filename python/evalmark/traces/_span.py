"""One span as the trace reader sees it, whatever file it came from (OTLP JSON or protobuf):
hex ids, times in nanoseconds, attributes as a plain mapping of JSON-like values, and its
events. Both decoders (:mod:`~evalmark.traces._otlp_json`, :mod:`~evalmark.traces._otlp_proto`)
build these; everything above reads only them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["STATUS_ERROR", "Event", "Span"]

STATUS_ERROR = 2  # Status.code: 0 unset, 1 ok, 2 error


class Event:
    """A span event: its name, time (ns) and attributes."""

    __slots__ = ("attributes", "name", "time")

    def __init__(self, name: str, time: int, attributes: Mapping[str, Any]) -> None:
        self.name = name
        self.time = time
        self.attributes = attributes


class Span:
    """A span: ids (lower-case hex; ``parent_id`` is "" for a root), name, kind (the OTLP enum
    number), start and end (ns since the epoch), attributes, events, status code and message,
    and the attributes of its resource (shared by the spans of one resource)."""

    __slots__ = (
        "attributes",
        "end",
        "events",
        "kind",
        "name",
        "parent_id",
        "resource",
        "span_id",
        "start",
        "status_code",
        "status_message",
        "trace_id",
    )

    def __init__(
        self,
        trace_id: str,
        span_id: str,
        parent_id: str,
        name: str,
        kind: int,
        start: int,
        end: int,
        attributes: Mapping[str, Any],
        events: tuple[Event, ...],
        status_code: int,
        status_message: str,
        resource: Mapping[str, Any],
    ) -> None:
        self.trace_id = trace_id
        self.span_id = span_id
        self.parent_id = parent_id
        self.name = name
        self.kind = kind
        self.start = start
        self.end = end
        self.attributes = attributes
        self.events = events
        self.status_code = status_code
        self.status_message = status_message
        self.resource = resource

    @property
    def duration_ms(self) -> float:
        """The span's duration in milliseconds (0 when the end is before the start)."""
        return max(self.end - self.start, 0) / 1e6
