"""The trace reader's fast path builds its test cases without the public constructors' checks
(``evalmark.samples._case._trusted_*``): what it builds equals, field for field and in its
JSON form, what ``TestCase(...)``, ``ToolCall(...)`` and ``TokenUsage(...)`` build of the same
values, and passes their checks."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trace_fast_path import _agent_run, _request, _tmp_file, clean_trace

from budget import examples
from evalmark.samples._case import (
    _BLANK_CALL,
    _BLANK_CASE,
    ReasoningStep,
    TestCase,
    TokenUsage,
    ToolCall,
    _trusted_case,
    _trusted_tool_call,
    _trusted_usage,
)
from evalmark.traces._read import read_traces


def _public(case: TestCase) -> TestCase:
    """The same case built again through the public, checking constructors."""

    def call(c: ToolCall) -> ToolCall:
        return ToolCall(c.name, c.arguments, c.result, c.duration_ms, c.id)

    usage = case.token_usage
    return TestCase(
        case.input,
        case.actual_output,
        tool_calls=tuple(call(c) for c in case.tool_calls),
        reasoning_trace=tuple(
            ReasoningStep(s.type, s.content, None if s.tool_call is None else call(s.tool_call))
            for s in case.reasoning_trace
        ),
        latency_ms=case.latency_ms,
        token_usage=None if usage is None else TokenUsage(usage.input, usage.output),
        metadata=case.metadata,
        name=case.name,
    )


def _same(built: Any, public: Any) -> None:
    assert built == public
    assert msgspec.json.encode(built) == msgspec.json.encode(public)
    assert msgspec.json.decode(msgspec.json.encode(built), type=type(public)) == public


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(clean_trace(), min_size=1, max_size=3))
def test_the_fast_paths_cases_equal_the_publicly_built_ones(traces: list[Any]) -> None:
    ids = [f"{k + 1:032x}" for k in range(len(traces))]
    spans = [dict(s, traceId=t) for t, trace in zip(ids, traces, strict=True) for s in trace]
    with _tmp_file(_request(spans, "agent") + "\n") as path:
        for case, _ in read_traces(path, hashed=False):
            if case is not None:
                _same(case, _public(case))


def test_an_agents_runs_are_built_as_the_public_constructors_build_them() -> None:
    spans = [s for n in range(3) for s in _agent_run(n)]
    with _tmp_file(_request(spans, "agent") + "\n") as path:
        cases = [case for case, _ in read_traces(path, match="session.id")]
    assert len(cases) == 3
    for case in cases:
        assert case is not None and case.tool_calls and case.token_usage is not None
        _same(case, _public(case))


TEXT = st.text(max_size=5)
DURATION = st.none() | st.floats(0, 1e9, allow_nan=False, allow_infinity=False)
ARGS = st.dictionaries(TEXT, st.integers() | TEXT | st.none(), max_size=3)


@given(
    st.text(min_size=1, max_size=5),
    ARGS,
    st.none() | TEXT | ARGS,
    DURATION,
    st.none() | TEXT,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.none() | TEXT,
)
def test_the_trusted_builders_equal_the_public_constructors(
    name: str,
    arguments: dict[str, Any],
    result: Any,
    duration: float | None,
    call_id: str | None,
    tokens_in: int,
    tokens_out: int,
    case_name: str | None,
) -> None:
    call = _trusted_tool_call(name, arguments, result, duration, call_id)
    _same(call, ToolCall(name, arguments, result, duration, call_id))
    usage = _trusted_usage(tokens_in, tokens_out, tokens_in + tokens_out)
    _same(usage, TokenUsage(tokens_in, tokens_out))
    step = ReasoningStep("action", name, call)
    metadata = {"trace-id": name}
    case = _trusted_case("q", "a", (call,), (step,), duration, usage, metadata, case_name)
    public = TestCase(
        "q",
        "a",
        tool_calls=(call,),
        reasoning_trace=(step,),
        latency_ms=duration,
        token_usage=usage,
        metadata=metadata,
        name=case_name,
    )
    _same(case, public)
    empty = _trusted_case("q", "a", (), (), None, None, {}, None)
    _same(empty, TestCase("q", "a"))


def test_trusted_values_share_nothing_mutable_with_the_blanks() -> None:
    case = _trusted_case("q", "a", (), (), None, None, {}, None)
    case.metadata["k"] = 1
    call = _trusted_tool_call("t", {}, None, None, None)
    call.arguments["k"] = 1
    assert _BLANK_CASE.metadata == {} and _BLANK_CALL.arguments == {}
    assert _trusted_case("q", "a", (), (), None, None, {}, None).metadata == {}
