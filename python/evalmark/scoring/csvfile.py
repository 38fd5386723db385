"""Read a CSV file (UTF-8, header row, RFC 4180 quoting) in chunks of rows."""

from __future__ import annotations

import csv
import io
import itertools
import operator
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from evalmark.errors import ScoringInputError
from evalmark.scoring.chunks import Chunk, Columns, Needs, lines_locator
from evalmark.scoring.vectors import VectorShape, stack_rows

_VECTOR = msgspec.json.Decoder(list[float])


def _allow_long_fields() -> None:
    # Model answers can exceed csv's default 131,072-character field limit.
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


class CsvReader:
    """Yields :class:`Chunk` objects of up to ``chunk_size`` rows from a CSV file.

    Rows are located by the line on which they start (the header is line 1). A row whose
    number of fields differs from the header's is bad: most often an unquoted comma.
    """

    progress_unit = "bytes"

    def __init__(self, path: Path, columns: Columns, needs: Needs, chunk_size: int) -> None:
        _allow_long_fields()
        self.path = path
        self.chunk_size = chunk_size
        self.needs = needs
        self._binary = path.open("rb")
        self.progress_total: int | None = path.stat().st_size
        self._text = io.TextIOWrapper(self._binary, encoding="utf-8-sig", newline="")
        try:
            self._open(path, columns, needs)
        except BaseException:
            self.close()
            raise

    def _open(self, path: Path, columns: Columns, needs: Needs) -> None:
        self._reader = csv.reader(self._text, strict=True)
        header = self._next_row()
        self._empty = header is None
        self._header: list[str] = header if header is not None else []
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
            if self._empty:
                break
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

    def _next_row(self) -> list[str] | None:
        try:
            return next(self._reader)
        except StopIteration:
            return None
        except UnicodeDecodeError as exc:
            raise self._not_utf8(exc) from None
        except csv.Error as exc:
            raise self._not_csv(exc) from None

    def _not_utf8(self, exc: UnicodeDecodeError) -> ScoringInputError:
        return ScoringInputError(
            str(self.path),
            f"near line {self._reader.line_num + 1}",
            "",
            f"is not valid UTF-8 ({exc.reason})",
            "save the file as UTF-8",
        )

    def _not_csv(self, exc: csv.Error) -> ScoringInputError:
        return ScoringInputError(
            str(self.path), f"line {self._reader.line_num}", "", f"is not valid CSV: {exc}"
        )

    def position(self) -> int:
        """Bytes read so far (the reader reads ahead in blocks)."""
        return self._binary.tell()

    def close(self) -> None:
        """Close the file."""
        self._text.close()

    def __iter__(self) -> Iterator[Chunk]:
        start = 0
        reader = self._reader
        last_line = reader.line_num  # the line the previous record ended on
        while not self._empty:
            try:
                # (record, the line it ends on); a record starts the line after the previous one
                records = [
                    (row, reader.line_num) for row in itertools.islice(reader, self.chunk_size)
                ]
            except UnicodeDecodeError as exc:
                raise self._not_utf8(exc) from None
            except csv.Error as exc:
                raise self._not_csv(exc) from None
            if not records:
                return
            lines: list[int] = []
            rows: list[list[str]] = []
            for row, end in records:
                if row:  # a blank line reads as []
                    lines.append(last_line + 1)
                    rows.append(row)
                last_line = end
            if rows:
                yield self._chunk(start, lines, rows)
                start += len(rows)

    def _chunk(self, start: int, lines: list[int], rows: list[list[str]]) -> Chunk:
        chunk = Chunk(start=start, size=len(rows), locate=lines_locator(lines))
        width = len(self._header)
        for index, row in enumerate(rows):
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
            ids: list[str | None] = list(column("id"))
            for index in chunk.bad:
                ids[index] = None
            chunk.ids = ids
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
            except msgspec.DecodeError:
                chunk.mark_bad(index, name, "must be a JSON array of numbers, like [0.1, 0.2]")
                parsed.append(None)
        return stack_rows(chunk, parsed, name, self._shapes[side])
