"""Trace files for the trace tests, written by real producers: the OpenTelemetry SDK records an
agent's spans (GenAI semantic conventions), which are encoded as OTLP by the SDK's own encoder
(``opentelemetry-exporter-otlp-proto-common``, which its OTLP exporters use) and written as
OTLP protobuf or OTLP JSON (hex ids, 64-bit integers as strings, enums as numbers,
as the OpenTelemetry file exporter specifies). OpenInference spans are built by hand from its
published attribute names."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

_TEXT = "text"


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": _TEXT, "content": text}]}])


def _calls(*calls: tuple[str, str, dict[str, Any]]) -> str:
    parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    return json.dumps([{"role": "assistant", "parts": parts}])


def record_agent_run(
    tracer: Any,
    session: str,
    *,
    trip: tuple[str, str, str, str, int] = ("Oslo", "OSL", "Rome", "FCO", 129),
    flight: str = "SK 4711",
    with_results: bool = True,
) -> None:
    """A two-level travel agent: the planner asks the model, searches flights, retrieves the
    fare rules, hands booking to a booker agent (which books, then fails to send the e-mail),
    and answers. Three tools, a retrieval step, a failed tool call. ``trip`` is (from, its
    airport, to, its airport, the price)."""
    origin, start, destination, end, price = trip
    question = f"Book me the cheapest flight from {origin} to {destination} on 3 May"
    answer = f"Booked {flight} on 3 May for {price} EUR; the confirmation e-mail could not be sent."
    with tracer.start_as_current_span("invoke_agent planner") as planner:
        planner.set_attributes(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "planner",
                "session.id": session,
                "gen_ai.input.messages": _messages("user", question),
                "gen_ai.output.messages": _messages("assistant", answer),
                "app.build": "2026.05.1",
            }
        )
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.usage.input_tokens": 120,
                    "gen_ai.usage.output_tokens": 20,
                    "gen_ai.input.messages": _messages("user", question),
                    "gen_ai.output.messages": _calls(
                        ("c1", "search_flights", {"from": start, "to": end, "date": "2026-05-03"})
                    ),
                }
            )
        with tracer.start_as_current_span("execute_tool search_flights") as tool:
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "search_flights",
                    "gen_ai.tool.call.id": "c1",
                    "gen_ai.tool.call.arguments": json.dumps(
                        {"from": start, "to": end, "date": "2026-05-03"}
                    ),
                }
            )
            if with_results:
                tool.set_attribute(
                    "gen_ai.tool.call.result", json.dumps([{"flight": flight, "price": price}])
                )
        with tracer.start_as_current_span("retrieval fare-rules") as retrieval:
            retrieval.set_attributes(
                {
                    "gen_ai.operation.name": "retrieval",
                    "gen_ai.data_source.id": "fare-rules",
                    "gen_ai.retrieval.query.text": f"{flight} fare rules",
                    "gen_ai.retrieval.documents": json.dumps(
                        [
                            {"id": "r1", "content": "Economy Light fares are not refundable."},
                            {"id": "r2", "content": "Changes cost 50 EUR before departure."},
                        ]
                    ),
                }
            )
        with tracer.start_as_current_span("invoke_agent booker") as booker:
            booker.set_attributes(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": "booker",
                    "gen_ai.input.messages": _messages("user", f"book {flight} on 3 May"),
                }
            )
            with tracer.start_as_current_span("chat gpt-4o-mini", kind=SpanKind.CLIENT) as chat:
                chat.set_attributes(
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-4o-mini",
                        "gen_ai.usage.input_tokens": 80,
                        "gen_ai.usage.output_tokens": 15,
                        "gen_ai.output.messages": _calls(
                            ("c2", "book_flight", {"flight": flight}),
                            ("c3", "send_email", {"to": "ada@example.org"}),
                        ),
                    }
                )
            with tracer.start_as_current_span("execute_tool book_flight") as tool:
                tool.set_attributes(
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "book_flight",
                        "gen_ai.tool.call.id": "c2",
                        "gen_ai.tool.call.arguments": json.dumps({"flight": flight}),
                        "gen_ai.tool.call.result": json.dumps({"booking": "PNR42"}),
                    }
                )
            with tracer.start_as_current_span("execute_tool send_email") as tool:
                tool.set_attributes(
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": "send_email",
                        "gen_ai.tool.call.id": "c3",
                        "gen_ai.tool.call.arguments": json.dumps({"to": "ada@example.org"}),
                        "error.type": "SMTPError",
                    }
                )
                tool.record_exception(ConnectionError("SMTP server refused the connection"))
                tool.set_status(StatusCode.ERROR, "SMTP server refused the connection")
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.usage.input_tokens": 300,
                    "gen_ai.usage.output_tokens": 40,
                    "gen_ai.output.messages": _messages("assistant", answer),
                }
            )


def record(
    runs: Callable[[Any], None], service: str = "travel-agent", *, ids: Any = None
) -> list[ReadableSpan]:
    """The spans the SDK exports while ``runs(tracer)`` runs (``ids``: the SDK's id
    generator, default random)."""
    exporter = InMemorySpanExporter()
    resource = Resource({"service.name": service})
    provider = TracerProvider(resource=resource, id_generator=ids)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        runs(provider.get_tracer("travel-agent", "1.0"))
    finally:
        provider.shutdown()
    return list(exporter.get_finished_spans())


def _any(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, list | tuple):
        out = AnyValue()
        out.array_value.values.extend(_any(v) for v in value)
        return out
    return AnyValue(string_value=str(value))


def _attributes(attributes: Any) -> list[KeyValue]:
    return [KeyValue(key=k, value=_any(v)) for k, v in (attributes or {}).items()]


def encode(spans: Sequence[ReadableSpan]) -> ExportTraceServiceRequest:
    """An OTLP request of SDK spans, grouped by resource and scope, made by the SDK's own OTLP
    encoder (the one its OTLP exporters send)."""
    return encode_spans(spans)


def _hex_ids(value: Any) -> Any:
    """A protobuf JSON printer's base64 ids rewritten as the hex OTLP JSON asks for."""
    import base64

    if isinstance(value, dict):
        return {
            k: base64.b64decode(v).hex()
            if k in ("traceId", "spanId", "parentSpanId")
            else _hex_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def otlp_json(request: ExportTraceServiceRequest, *, hex_ids: bool = True) -> str:
    """The OTLP JSON encoding of a request, on one line."""
    document = MessageToDict(request, use_integers_for_enums=True)
    return json.dumps(_hex_ids(document) if hex_ids else document)


def write_json_lines(path: Path, requests: Sequence[ExportTraceServiceRequest]) -> Path:
    """One OTLP JSON request per line."""
    path.write_text("".join(otlp_json(r) + "\n" for r in requests), encoding="utf-8")
    return path


def write_protobuf(
    path: Path, requests: Sequence[ExportTraceServiceRequest], *, framed: bool = True
) -> Path:
    """OTLP protobuf: each request preceded by its length (4 bytes, big-endian), or one bare
    request when ``framed`` is false."""
    if not framed:
        assert len(requests) == 1
        path.write_bytes(requests[0].SerializeToString())
        return path
    data = b"".join(
        len(b).to_bytes(4, "big") + b for b in (r.SerializeToString() for r in requests)
    )
    path.write_bytes(data)
    return path


def agent_spans(sessions: Sequence[str] = ("s-1",), **options: Any) -> list[ReadableSpan]:
    """The SDK spans of one agent run per session."""
    return record(lambda tracer: [record_agent_run(tracer, s, **options) for s in sessions])


# --------------------------------------------------------------------------- OpenInference


def _oi_span(
    trace: str, span: str, parent: str, name: str, attributes: dict[str, Any], start: int, end: int
) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        return {"stringValue": str(v)}

    return {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()],
    }


