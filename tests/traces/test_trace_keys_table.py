"""The attribute keys the trace reader understands are spelled once, in
``evalmark.traces._keys``: the Rust fast path reads the table it is handed on import, so a key
added there changes what the fast path does too, and both paths keep the same attributes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_trace_fast_path import _agent_run, _request, _tmp_file

from evalmark.metrics._native import core
from evalmark.samples._case import _TRUSTED_BLANKS
from evalmark.traces._keys import KNOWN_KEYS, KNOWN_PREFIXES
from evalmark.traces._read import _batches
from evalmark.traces._stream import group_traces
from evalmark.traces._values import encode, text_of


def _setup(keys: frozenset[str]) -> None:
    core.trace_setup(sorted(keys), list(KNOWN_PREFIXES), _TRUSTED_BLANKS, encode, text_of)


@pytest.fixture
def restored() -> Iterator[None]:
    yield
    _setup(KNOWN_KEYS)


def test_the_fast_path_reads_the_key_table_it_is_handed(restored: None) -> None:
    spans = _agent_run(0)
    spans[0]["attributes"].append({"key": "gen_ai.request.model", "value": {"stringValue": "m"}})
    with _tmp_file(_request(spans, "agent") + "\n") as path:
        (trace,) = list(group_traces(_batches(path, fast=True)))
    built = core.assemble_trace(trace)
    assert built is not None  # an attribute the table does not name: kept in the metadata
    kept = [s.get("attributes", {}) for s in built[3].metadata["spans"]]
    assert {"gen_ai.request.model": "m"} in kept
    _setup(KNOWN_KEYS | {"gen_ai.request.model"})
    # now a key the reader understands and the fast path does not read: the Python path's
    assert core.assemble_trace(trace) is None
