"""What cannot be evaluated is said, by trace id and reason: ``evalmark.traces.check``,
``read`` without a problems list, and ``evalmark traces check``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import trace_producers as tp
from evalmark.cli import main
from evalmark.errors import TraceError
from evalmark.traces import check, read


def _no_genai(tracer: Any) -> None:
    with tracer.start_as_current_span("GET /health") as span:
        span.set_attribute("http.request.method", "GET")


def _silent_agent(tracer: Any) -> None:
    """Instrumented, but with message content capture off."""
    with tracer.start_as_current_span("invoke_agent quiet") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent", "session.id": "quiet"})
        with tracer.start_as_current_span("chat gpt-4o") as chat:
            chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 9})


@pytest.fixture
def mixed(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A file with one good trace and one of each problem; the trace id of each."""
    good = tp.agent_spans(["good"])
    no_result = tp.agent_spans(["no-result"], with_results=False)
    broken = tp.agent_spans(["broken"])
    broken = [s for s in broken if s.name != "invoke_agent booker"]  # lost in export
    spans = good + no_result + broken + tp.record(_no_genai) + tp.record(_silent_agent)
    ids = {}
    for span in spans:
        session = (span.attributes or {}).get("session.id")
        trace = format(span.get_span_context().trace_id, "032x")
        ids.setdefault(str(session) if session else span.name, trace)
    path = tp.write_json_lines(tmp_path / "mixed.jsonl", [tp.encode(spans)])
    return path, ids


def test_check_names_every_trace_that_cannot_be_evaluated(
    mixed: tuple[Path, dict[str, str]],
) -> None:
    path, ids = mixed
    count, problems = check(path, match="session.id")
    assert count == 5
    found = {(p.trace_id, p.reason) for p in problems}
    assert found == {
        (ids["no-result"], "tool-call-without-result"),
        (ids["broken"], "broken-parent-chain"),
        (ids["GET /health"], "no-genai-spans"),
        (ids["quiet"], "no-content"),
    }
    by_reason = {p.reason: p for p in problems}
    assert by_reason["tool-call-without-result"].name == "no-result"
    assert "search_flights" in by_reason["tool-call-without-result"].message
    assert "is not in the trace" in by_reason["broken-parent-chain"].message
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in by_reason["no-content"].message


def test_read_raises_on_a_trace_it_cannot_evaluate_unless_given_a_list(
    mixed: tuple[Path, dict[str, str]],
) -> None:
    path, _ = mixed
    with pytest.raises(TraceError, match="evalmark traces check"):
        list(read(path, match="session.id"))
    problems: list[Any] = []
    assert [c.name for c in read(path, match="session.id", problems=problems)] == ["good"]
    assert len(problems) == 4


def test_the_command_lists_problems_and_exits_1(
    mixed: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids = mixed
    assert main(["traces", "check", str(path), "--match", "session.id"]) == 1
    out = capsys.readouterr().out
    assert f"trace {ids['GET /health']}: no-genai-spans:" in out
    assert f"trace {ids['no-result']} (no-result): tool-call-without-result:" in out
    assert out.rstrip().endswith("5 traces, 1 can be evaluated, 4 cannot")
    assert main(["traces", "check", str(path), "--json"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["reason"] for r in rows} == {
        "tool-call-without-result",
        "broken-parent-chain",
        "no-genai-spans",
        "no-content",
    }


def test_a_clean_file_exits_0_and_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tp.write_json_lines(tmp_path / "ok.jsonl", [tp.encode(tp.agent_spans())])
    assert main(["traces", "check", str(path)]) == 0
    assert "1 traces, 1 can be evaluated, 0 cannot" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n{not json\n", encoding="utf-8")
    assert main(["traces", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:2:" in err
    assert main(["traces", "check", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot open the trace file" in capsys.readouterr().err


def test_a_span_naming_itself_as_parent_is_read_not_looped_on(tmp_path: Path) -> None:
    """A tool (or agent) span whose parent id is its own id once sent the agent tree's walk up
    the parents round forever; it is a root, and its missing result is reported."""
    trace, span = "5b8efff798038103d269b633813fc60c", "051581bf3cb55c13"
    tool = {
        "traceId": trace,
        "spanId": span,
        "parentSpanId": span,
        "name": "execute_tool lookup",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}},
        ],
    }
    path = tmp_path / "self.jsonl"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [tool]}]}]}) + "\n")
    count, problems = check(path)
    assert count == 1
    assert [(p.trace_id, p.reason, p.span_id) for p in problems] == [
        (trace, "tool-call-without-result", span)
    ]


def test_spans_that_only_parent_each_other_are_a_broken_chain(tmp_path: Path) -> None:
    """Two spans naming each other as parent leave no root to walk from; naming the trace then
    raised a bare IndexError."""
    trace, first, second = "5b8efff798038103d269b633813fc60c", "051581bf3cb55c13", "a1" * 8

    def span(span_id: str, parent: str) -> dict[str, Any]:
        return {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "name": "chat"}

    path = tmp_path / "cycle.jsonl"
    request = {
        "resourceSpans": [{"scopeSpans": [{"spans": [span(first, second), span(second, first)]}]}]
    }
    path.write_text(json.dumps(request) + "\n")
    count, problems = check(path)
    assert count == 1
    assert [(p.trace_id, p.name, p.reason) for p in problems] == [
        (trace, trace, "broken-parent-chain")
    ]
    assert "form a cycle" in problems[0].message
