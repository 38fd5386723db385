"""Write agent.otlp.jsonl: three runs of a travel agent recorded with the OpenTelemetry SDK
(GenAI semantic conventions) and one health-check request with no GenAI span, as OTLP JSON
lines. The SDK's clock and ids are replaced by counters, so the file is the same every time:

    python golden/traces/make_traces.py

The agent and the OTLP encoding are the trace tests' own (tests/trace_producers.py)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import opentelemetry.sdk.trace as sdk_trace  # noqa: E402
from opentelemetry.sdk.trace.id_generator import IdGenerator  # noqa: E402

from trace_producers import encode, otlp_json, record, record_agent_run  # noqa: E402

TRIPS = {
    "trip-oslo-rome": (("Oslo", "OSL", "Rome", "FCO", 129), "SK 4711"),
    "trip-bergen-paris": (("Bergen", "BGO", "Paris", "CDG", 164), "AF 1203"),
    "trip-tromso-nice": (("Tromso", "TOS", "Nice", "NCE", 211), "DY 1390"),
}


class CountingIds(IdGenerator):
    """Trace and span ids from counters."""

    def __init__(self) -> None:
        self.traces = itertools.count(0x4E1)
        self.spans = itertools.count(0x1001)

    def generate_trace_id(self) -> int:
        return (0x0AF7 << 112) | next(self.traces)

    def generate_span_id(self) -> int:
        return (0x5A << 56) | next(self.spans)


def main() -> None:
    clock = itertools.count(1_777_777_000_000_000_000, 37_000_000)  # 37 ms a tick
    sdk_trace.time_ns = lambda: next(clock)  # type: ignore[attr-defined]

    def runs(tracer: Any) -> None:
        for session, (trip, flight) in TRIPS.items():
            record_agent_run(tracer, session, trip=trip, flight=flight)
        with tracer.start_as_current_span("GET /health") as span:
            span.set_attribute("http.request.method", "GET")

    spans = record(runs, ids=CountingIds())
    by_trace: dict[int, list[Any]] = {}
    for span in spans:
        by_trace.setdefault(span.get_span_context().trace_id, []).append(span)
    lines = [otlp_json(encode(group)) + "\n" for group in by_trace.values()]
    (HERE / "agent.otlp.jsonl").write_text("".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
