"""The fast path of the OTLP JSON reader: requests decoded and traces assembled in Rust
(``evalmark._core.otlp_json_spans`` / ``assemble_trace``), for the forms most agents write
(the current GenAI conventions: agent, chat and tool spans, messages as ``{role, parts}``
attributes). Rust builds the test case itself, from copies of blank values
(``evalmark.samples._case._TRUSTED_BLANKS``).

Whatever the fast path does not read exactly as the Python path does (OpenInference, message
events, retrieval, base64 ids, a broken parent chain, a value of an unexpected type...) it
hands back: a request to :func:`~evalmark.traces._otlp_json.json_spans`'s decoder, a trace to
:func:`~evalmark.traces._assemble.assemble`, so both paths give the same test cases, problems
and errors (with their file and line).

On import, the Rust side is handed what it must not spell again: the table of attribute keys
the reader understands (:mod:`evalmark.traces._keys`), the blank values, and ``text_of`` with
its encoder.
"""

from __future__ import annotations

from typing import Any

from evalmark.metrics._native import core as _core
from evalmark.samples._case import _TRUSTED_BLANKS, TestCase
from evalmark.traces._assemble import assemble
from evalmark.traces._keys import KNOWN_KEYS, KNOWN_PREFIXES
from evalmark.traces._problem import TraceProblem
from evalmark.traces._span import Span
from evalmark.traces._values import encode, text_of

__all__ = ["assemble_spans", "decode_request"]

decode_request = _core.otlp_json_spans  # one request's spans, or None for the Python decoder
_core.trace_setup(sorted(KNOWN_KEYS), list(KNOWN_PREFIXES), _TRUSTED_BLANKS, encode, text_of)


def _span(span: Span | _core.RawSpan) -> Span:
    return Span(*span.fields()) if isinstance(span, _core.RawSpan) else span


def assemble_spans(
    spans: list[Any], match: str | None = None, source: str | None = None
) -> tuple[TestCase | None, list[TraceProblem]]:
    """One trace as :func:`~evalmark.traces._assemble.assemble` gives it: by the fast path
    when every span came from it and the trace is in a form it reads, else by the Python
    assembler."""
    fast = _core.assemble_trace(spans, match, source) if type(spans[0]) is _core.RawSpan else None
    if fast is None:
        return assemble([_span(s) for s in spans], match, source)
    trace_id, name, found, case = fast
    if not found:
        return case, []
    return case, [TraceProblem(trace_id, name, r, m, s) for r, m, s in found]  # type: ignore[arg-type]
