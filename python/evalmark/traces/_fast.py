"""The fast path of the OTLP JSON reader: requests decoded and traces assembled in Rust
(``evalmark._core.otlp_json_spans`` / ``assemble_trace``), for the forms most agents write
(the current GenAI conventions: agent, chat and tool spans, messages as ``{role, parts}``
attributes). Python then only builds the test case from ready values.

Whatever the fast path does not read exactly as the Python path does (OpenInference, message
events, retrieval, base64 ids, a broken parent chain, a value of an unexpected type...) it
hands back: a request to :func:`~evalmark.traces._otlp_json.json_spans`'s decoder, a trace to
:func:`~evalmark.traces._assemble.assemble`, so both paths give the same test cases, problems
and errors (with their file and line).
"""

from __future__ import annotations

from typing import Any

from evalmark.metrics._native import core as _core
from evalmark.samples._case import (
    ReasoningStep,
    TestCase,
    _trusted_case,
    _trusted_tool_call,
    _trusted_usage,
)
from evalmark.traces._assemble import assemble
from evalmark.traces._problem import TraceProblem
from evalmark.traces._span import Span
from evalmark.traces._values import text_of

__all__ = ["assemble_spans", "decode_request"]

decode_request = _core.otlp_json_spans  # one request's spans, or None for the Python decoder


def _span(span: Span | _core.RawSpan) -> Span:
    return Span(*span.fields()) if isinstance(span, _core.RawSpan) else span


def _case(name: str, built: tuple[Any, ...]) -> TestCase:
    question, answer, calls, steps, latency, usage, metadata = built
    # Built unchecked: the Rust side gives only valid values (names, mappings, durations and
    # token counts): tests/traces/test_trace_trusted_build.py holds the cases built to the
    # public constructors, tests/traces/test_trace_fast_path.py to the Python path.
    tool_calls = [_trusted_tool_call(n, a, r, d, i) for n, a, r, d, i, _ in calls]
    trace: list[ReasoningStep] = []
    for kind, content in steps:
        if kind != "call":
            trace.append(ReasoningStep(kind, content))
            continue
        call = tool_calls[content]
        trace.append(ReasoningStep("action", f"{call.name}({text_of(call.arguments)})", call))
        if calls[content][5]:  # it has a result
            trace.append(ReasoningStep("observation", text_of(call.result)))
    return _trusted_case(
        question,
        answer,
        tuple(tool_calls),
        tuple(trace),
        latency,
        None if usage is None else _trusted_usage(*usage),
        metadata,
        name,
    )


def assemble_spans(
    spans: list[Any], match: str | None = None, source: str | None = None
) -> tuple[TestCase | None, list[TraceProblem]]:
    """One trace as :func:`~evalmark.traces._assemble.assemble` gives it: by the fast path
    when every span came from it and the trace is in a form it reads, else by the Python
    assembler."""
    fast = _core.assemble_trace(spans, match, source) if type(spans[0]) is _core.RawSpan else None
    if fast is None:
        return assemble([_span(s) for s in spans], match, source)
    trace_id, name, found, built = fast
    problems = [TraceProblem(trace_id, name, r, m, s) for r, m, s in found]  # type: ignore[arg-type]
    return (None if built is None else _case(name, built)), problems
