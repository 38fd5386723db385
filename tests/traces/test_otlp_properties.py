"""Properties of the OTLP span readers over generated requests: OTLP JSON (hex or base64 ids, one
line or indented) and OTLP protobuf (framed or bare) read back the same spans, equal to the
spans generated (ids, names, kinds, times, every attribute type, events, status, resource); many
requests in one file come back in order; and ``annotate`` writes one linked verdict span per
check and traced case, every one read back."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import example, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

import trace_producers as tp
from budget import examples
from evalmark import Sample, Scorer
from evalmark.strategies import Contains, TrajectoryMatch
from evalmark.traces import annotate, read
from evalmark.traces._read import _batches
from evalmark.traces._span import Event, Span

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
SCALARS = (
    TEXT
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.binary(min_size=1, max_size=6)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
ATTRIBUTES = st.dictionaries(TEXT, VALUES, max_size=4)
NANOS = st.integers(0, 2**63 - 1)


def any_value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, bytes):
        return AnyValue(bytes_value=value)
    out = AnyValue()
    if isinstance(value, list):
        out.array_value.values.extend(any_value(v) for v in value)
        return out
    if isinstance(value, dict):
        out.kvlist_value.values.extend(
            KeyValue(key=k, value=any_value(v)) for k, v in value.items()
        )
        return out
    return AnyValue(string_value=value)


def expected_value(value: Any) -> Any:
    """What a reader gives for a generated attribute value (bytes as lower-case hex)."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list):
        return [expected_value(v) for v in value]
    if isinstance(value, dict):
        return {k: expected_value(v) for k, v in value.items()}
    return value


SPANS = st.fixed_dictionaries(
    {
        "trace": st.binary(min_size=16, max_size=16).filter(any),
        "span": st.binary(min_size=8, max_size=8).filter(any),
        "parent": st.just(b"") | st.binary(min_size=8, max_size=8).filter(any),
        "name": TEXT,
        "kind": st.integers(0, 5),
        "start": NANOS,
        "end": NANOS,
        "attributes": ATTRIBUTES,
        "events": st.lists(st.tuples(TEXT, NANOS, ATTRIBUTES), max_size=2),
        "code": st.integers(0, 2),
        "message": TEXT,
    }
)
ONE: dict[str, Any] = {
    "trace": b"\x01" * 16,
    "span": b"\x02" * 8,
    "parent": b"",
    "name": "",
    "kind": 0,
    "start": 0,
    "end": 0,
    "attributes": {},
    "events": [],
    "code": 0,
    "message": "",
}
REQUESTS = st.tuples(ATTRIBUTES, st.lists(SPANS, min_size=1, max_size=3))


def request_of(drawn: tuple[dict[str, Any], list[dict[str, Any]]]) -> ExportTraceServiceRequest:
    resource, spans = drawn
    request = ExportTraceServiceRequest()
    group = request.resource_spans.add()
    group.resource.attributes.extend(
        KeyValue(key=k, value=any_value(v)) for k, v in resource.items()
    )
    scope = group.scope_spans.add()
    for s in spans:
        out = scope.spans.add()
        out.trace_id, out.span_id, out.parent_span_id = s["trace"], s["span"], s["parent"]
        out.name, out.kind = s["name"], s["kind"]
        out.start_time_unix_nano, out.end_time_unix_nano = s["start"], s["end"]
        out.attributes.extend(
            KeyValue(key=k, value=any_value(v)) for k, v in s["attributes"].items()
        )
        for name, time, attributes in s["events"]:
            event = out.events.add()
            event.name, event.time_unix_nano = name, time
            event.attributes.extend(
                KeyValue(key=k, value=any_value(v)) for k, v in attributes.items()
            )
        out.status.code, out.status.message = s["code"], s["message"]
    return request


def expected_spans(drawn: tuple[dict[str, Any], list[dict[str, Any]]]) -> list[Span]:
    resource, spans = drawn
    return [
        Span(
            s["trace"].hex(),
            s["span"].hex(),
            s["parent"].hex(),
            s["name"],
            s["kind"],
            s["start"],
            s["end"],
            expected_value(s["attributes"]),
            tuple(Event(n, t, expected_value(a)) for n, t, a in s["events"]),
            s["code"],
            s["message"],
            expected_value(resource),
        )
        for s in spans
    ]


def read_spans(path: Path) -> list[Span]:
    return [span for batch in _batches(path) for span in batch]