def openinference_request(trace: str = "5b8efff798038103d269b633813fc60c") -> dict[str, Any]:
    """A RAG chain as OpenInference records it: CHAIN > RETRIEVER, LLM, TOOL."""
    t0 = 1_700_000_000_000_000_000
    spans = [
        _oi_span(
            trace,
            "a000000000000001",
            "",
            "rag",
            {
                "openinference.span.kind": "CHAIN",
                "session.id": "oi-1",
                "input.value": "What is the baggage allowance?",
                "output.value": "One cabin bag of 8 kg.",
                "metadata": '{"tenant": "acme"}',
            },
            t0,
            t0 + 900_000_000,
        ),
        _oi_span(
            trace,
            "a000000000000002",
            "a000000000000001",
            "retrieve",
            {
                "openinference.span.kind": "RETRIEVER",
                "input.value": "baggage allowance",
                "retrieval.documents.0.document.content": "Each passenger may bring one cabin bag.",
                "retrieval.documents.0.document.id": "d1",
                "retrieval.documents.1.document.content": "Cabin bags weigh at most 8 kg.",
                "retrieval.documents.1.document.score": "0.8",
            },
            t0 + 1_000_000,
            t0 + 50_000_000,
        ),
        _oi_span(
            trace,
            "a000000000000003",
            "a000000000000001",
            "lookup_fare",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "lookup_fare",
                "input.value": '{"fare": "light"}',
                "output.value": '{"bags": 1}',
            },
            t0 + 60_000_000,
            t0 + 80_000_000,
        ),
        _oi_span(
            trace,
            "a000000000000004",
            "a000000000000001",
            "llm",
            {
                "openinference.span.kind": "LLM",
                "llm.model_name": "claude-x",
                "llm.input_messages.0.message.role": "system",
                "llm.input_messages.0.message.content": "Answer from the context.",
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.content": "What is the baggage allowance?",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": "One cabin bag of 8 kg.",
                "llm.token_count.prompt": 200,
                "llm.token_count.completion": 12,
                "llm.token_count.total": 212,
                "llm.cost.total": "0.0031",
            },
            t0 + 100_000_000,
            t0 + 800_000_000,
        ),
    ]
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": spans}]}]}


def spans_of(request: ExportTraceServiceRequest) -> Iterator[Span]:
    """Every span of a request."""
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            yield from scope.spans


def unsourced(case: Any) -> Any:
    """The test case without the trace file's sha256 (which differs between encodings)."""
    import msgspec

    metadata = {k: v for k, v in case.metadata.items() if k != "trace-file-sha256"}
    return msgspec.structs.replace(case, metadata=metadata)
