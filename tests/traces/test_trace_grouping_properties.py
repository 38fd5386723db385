"""Properties of grouping and assembling traces for generated agent runs: the spans of a file in
any order (and split over any number of requests) give the same test case per session; the
grouping keeps every span once, in file order, for any window; and a window as wide as the file
gives one group per trace."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

import trace_producers as tp
from budget import examples
from evalmark.traces import read
from evalmark.traces._span import Span
from evalmark.traces._stream import group_traces

SESSIONS = st.lists(
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6),
    min_size=1,
    max_size=3,
    unique=True,
)


def _split(request: ExportTraceServiceRequest, order: list[int], parts: int) -> list[Any]:
    """The spans of ``request`` in ``order``, spread over ``parts`` requests."""
    group = request.resource_spans[0]
    spans = [s for scope in group.scope_spans for s in scope.spans]
    chunks = [order[i::parts] for i in range(parts)]
    out = []
    for chunk in chunks:
        if not chunk:
            continue
        part = ExportTraceServiceRequest()
        resource = part.resource_spans.add()
        resource.resource.CopyFrom(group.resource)
        scope = resource.scope_spans.add()
        scope.spans.extend(spans[i] for i in sorted(chunk, key=order.index))
        out.append(part)
    return out


@settings(max_examples=examples(15), deadline=None)
@given(SESSIONS, st.randoms(use_true_random=False), st.integers(1, 4))
def test_spans_in_any_order_and_any_requests_give_the_same_cases(
    names: list[str], random: Any, parts: int
) -> None:
    request = tp.encode(tp.agent_spans(names))
    count = sum(len(scope.spans) for g in request.resource_spans for scope in g.scope_spans)
    order = list(range(count))
    random.shuffle(order)
    with tempfile.TemporaryDirectory() as folder:
        first = tp.write_json_lines(Path(folder) / "a.jsonl", [request])
        again = tp.write_protobuf(Path(folder) / "b.pb", _split(request, order, parts))
        expected = sorted(read(first, match="session.id"), key=lambda c: c.name or "")
        got = sorted(read(again, match="session.id"), key=lambda c: c.name or "")
    assert [c.name for c in got] == sorted(names)
    # the files differ, so each case's trace-file hash does too: compare the rest
    assert [tp.unsourced(c) for c in got] == [tp.unsourced(c) for c in expected]


def span(trace: str, number: int) -> Span:
    return Span(trace, f"{number:016x}", "", "s", 0, 0, 0, {}, (), 0, "", {})


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.sampled_from(["a" * 32, "b" * 32, "c" * 32]), max_size=40),
    st.integers(1, 50),
    st.integers(1, 7),
)
def test_grouping_keeps_every_span_once_in_file_order_for_any_window(
    traces: list[str], window: int, batch: int
) -> None:
    spans = [span(t, i) for i, t in enumerate(traces)]
    batches = [spans[i : i + batch] for i in range(0, len(spans), batch)]
    groups = list(group_traces(batches, window))
    assert sorted(s.span_id for g in groups for s in g) == sorted(s.span_id for s in spans)
    for group in groups:
        assert len({s.trace_id for s in group}) == 1
        assert group == sorted(group, key=lambda s: int(s.span_id, 16))
    if window >= len(spans):
        assert len(groups) == len(set(traces))