def encodings(folder: Path, requests: list[ExportTraceServiceRequest]) -> dict[str, Path]:
    files = {
        "json hex ids": tp.write_json_lines(folder / "a.jsonl", requests),
        "protobuf framed": tp.write_protobuf(folder / "a.pb", requests),
    }
    base64 = folder / "b.jsonl"
    base64.write_text("".join(tp.otlp_json(r, hex_ids=False) + "\n" for r in requests), "utf-8")
    files["json base64 ids"] = base64
    if len(requests) == 1:
        files["protobuf bare"] = tp.write_protobuf(folder / "b.pb", requests, framed=False)
        indented = folder / "c.json"
        document = MessageToDict(requests[0], use_integers_for_enums=True)
        indented.write_text(json.dumps(tp._hex_ids(document), indent=2), "utf-8")
        files["json indented"] = indented
    return files


@settings(max_examples=examples(40), deadline=None)
@given(REQUESTS)
@example(({}, [{**ONE, "attributes": {"b": b"\xff\x00"}}]))  # JSON gave base64, protobuf hex
@example(({"": 1}, [{**ONE, "attributes": {"": "x"}}]))  # an empty key was refused in JSON
def test_every_encoding_of_a_request_reads_back_the_spans_generated(
    drawn: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    expected = expected_spans(drawn)
    with tempfile.TemporaryDirectory() as folder:
        for encoding, path in encodings(Path(folder), [request_of(drawn)]).items():
            assert read_spans(path) == expected, encoding


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(REQUESTS, min_size=2, max_size=4))
def test_many_requests_in_one_file_come_back_in_order(
    drawn: list[tuple[dict[str, Any], list[dict[str, Any]]]],
) -> None:
    expected = [span for d in drawn for span in expected_spans(d)]
    with tempfile.TemporaryDirectory() as folder:
        for encoding, path in encodings(Path(folder), [request_of(d) for d in drawn]).items():
            assert read_spans(path) == expected, encoding


SESSIONS = st.lists(
    # a sample's name needs visible text: " " and "\x85" are refused (SampleError)
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8).filter(str.strip),
    min_size=1,
    max_size=3,
    unique=True,
)


@settings(max_examples=examples(15), deadline=None)
@given(SESSIONS, st.data())
def test_annotate_writes_one_linked_verdict_span_per_check_and_traced_case(
    names: list[str], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = tp.write_json_lines(Path(folder) / "t.jsonl", [tp.encode(tp.agent_spans(names))])
        cases = list(read(source, match="session.id"))
        sampled = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
        samples = [Sample(name=n, parameters=["q"], expected_output="Booked") for n in sampled]
        report = Scorer().evaluate_test_cases(
            cases, TrajectoryMatch(), Contains("Booked"), samples=samples or None
        )
        out = Path(folder) / "verdicts.jsonl"
        written = annotate(report, cases, out)
        spans = read_spans(out)
        again = Path(folder) / "again.jsonl"
        annotate(report, list(reversed(cases)), again)
        assert again.read_bytes() == out.read_bytes()
    rows = report.rows()
    assert written == len(spans) == sum(len(row.results) for row in rows)
    by_name = {c.name: c for c in cases}
    for span in spans:
        case = by_name[span.attributes["evalmark.case"]]
        assert span.trace_id == case.metadata["trace-id"]
        assert span.parent_id == case.metadata["span-id"]
        assert span.name == "gen_ai.evaluation.result"
    assert len({s.span_id for s in spans}) == len(spans)


@settings(max_examples=examples(10), deadline=None)
@given(
    st.sampled_from(["", '{"resourceSpans": ', '{"resourceSpans": [{"scopeSpans": ']),
    st.integers(10_000, 200_000),
    st.sampled_from(["[", '{"a": ']),
    st.booleans(),
)
@example("", 100_000, "[", False)  # was a raw RecursionError from the JSON decoder
def test_a_request_nested_too_deeply_is_a_trace_error_naming_the_file(
    prefix: str, depth: int, opener: str, second_line: bool
) -> None:
    from evalmark.errors import TraceError

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deep.jsonl"
        head = '{"resourceSpans": []}\n' if second_line else ""
        path.write_text(head + prefix + opener * depth + "\n", encoding="utf-8")
        with pytest.raises(TraceError) as caught:
            read_spans(path)
    assert str(path) in str(caught.value)
