"""The CSV reader's fast path (scoring/_csv_fast.py) reads the same rows, line numbers and ids
as Python's csv module, and hands every record from the first one it is not sure of on to the
csv module, so scores and error messages do not change."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmark.errors import ScoringInputError
from evalmark.metrics import TextColumn
from evalmark.scoring import _csvfile, _jsonl_fast
from evalmark.scoring._chunks import Columns, Needs
from evalmark.scoring._csvfile import CsvReader


def _texts(column: Any) -> list[str]:
    if not isinstance(column, TextColumn):
        return list(column)
    offsets = column.offsets.tolist()
    return [column.data[offsets[i] : offsets[i + 1]].tobytes().decode() for i in range(len(column))]


class _Declines:
    """A fast path that leaves the whole file to the csv module."""

    def __init__(self, *args: Any) -> None:
        self.resume = (0, 0, args[5])

    def __iter__(self) -> Iterator[Any]:
        return iter(())


def _read(path: Path, chunk_size: int) -> tuple[list[Any], str | None, bool]:
    """Every row as (line, expected, actual, id) or its bad-row problem; the error raised, if
    any; whether a chunk came as TextColumns."""
    rows: list[Any] = []
    fast = False
    try:
        reader = CsvReader(path, Columns(), Needs(text=True, vectors=False), chunk_size)
    except ScoringInputError as exc:
        return rows, str(exc), fast
    try:
        for chunk in reader:
            fast = fast or isinstance(chunk.expected, TextColumn)
            ids = chunk.ids if chunk.ids is not None else [None] * chunk.size
            for i, (e, a, found_id) in enumerate(
                zip(_texts(chunk.expected), _texts(chunk.actual), ids, strict=True)
            ):
                bad = chunk.bad.get(i)
                rows.append((chunk.locate(i), bad.problem if bad else (e, a, found_id)))
    except ScoringInputError as exc:
        return rows, str(exc), fast
    finally:
        reader.close()
    return rows, None, fast


_CELL = st.text(st.sampled_from('ab é,"\n\r'), max_size=6)
_RECORD = st.one_of(
    st.lists(_CELL, min_size=3, max_size=3),
    st.lists(_CELL, min_size=2, max_size=2),  # a bad row
    st.just([]),  # a blank line
)


@settings(
    max_examples=80,
    deadline=None,
    # too_slow as well: a list given here replaces the profile's (tests/conftest.py)
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    records=st.lists(_RECORD, max_size=30),
    ending=st.sampled_from(["\n", "\r\n"]),
    tail=st.sampled_from(["", 'x,"y', "a,b\rc,d", '"q"x,1,2']),
    chunk_size=st.integers(1, 7),
    block=st.integers(1, 200),
    with_id=st.booleans(),
)
def test_rows_lines_ids_and_errors_equal_the_csv_module(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    records: list[list[str]],
    ending: str,
    tail: str,
    chunk_size: int,
    block: int,
    with_id: bool,
) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=ending)
    writer.writerow(["actual", "id" if with_id else "other", "expected"])
    for record in records:
        if record:
            writer.writerow(record)
        else:
            out.write(ending)
    path = tmp_path / "pairs.csv"
    path.write_bytes((out.getvalue() + tail).encode("utf-8"))
    monkeypatch.setattr(_jsonl_fast, "BLOCK_BYTES", block)  # blocks end inside records
    got = _read(path, chunk_size)
    monkeypatch.setattr(_csvfile, "CsvChunks", _Declines)
    want = _read(path, chunk_size)
    assert got[:2] == want[:2]
    assert not want[2]


def test_plain_records_reach_the_kernels_as_text_columns(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv"
    path.write_bytes(
        b'\xef\xbb\xbfid,expected,actual\r\n7,"a ""b""",\xc3\xa9\r\n\r\n8,x,"y\nz"\r\n'
    )
    rows, error, fast = _read(path, 10)
    assert fast and error is None
    assert rows == [("line 2", ('a "b"', "é", "7")), ("line 4", ("x", "y\nz", "8"))]
