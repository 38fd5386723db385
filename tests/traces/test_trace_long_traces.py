"""Traces of up to 40 spans on the fast path (the other fast-path tests draw at most seven):
nested agents, tools, a repeated span id and a broken parent chain read as the Python path
reads them, and a clean long trace read by the fast path itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trace_fast_path import _python_path, _request, _tmp_file

from budget import examples
from evalmark.traces import _fast
from evalmark.traces._read import read_traces

TRACE = "0123456789abcdef0123456789abcdef"
OPERATIONS = ["invoke_agent", "execute_tool", "chat", None]


def _span(k: int, parent: str, operation: str | None, start: int) -> dict[str, Any]:
    attrs: dict[str, str] = {"http.route": f"/r{k}"}
    if operation is not None:
        attrs = {"gen_ai.operation.name": operation}
    if operation == "invoke_agent":
        attrs["gen_ai.agent.name"] = f"agent {k}"
    elif operation == "execute_tool":
        attrs["gen_ai.tool.name"] = f"tool{k % 3}"
        attrs["gen_ai.tool.call.result"] = "ok"
    elif operation == "chat":
        said = [{"role": "user", "parts": [{"type": "text", "content": f"q{k}"}]}]
        attrs["gen_ai.input.messages"] = json.dumps(said)
        answer = [{"role": "assistant", "parts": [{"type": "text", "content": f"a{k}"}]}]
        attrs["gen_ai.output.messages"] = json.dumps(answer)
    return {
        "traceId": TRACE,
        "spanId": f"{k + 1:016x}",
        "parentSpanId": parent,
        "name": f"span {k}",
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 10),
        "attributes": [{"key": key, "value": {"stringValue": v}} for key, v in attrs.items()],
    }


@st.composite
def long_trace(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One tree of 1 to 40 spans (each under an earlier one), in any order; sometimes with a
    span id repeated or a parent that is not in the trace."""
    count = draw(st.integers(1, 40))
    spans = [_span(0, "", "invoke_agent", 0)]
    for k in range(1, count):
        parent = spans[draw(st.integers(0, k - 1))]["spanId"]
        spans.append(_span(k, parent, draw(st.sampled_from(OPERATIONS)), draw(st.integers(0, 9))))
    flaw = draw(st.sampled_from([None, None, "repeated", "orphan"]))
    if flaw == "repeated" and count > 1:
        spans[-1]["spanId"] = spans[draw(st.integers(0, count - 2))]["spanId"]
    elif flaw == "orphan" and count > 1:
        spans[-1]["parentSpanId"] = "ffffffffffffffff"
    return draw(st.permutations(spans))


@settings(max_examples=examples(150), deadline=None)
@given(long_trace())
def test_long_traces_read_on_the_fast_path_as_on_the_python_path(spans: list[Any]) -> None:
    with _tmp_file(_request(spans, "svc") + "\n") as path:
        fast = list(read_traces(path, hashed=False))
        assert fast == _python_path(path, None)


@pytest.mark.parametrize("count", [15, 16, 40])
def test_a_clean_long_trace_never_reaches_the_python_assembler(
    count: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans = [_span(0, "", "invoke_agent", 0)]
    for k in range(1, count):  # agents in a chain, each with a tool and a model call
        parent = spans[k - 1 - (k - 1) % 3]["spanId"]
        spans.append(_span(k, parent, ["invoke_agent", "execute_tool", "chat"][k % 3], k))
    path = tmp_path / "traces.jsonl"
    path.write_text(_request(spans[::-1], "svc") + "\n", encoding="utf-8")
    want = _python_path(path, None)

    def refused(*_: object) -> None:
        raise AssertionError("the Python assembler was used")

    monkeypatch.setattr(_fast, "assemble", refused)
    got = list(read_traces(path, hashed=False))
    assert got == want
    case, problems = got[0]
    assert problems == [] and case is not None
    assert len(case.tool_calls) == count // 3
