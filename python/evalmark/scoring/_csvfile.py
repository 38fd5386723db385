"""Read a CSV file (UTF-8, header row, RFC 4180 quoting) in chunks of rows."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.csv_rows import CsvRows
from evalmark.errors import Problem, ScoringInputError
from evalmark.scoring._chunks import (
    CHUNK_BYTES,
    FIRST_CHUNK_ROWS,
    Chunk,
    Columns,
    Needs,
    lines_locator,
)
from evalmark.scoring._csv_fast import CsvChunks
from evalmark.scoring._errors import input_error
from evalmark.scoring._vectors import VectorShape, stack_rows

_VECTOR = msgspec.json.Decoder(list[float])


def _csv_error(problem: Problem) -> ScoringInputError:
    hint = "save the file as UTF-8" if "UTF-8" in problem.message else ""
    return input_error(problem, hint)


class CsvReader:
    """Yields :class:`Chunk` objects of up to ``chunk_size`` rows from a CSV file.

    Rows are located by the line on which they start (the header is line 1). A row whose
    number of fields differs from the header's is bad: most often an unquoted comma.
    """

    progress_unit = "bytes"

    def __init__(self, path: Path, columns: Columns, needs: Needs, chunk_size: int) -> None:
        self.path = path
        self.chunk_size = chunk_size
        self.needs = needs
        self._rows = CsvRows(path, _csv_error)
        self.progress_total: int | None = path.stat().st_size
        try:
            self._open(path, columns, needs)
        except BaseException:
            self.close()
            raise

    def _open(self, path: Path, columns: Columns, needs: Needs) -> None:
        if self._rows.header is None:
            raise ScoringInputError(
                str(path),
                "",
                "",
                "is empty: a CSV file needs at least its header row",
                "an empty file is most often a failed export; a file with only the header "
                "row scores no rows",
            )
        self._header: list[str] = self._rows.header
        self.id_column = (
            ("id" if "id" in self._header else None) if columns.id is None else columns.id or None
        )
        self._index: dict[str, int] = {}
        wanted: list[tuple[str, str]] = []
        if needs.text:
            wanted += [("expected", columns.expected), ("actual", columns.actual)]
        if needs.vectors:
            wanted += [
                ("expected_vector", columns.expected_vector),
                ("actual_vector", columns.actual_vector),
            ]
        if self.id_column:
            wanted.append(("id", self.id_column))
        for role, column in wanted:
            if column not in self._header:
                raise ScoringInputError(
                    str(path),
                    "line 1",
                    column,
                    "is not a column of the header"
                    + (f" (columns: {', '.join(self._header)})" if self._header else ""),
                    f"name the {role.replace('_', ' ')} column with --{role.replace('_', '-')}"
                    + "-col",
                )
            self._index[role] = self._header.index(column)
        self._shapes = (VectorShape(), VectorShape())
        self._columns = columns

    def position(self) -> int:
        """Bytes read so far (the reader reads ahead in blocks)."""
        return self._rows.position()

    def close(self) -> None:
        """Close the file."""
        self._rows.close()

    def __iter__(self) -> Iterator[Chunk]:
        start, first_size = 0, FIRST_CHUNK_ROWS
        if self.needs.text and not self.needs.vectors:  # read in Rust up to a hard record
            fast = CsvChunks(
                self._rows.stream(),
                self._header,
                (self._index["expected"], self._index["actual"], self._index.get("id")),
                self.chunk_size,
                CHUNK_BYTES,
                FIRST_CHUNK_ROWS,
            )
            for lines, texts in fast:
                yield texts.chunk(start, lines, bool(self.id_column))
                start += len(lines)
            if fast.resume is None:
                return
            offset, lines_before, first_size = fast.resume
            if offset:  # the csv module goes on from that record
                done, self._rows = (
                    self._rows,
                    CsvRows(self.path, _csv_error, (offset, lines_before, self._header)),
                )
                done.close()  # after the swap: `position` (another thread) reads the new one
        for lines, rows in self._rows.batches(self.chunk_size, CHUNK_BYTES, first_size=first_size):
            yield self._chunk(start, lines, rows)
            start += len(rows)

    def _chunk(self, start: int, lines: Sequence[int], rows: list[list[str]]) -> Chunk:
        chunk = Chunk(start=start, size=len(rows), locate=lines_locator(lines))
        width = len(self._header)
        widths = set(map(len, rows))  # one pass in C; the rows are looked at only when uneven
        for index, row in enumerate(rows if widths - {width} else ()):
            if len(row) != width:
                chunk.mark_bad(
                    index,
                    "",
                    f"has {len(row)} fields where the header has {width}"
                    " (an unquoted comma or quote in a value?)",
                )

        def column(role: str) -> list[str]:
            at = self._index[role]
            if not chunk.bad:
                return list(map(operator.itemgetter(at), rows))
            return [row[at] if len(row) == width else "" for row in rows]

        if self.needs.text:
            chunk.expected = column("expected")
            chunk.actual = column("actual")
        if self.needs.vectors:
            chunk.expected_vectors = self._vectors(chunk, column("expected_vector"), 0)
            chunk.actual_vectors = self._vectors(chunk, column("actual_vector"), 1)
        if self.id_column:
            at = self._index["id"]
            # A bad row keeps its id when the id's cell is where the header says: always in a
            # row of the right width, and in the first column whatever a later cell holds.
            chunk.ids = [
                row[at] if len(row) == width or (at == 0 and row) else None for row in rows
            ]
        return chunk

    def _vectors(self, chunk: Chunk, cells: list[str], side: int) -> Any:
        name = (self._columns.expected_vector, self._columns.actual_vector)[side]
        parsed: list[list[float] | None] = []
        for index, cell in enumerate(cells):
            if index in chunk.bad:
                parsed.append(None)
                continue
            try:
                parsed.append(_VECTOR.decode(cell))
            except (msgspec.DecodeError, RecursionError):
                chunk.mark_bad(index, name, "must be a JSON array of numbers, like [0.1, 0.2]")
                parsed.append(None)
        return stack_rows(chunk, parsed, name, self._shapes[side])
