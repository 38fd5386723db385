"""Reading trace files written by real producers (the OpenTelemetry SDK, encoded as OTLP JSON
and protobuf) and by hand (OpenInference): what each trace becomes as a TestCase."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import trace_producers as tp
from evalmark.errors import TraceError
from evalmark.traces import read

QUESTION = "Book me the cheapest flight from Oslo to Rome on 3 May"
ANSWER = "Booked SK 4711 on 3 May for 129 EUR; the confirmation e-mail could not be sent."


@pytest.fixture(scope="module")
def request_() -> Any:
    return tp.encode(tp.agent_spans(["s-1", "s-2"]))


def _files(tmp: Path, request: Any) -> dict[str, Path]:
    return {
        "json lines": tp.write_json_lines(tmp / "a.jsonl", [request]),
        "protobuf, framed": tp.write_protobuf(tmp / "a.pb", [request]),
        "protobuf, bare": tp.write_protobuf(tmp / "b.pb", [request], framed=False),
    }


def test_the_sdk_agent_becomes_a_test_case_in_every_encoding(tmp_path: Path, request_: Any) -> None:
    seen = []
    for kind, path in _files(tmp_path, request_).items():
        cases = list(read(path, match="session.id"))
        assert [c.name for c in cases] == ["s-1", "s-2"], kind
        assert (
            cases[0].metadata["trace-file-sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        )
        seen.append(tp.unsourced(cases[0]))
    assert seen[0] == seen[1] == seen[2]
    case = seen[0]
    assert case.input == QUESTION
    assert case.actual_output == ANSWER
    names = [c.name for c in case.tool_calls]
    assert names == ["search_flights", "book_flight", "send_email"]
    search, book, email = case.tool_calls
    assert search.arguments == {"from": "OSL", "to": "FCO", "date": "2026-05-03"}
    assert search.result == [{"flight": "SK 4711", "price": 129}]
    assert search.id == "c1" and search.duration_ms is not None and search.duration_ms >= 0
    assert book.result == {"booking": "PNR42"}
    # the failed call: its result is the recorded exception
    assert email.result == {"error": "ConnectionError: SMTP server refused the connection"}
    assert case.retrieval_context == (
        "Economy Light fares are not refundable.",
        "Changes cost 50 EUR before departure.",
    )
    assert case.token_usage is not None
    assert (case.token_usage.input, case.token_usage.output) == (500, 75)
    assert case.latency_ms is not None and case.latency_ms > 0


def test_nested_agents_become_nested_steps(tmp_path: Path, request_: Any) -> None:
    case = next(read(tp.write_json_lines(tmp_path / "a.jsonl", [request_])))
    agents = case.metadata["agents"]
    assert agents["name"] == "planner" and agents["tools"] == ["search_flights"]
    assert [(a["name"], a["tools"]) for a in agents["agents"]] == [
        ("booker", ["book_flight", "send_email"])
    ]
    steps = [(s.type, s.content.split("(")[0]) for s in case.reasoning_trace]
    assert steps == [
        ("action", "search_flights"),
        ("observation", '[{"flight":"SK 4711","price":129}]'),
        ("action", "retrieve: SK 4711 fare rules"),
        ("observation", "2 documents retrieved"),
        ("action", "invoke agent booker: book SK 4711 on 3 May"),
        ("action", "book_flight"),
        ("observation", '{"booking":"PNR42"}'),
        ("action", "send_email"),
        ("observation", '{"error":"ConnectionError: SMTP server refused the connection"}'),
        ("thought", ANSWER),
    ]
    assert case.reasoning_trace[0].tool_call == case.tool_calls[0]


def test_attributes_it_does_not_know_are_kept_in_metadata(tmp_path: Path, request_: Any) -> None:
    case = next(read(tp.write_json_lines(tmp_path / "a.jsonl", [request_])))
    kept = {entry["name"]: entry for entry in case.metadata["spans"]}
    assert kept["invoke_agent planner"]["attributes"] == {
        "session.id": "s-1",
        "app.build": "2026.05.1",
    }
    assert kept["retrieval fare-rules"]["attributes"] == {"gen_ai.data_source.id": "fare-rules"}
    assert case.metadata["resource"] == {"service.name": "travel-agent"}
    assert case.metadata["trace-id"] == format(next(tp.spans_of(request_)).trace_id.hex(), "s")


def test_a_span_of_an_unknown_kind_is_kept_whole(tmp_path: Path) -> None:
    def runs(tracer: Any) -> None:
        with tracer.start_as_current_span("POST /book") as http:
            http.set_attribute("http.request.method", "POST")
            tp.record_agent_run(tracer, "s-9")

    path = tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.record(runs))])
    case = next(read(path, match="session.id"))
    assert case.name == "s-9" and case.input == QUESTION
    other = [e for e in case.metadata["spans"] if e["kind"] == "other"]
    assert other == [
        {
            "span-id": case.metadata["root-span-id"],
            "name": "POST /book",
            "kind": "other",
            "attributes": {"http.request.method": "POST"},
        }
    ]


def test_base64_ids_and_enum_names_of_a_plain_protobuf_printer_are_read(
    tmp_path: Path, request_: Any
) -> None:
    from google.protobuf.json_format import MessageToDict

    hexed = next(read(tp.write_json_lines(tmp_path / "a.jsonl", [request_])))
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(MessageToDict(request_), indent=2), encoding="utf-8")
    assert tp.unsourced(next(read(plain))) == tp.unsourced(hexed)  # one indented request


def test_the_previous_event_form_of_messages(tmp_path: Path) -> None:
    def runs(tracer: Any) -> None:
        with tracer.start_as_current_span("chat gpt-4") as chat:
            chat.set_attributes(
                {
                    "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4",
                    "gen_ai.usage.prompt_tokens": 12,
                    "gen_ai.usage.completion_tokens": 5,
                }
            )
            chat.add_event("gen_ai.system.message", {"content": "Be brief."})
            chat.add_event("gen_ai.user.message", {"content": "Capital of Italy?"})
            chat.add_event(
                "gen_ai.choice",
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": json.dumps({"role": "assistant", "content": "Rome."}),
                },
            )

    case = next(read(tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.record(runs))])))
    assert (case.input, case.actual_output) == ("Capital of Italy?", "Rome.")
    assert case.token_usage is not None and case.token_usage.total == 17


def test_tool_calls_are_read_from_messages_when_no_tool_span_was_recorded(tmp_path: Path) -> None:
    call = {"type": "tool_call", "id": "t1", "name": "weather", "arguments": {"city": "Rome"}}
    reply = {"type": "tool_call_response", "id": "t1", "response": {"celsius": 21}}

    def runs(tracer: Any) -> None:
        with tracer.start_as_current_span("chat") as first:
            first.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(
                        [
                            {
                                "role": "user",
                                "parts": [{"type": "text", "content": "Weather in Rome?"}],
                            }
                        ]
                    ),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
                }
            )
        with tracer.start_as_current_span("chat") as second:
            second.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps([{"role": "tool", "parts": [reply]}]),
                    "gen_ai.output.messages": json.dumps(
                        [
                            {
                                "role": "assistant",
                                "parts": [{"type": "text", "content": "21 degrees."}],
                            }
                        ]
                    ),
                }
            )

    def both(tracer: Any) -> None:
        with tracer.start_as_current_span("invoke_agent") as agent:
            agent.set_attribute("gen_ai.operation.name", "invoke_agent")
            runs(tracer)

    case = next(read(tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.record(both))])))
    assert (case.input, case.actual_output) == ("Weather in Rome?", "21 degrees.")
    assert [(c.name, c.arguments, c.result) for c in case.tool_calls] == [
        ("weather", {"city": "Rome"}, {"celsius": 21})
    ]


def test_an_openinference_rag_trace(tmp_path: Path) -> None:
    path = tmp_path / "oi.jsonl"
    path.write_text(json.dumps(tp.openinference_request()) + "\n", encoding="utf-8")
    case = next(read(path, match="session.id"))
    assert case.name == "oi-1"
    assert (case.input, case.actual_output) == (
        "What is the baggage allowance?",
        "One cabin bag of 8 kg.",
    )
    assert case.retrieval_context == (
        "Each passenger may bring one cabin bag.",
        "Cabin bags weigh at most 8 kg.",
    )
    assert [(c.name, c.arguments, c.result) for c in case.tool_calls] == [
        ("lookup_fare", {"fare": "light"}, {"bags": 1})
    ]
    assert case.token_usage is not None and case.token_usage.total == 212
    assert case.cost == Decimal("0.0031")
    assert case.latency_ms == 900.0
    kept = {e["name"]: e.get("attributes") for e in case.metadata["spans"]}
    assert kept["rag"] == {"session.id": "oi-1", "metadata": '{"tenant": "acme"}'}
    assert kept["llm"] == {"llm.model_name": "claude-x"}
    assert "retrieve" not in kept  # every attribute of the retriever was understood


def test_reading_is_deterministic_and_streams_traces_in_file_order(tmp_path: Path) -> None:
    sessions = [f"s-{i}" for i in range(6)]
    spans = tp.agent_spans(sessions)
    requests = [tp.encode(spans[i : i + 5]) for i in range(0, len(spans), 5)]
    path = tp.write_json_lines(tmp_path / "a.jsonl", requests)
    first = list(read(path, match="session.id", window=3))
    assert [c.name for c in first] == sessions
    assert first == list(read(path, match="session.id", window=3))


def test_a_trace_split_by_a_small_window_is_reported_not_merged(tmp_path: Path) -> None:
    spans = tp.agent_spans(["a", "b"])
    a, b = spans[:9], spans[9:]
    interleaved = [tp.encode(a[:4]), tp.encode(b), tp.encode(a[4:])]
    path = tp.write_json_lines(tmp_path / "a.jsonl", interleaved)
    problems: list[Any] = []
    # traces come out as they fall idle: b is done before a's last spans arrive
    assert [c.name for c in read(path, match="session.id", problems=problems)] == ["b", "a"]
    assert problems == []
    cases = list(read(path, match="session.id", problems=problems, window=2))
    assert "b" in [c.name for c in cases]
    assert {p.reason for p in problems} == {"broken-parent-chain"}
    assert "raise the reader's window" in problems[0].message


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"resourceSpans": []}\n{"resourceSpans": [}\n', ":2:"),
        (b'{"resourceSpans": "no"}\n', ":1:"),
        (b"[1, 2", "not an OTLP JSON trace request"),
    ],
)
def test_a_file_that_is_not_otlp_names_the_file_and_line(
    tmp_path: Path, content: bytes, where: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TraceError) as caught:
        list(read(path))
    assert str(path) in str(caught.value) and where in str(caught.value)


def test_a_cut_off_protobuf_stream_says_so(tmp_path: Path, request_: Any) -> None:
    path = tp.write_protobuf(tmp_path / "a.pb", [request_])
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(TraceError, match="ends 10 bytes early"):
        list(read(path))


def test_every_agent_check_reads_a_trace_case(tmp_path: Path) -> None:
    from evalmark import Scorer
    from evalmark.gates import require_budget
    from evalmark.strategies import Faithfulness, PlanAdherence, TrajectoryMatch

    path = tmp_path / "oi.jsonl"
    path.write_text(json.dumps(tp.openinference_request()) + "\n", encoding="utf-8")
    path2 = tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.agent_spans())])
    rag, agent = next(read(path)), next(read(path2))
    plan = ["search flights", "retrieve fare rules", "book the flight", "send e-mail"]
    report = Scorer().evaluate_test_cases(
        [agent],
        PlanAdherence(plan, min_overlap=0.3, threshold=0.5),
        TrajectoryMatch("subset", arguments="ignore", expected=[{"name": "search_flights"}]),
    )
    assert {k: v.passed for k, v in next(report.rows()).results.items()} == {
        "PlanAdherence": True,
        "TrajectoryMatch(subset)": False,  # book_flight and send_email were not expected
    }
    grounded = Scorer().evaluate_test_cases([rag], Faithfulness(0.5, min_overlap=0.5))
    assert next(grounded.rows()).passed  # "One cabin bag of 8 kg." is in the documents
    require_budget(grounded, tokens=212, cost=0.0031, latency_ms=900)
    with pytest.raises(AssertionError):
        require_budget(grounded, tokens=211)


def test_json_lines_after_a_blank_line_are_not_taken_for_protobuf(
    tmp_path: Path, request_: Any
) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text("\n\n" + tp.otlp_json(request_) + "\n", encoding="utf-8")
    assert [c.name for c in read(path, match="session.id")] == ["s-1", "s-2"]
