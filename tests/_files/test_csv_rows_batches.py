"""CsvRows gives the rows of a CSV file, each with the line it starts on, whatever the batch size
and byte budget: blank lines skipped, quoted values spanning lines counted."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark._files.csv_rows import CsvRows

CELL = st.text(st.sampled_from(list('ab ,"\n\r')), max_size=6)
ROW = st.one_of(st.just(None), st.lists(CELL, min_size=2, max_size=2))  # None: a blank line


def reference(text: str) -> list[tuple[int, list[str]]]:
    """(starting line, row) of every record, read one at a time."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    out, last = [], reader.line_num
    for row in reader:
        if row:
            out.append((last + 1, row))
        last = reader.line_num
    return out


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(ROW, max_size=40), st.integers(1, 7), st.sampled_from([None, 1, 64, 1 << 20]))
def test_the_batches_hold_every_row_at_its_line(
    tmp_path_factory: object, rows: list[list[str] | None], size: int, budget: int | None
) -> None:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["x", "y"])
    for row in rows:
        if row is None:
            buffer.write("\n")
        else:
            writer.writerow(row)
    text = buffer.getvalue()
    path = Path(tmp_path_factory.mktemp("csv")) / "rows.csv"  # type: ignore[attr-defined]
    path.write_text(text, encoding="utf-8", newline="")
    reader = CsvRows(path, lambda problem: ValueError(problem.message))
    try:
        got = [
            (line, row)
            for lines, batch in reader.batches(size, budget)
            for line, row in zip(lines, batch, strict=True)
        ]
    finally:
        reader.close()
    assert got == reference(text)[1:]  # the header is CsvRows.header


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(ROW, max_size=60), st.integers(1, 40), st.integers(1, 5))
def test_batches_that_start_small_hold_the_same_rows_and_grow_fourfold(
    tmp_path_factory: object, rows: list[list[str] | None], size: int, first: int
) -> None:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["x", "y"])
    for row in rows:
        if row is None:
            buffer.write("\r\n")
        else:
            writer.writerow(row)
    text = buffer.getvalue()
    path = Path(tmp_path_factory.mktemp("csv")) / "rows.csv"  # type: ignore[attr-defined]
    path.write_text(text, encoding="utf-8", newline="")
    reader = CsvRows(path, lambda problem: ValueError(problem.message))
    try:
        batches = list(reader.batches(size, first_size=first))
    finally:
        reader.close()
    got = [pair for lines, batch in batches for pair in zip(lines, batch, strict=True)]
    assert got == reference(text)[1:]
    # No batch holds more than size rows. With no blank line (a batch of blank lines is not
    # handed out), the first holds first_size and each next one four times the last.
    assert all(len(pair[1]) <= size for pair in batches)
    if not any(row is None for row in rows):
        expected, left, now = [], len(rows), min(size, first)
        while left:
            expected.append(min(now, left))
            left, now = left - expected[-1], min(size, now * 4)
        assert [len(pair[1]) for pair in batches] == expected


def test_the_position_survives_the_file_being_closed_by_the_reading_thread(
    tmp_path: Path,
) -> None:
    # `evalmark score` reads on a helper thread and asks the position from the calling one
    # (the progress bar); the reader closes one CsvRows and opens the next as it falls back
    # to the csv module, so a position may be asked of a closed file.
    path = tmp_path / "rows.csv"
    path.write_text("expected,actual\n" + "a,b\n" * 1000, "utf-8")
    rows = CsvRows(path, lambda problem: ValueError(problem.message))
    rows.stream().read(100)
    batches = rows.batches(10)
    next(batches)
    seen = rows.position()
    assert seen >= 100
    rows.close()
    assert rows.position() == seen
