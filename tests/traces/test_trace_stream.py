"""Spans are grouped into traces as the file streams by: a trace is handed on once ``window``
spans have passed without one of its own, so memory holds only the recent traces."""

from __future__ import annotations

from collections.abc import Iterator

from evalmark.traces._span import Span
from evalmark.traces._stream import group_traces


def _span(trace: int, number: int) -> Span:
    parent = "" if number == 0 else f"{trace:08x}{0:08x}"
    return Span(
        f"{trace:032x}", f"{trace:08x}{number:08x}", parent, "s", 1, 0, 1, {}, (), 0, "", {}
    )


def test_traces_come_out_while_the_file_is_still_being_read() -> None:
    read = []

    def batches() -> Iterator[list[Span]]:
        for trace in range(1_000):
            read.append(trace)
            yield [_span(trace, n) for n in range(3)]

    held = []
    stream = group_traces(batches(), window=10)
    for number, spans in enumerate(stream):
        held.append(len(read) - number)  # traces read but not yet handed on
        assert [s.trace_id for s in spans] == [f"{number:032x}"] * 3
    assert max(held) <= 10 // 3 + 2
    assert len(read) == 1_000


def test_a_trace_touched_again_stays_open() -> None:
    batches = [[_span(1, 0)], [_span(2, 0)], [_span(1, 1)], [_span(3, 0)], [_span(4, 0)]]
    out = [[s.span_id[-1] for s in t] for t in group_traces(iter(batches), window=2)]
    assert out == [["0"], ["0", "1"], ["0"], ["0"]]
