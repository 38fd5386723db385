"""Reading trace files: :func:`read` (test cases) and :func:`check` (what cannot be
evaluated). The format is found from the file's first bytes: OTLP JSON (one request per file
or per line) or OTLP protobuf (one request, or a length-prefixed stream of them)."""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evalmark._files.digest import file_sha256
from evalmark.errors import Problem, TraceError
from evalmark.samples._case import TestCase
from evalmark.traces._fast import assemble_spans, decode_request
from evalmark.traces._otlp_json import json_spans
from evalmark.traces._otlp_proto import is_protobuf, proto_spans
from evalmark.traces._problem import TraceProblem
from evalmark.traces._stream import DEFAULT_WINDOW, group_traces

__all__ = ["check", "read", "read_traces", "trace_file_sha256"]

_BUFFER = 1 << 20


def _batches(path: Path, fast: bool = False) -> Iterator[list[Any]]:
    """The spans of each request of the file: ``Span``s, or with ``fast`` the fast path's
    ``RawSpan``s where it reads the request (see :mod:`evalmark.traces._fast`)."""
    try:
        # A batching exporter writes lines of hundreds of kilobytes: with the default 8 KiB
        # buffer, reading each line copies it piece by piece (twice the cost of a 1 MiB one).
        stream = io.BufferedReader(io.FileIO(path, "rb"), _BUFFER)
    except OSError as exc:
        raise TraceError(
            [Problem(f"cannot open the trace file: {exc.strerror}", path=str(path))]
        ) from None
    with stream:
        head = stream.peek(64)[:64]
        if is_protobuf(head):
            for _, spans in proto_spans(path, stream):
                yield spans
            return
        for _, found in json_spans(path, stream, decode_request if fast else None):
            yield found


def trace_file_sha256(path: str | os.PathLike[str]) -> str | None:
    """The sha256 of a trace file (read in chunks), ``None`` for a pipe or device, which can
    be read only once."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return file_sha256(path)
    except OSError as exc:
        raise TraceError(
            [Problem(f"cannot read the trace file: {exc.strerror}", path=os.fspath(path))]
        ) from None


def read_traces(
    path: str | os.PathLike[str],
    *,
    match: str | None = None,
    window: int = DEFAULT_WINDOW,
    hashed: bool = True,
    source: str | None = None,
) -> Iterator[tuple[TestCase | None, list[TraceProblem]]]:
    """Every trace of the file as ``(test case, problems)``, streaming (see :func:`read`);
    with ``hashed``, each case's metadata names the file's sha256 (``trace-file-sha256``:
    ``source`` when the caller hashed the file already)."""
    if window < 1:
        raise ValueError(f"window must be at least 1 span, got {window}")
    if hashed and source is None:
        source = trace_file_sha256(path)
    for spans in group_traces(_batches(Path(path), fast=True), window):
        yield assemble_spans(spans, match, source)


def read(
    path: str | os.PathLike[str],
    *,
    match: str | None = None,
    problems: list[TraceProblem] | None = None,
    window: int = DEFAULT_WINDOW,
) -> Iterator[TestCase]:
    """The traces of an OTLP trace file (JSON or protobuf), each as a ``TestCase``, streaming.

    ``match`` names the span attribute (e.g. ``session.id``) whose value names each case, to
    pair it with a sample of that name (default: the trace id). A trace that cannot be
    evaluated (no GenAI span, a broken parent chain, a tool call without a result, no content)
    raises ``TraceError``, unless a ``problems`` list is given: its problems are then appended
    there and the trace left out. ``window`` is how many spans a trace may lie apart in the file
    (memory holds at most the traces touched within it). Each case's
    ``metadata["trace-file-sha256"]`` is the file's sha256 (the provenance of its verdicts).
    """
    for case, found in read_traces(path, match=match, window=window):
        if found:
            if problems is None:
                first = found[0]
                raise TraceError(
                    [
                        Problem(
                            f"{first}; run `evalmark traces check {os.fspath(path)}` for every "
                            "problem of the file, or pass problems=[] to collect them",
                            path=os.fspath(path),
                        )
                    ]
                )
            problems.extend(found)
        elif case is not None:
            yield case


def check(
    path: str | os.PathLike[str], *, match: str | None = None, window: int = DEFAULT_WINDOW
) -> tuple[int, list[TraceProblem]]:
    """``(traces read, problems)``: every reason a trace of the file cannot be evaluated."""
    count = 0
    problems: list[TraceProblem] = []
    for _, found in read_traces(path, match=match, window=window, hashed=False):
        count += 1
        problems.extend(found)
    return count, problems
