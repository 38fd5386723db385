"""Spans grouped into traces as a file streams by, in bounded memory.

A trace is handed on once ``window`` spans of the file have gone by without one of its own: a
batching exporter writes the spans of one trace close together (children end, and are
exported, before their parents), so a trace idle that long is done. Memory then holds only the
traces touched within the last ``window`` spans, whatever the file's size. Spans of one trace
further apart than that come out as two traces; the reader then reports the later part's
broken parent chain (:mod:`evalmark.traces._assemble`), never merges it silently.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator

from evalmark.traces._span import Span

__all__ = ["DEFAULT_WINDOW", "group_traces"]

DEFAULT_WINDOW = 20_000


def group_traces(
    batches: Iterable[list[Span]], window: int = DEFAULT_WINDOW
) -> Iterator[list[Span]]:
    """The spans of each trace, in file order, traces in the order they fall idle (then, at the
    end of the file, in the order they were last touched)."""
    # Ordered by last touch. An OrderedDict finds its oldest entry at once; a dict emptied
    # from the front scans past every slot it freed there until it is resized.
    open_traces: OrderedDict[str, list[Span]] = OrderedDict()
    last_seen: dict[str, int] = {}
    count = 0
    for spans in batches:
        previous: str | None = None  # the trace of the span before, last in open_traces
        group: list[Span] = []
        for span in spans:
            count += 1
            trace_id = span.trace_id
            if trace_id != previous:  # a run of one trace's spans moves it to the end once
                found = open_traces.get(trace_id)
                if found is None:
                    group = open_traces[trace_id] = []
                else:
                    group = found
                    open_traces.move_to_end(trace_id)  # in order of last touch
                previous = trace_id
            group.append(span)
            last_seen[trace_id] = count
        while open_traces:
            oldest = next(iter(open_traces))
            if count - last_seen[oldest] < window:
                break
            del last_seen[oldest]
            yield open_traces.popitem(last=False)[1]
    yield from open_traces.values()
