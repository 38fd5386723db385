"""The trace reader's fast path builds its test cases in Rust without the public constructors'
checks (copies of ``evalmark.samples._case._TRUSTED_BLANKS`` with their fields set): what it
builds equals, field for field and in its JSON form, what ``TestCase(...)``, ``ToolCall(...)``,
``ReasoningStep(...)`` and ``TokenUsage(...)`` build of the same values, and passes their
checks."""

from __future__ import annotations

import gc
import json
from typing import Any

import msgspec
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_trace_fast_path import _agent_run, _request, _tmp_file, clean_trace

from budget import examples
from evalmark.samples._case import (
    _TRUSTED_BLANKS,
    ReasoningStep,
    TestCase,
    TokenUsage,
    ToolCall,
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


def _strict_json(text: str) -> bool:
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        json.loads(text, parse_constant=refuse)
    except ValueError:
        return False
    return True


def _tracked(case: TestCase) -> list[bool]:
    """Whether the garbage collector tracks the case and each of its parts, in order."""
    parts: list[Any] = [case, case.token_usage, *case.tool_calls]
    for step in case.reasoning_trace:
        parts += [step, step.tool_call]
    return [gc.is_tracked(p) for p in parts if p is not None]


def _same(built: Any, public: Any) -> None:
    assert built == public
    # A part holding a list, dict or struct must be tracked, as the constructors leave it:
    # else a reference cycle through it is never collected.
    assert _tracked(built) == _tracked(public)
    assert msgspec.json.encode(built) == msgspec.json.encode(public)
    assert msgspec.json.decode(msgspec.json.encode(built), type=type(public)) == public


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(clean_trace(), min_size=1, max_size=3))
def test_the_fast_paths_cases_equal_the_publicly_built_ones(traces: list[Any]) -> None:
    ids = [f"{k + 1:032x}" for k in range(len(traces))]
    spans = [dict(s, traceId=t) for t, trace in zip(ids, traces, strict=True) for s in trace]
    request = _request(spans, "agent")
    assume(_strict_json(request))  # an infinite double is no JSON: the file would be refused
    with _tmp_file(request + "\n") as path:
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


def test_fast_path_values_share_nothing_mutable_with_the_blanks() -> None:
    spans = [s for n in range(2) for s in _agent_run(n)]
    with _tmp_file(_request(spans, "agent") + "\n") as path:
        cases = [case for case, _ in read_traces(path, match="session.id")]
    first, second = cases
    assert first is not None and second is not None
    assert first.metadata is not second.metadata
    assert first.tool_calls[0].arguments is not second.tool_calls[0].arguments
    first.metadata["k"] = 1
    first.tool_calls[0].arguments["k"] = 1
    blank_case, blank_call, blank_step, blank_usage = _TRUSTED_BLANKS
    assert blank_case == TestCase("", "") and blank_case.metadata == {}
    assert blank_call == ToolCall("-") and blank_call.arguments == {}
    assert blank_step == ReasoningStep("thought", "")
    assert blank_usage == TokenUsage(0, 0)
