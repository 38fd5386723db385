"""Read a JSON Lines file in chunks of rows: one JSON object per line, blank lines ignored."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from evalmark._files.json_read import LineTooLargeError, decode_problem, jsonl_batches
from evalmark.errors import ScoringInputError
from evalmark.scoring._chunks import (
    CHUNK_BYTES,
    FIRST_CHUNK_ROWS,
    Chunk,
    Columns,
    Needs,
    lines_locator,
)
from evalmark.scoring._jsonl_fast import FastRows, fast_chunks
from evalmark.scoring._vectors import VectorShape, stack_rows

_JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
    type(None): "null",
}
_NESTED = "is nested too deeply to read; flatten it"
_EXPECTED, _ACTUAL, _ID = attrgetter("e"), attrgetter("a"), attrgetter("i")


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


_ID_SCAN_LINES = 1024
# Lines decoded between two offers of the GIL: one decode of a whole chunk runs in C without
# letting go of it, and would hold up the thread scoring the chunk before for as long.
_PIECE = 2048


def _holds_object(line: bytes) -> bool:
    """Whether ``line`` is a JSON object."""
    try:
        return isinstance(msgspec.json.decode(line), dict)
    except (msgspec.DecodeError, RecursionError):
        return False


class JsonlReader:
    """Yields :class:`Chunk` objects of up to ``chunk_size`` rows from a JSONL file."""

    progress_unit = "bytes"

    def __init__(self, path: Path, columns: Columns, needs: Needs, chunk_size: int) -> None:
        self.path = path
        self.chunk_size = chunk_size
        self.needs = needs
        self._file: BinaryIO = path.open("rb")
        try:
            first = self._first_record()
        except BaseException:
            self._file.close()
            raise
        self.progress_total: int | None = path.stat().st_size
        self.id_column = self._resolve_id(columns.id, first)
        self._fields: list[tuple[str, str, Any]] = []  # (struct attribute, column, type)
        if needs.text:
            self._fields += [("e", columns.expected, str), ("a", columns.actual, str)]
        if needs.vectors:
            self._fields += [
                ("ev", columns.expected_vector, list[float]),
                ("av", columns.actual_vector, list[float]),
            ]
        if self.id_column:
            self._fields.append(("i", self.id_column, str | int))
        row_type = msgspec.defstruct(
            "Row",
            [(attr, kind) for attr, _, kind in self._fields],
            rename={attr: column for attr, column, _ in self._fields},
            gc=False,  # strings, numbers and lists of numbers: no cycle to collect
        )
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(row_type)
        self._shapes = (VectorShape(), VectorShape())

    def _first_record(self) -> bytes:
        """The first line that holds a JSON object among the first non-blank lines, else the
        first non-blank line (a broken line that --on-error skips must not hide the id column
        of the rows after it); a file without a non-blank line is empty, which is an error."""
        first: bytes | None = None
        seen = 0
        for _, texts in jsonl_batches(self._file, 1):  # one line at a time: lines may be huge
            for text in texts:
                first = text if first is None else first
                seen += 1
                if _holds_object(text) or seen >= _ID_SCAN_LINES:
                    self._file.seek(0)
                    return text if _holds_object(text) else first
        self._file.seek(0)
        if first is not None:
            return first
        raise ScoringInputError(
            str(self.path),
            "",
            "",
            "is empty: it holds no JSON record",
            "an empty file is most often a failed export; there is nothing to score",
        )

    @staticmethod
    def _resolve_id(requested: str | None, first: bytes) -> str | None:
        if requested is not None:
            return requested or None
        # Auto: use "id" when the first record has it.
        try:
            record = msgspec.json.decode(first)
        except (msgspec.DecodeError, RecursionError):
            record = None
        return "id" if isinstance(record, dict) and "id" in record else None

    def position(self) -> int:
        """Bytes read so far."""
        return self._file.tell()

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __iter__(self) -> Iterator[Chunk]:
        start = 0
        try:
            for lines, texts in self._batches():
                if isinstance(texts, FastRows):
                    yield texts.chunk(start, lines, bool(self.id_column))
                else:
                    yield self._chunk(start, lines, texts)
                start += len(lines)
        except LineTooLargeError as exc:
            raise ScoringInputError(
                str(self.path),
                f"line {exc.line}",
                "",
                "is too large to read in the memory this process may use",
                "give evalmark more memory, or shorten that row",
            ) from None

    def _batches(self) -> Iterator[tuple[Sequence[int], list[bytes] | FastRows]]:
        """The chunks' lines; read in Rust (see jsonl_fast.py) when only texts are wanted."""
        names = [column for _, column, _ in self._fields]
        if self.needs.text and not self.needs.vectors and len(set(names)) == len(names):
            keys = (names[0], names[1], self.id_column)
            return fast_chunks(self._file, self.chunk_size, CHUNK_BYTES, FIRST_CHUNK_ROWS, keys)
        return jsonl_batches(self._file, self.chunk_size, CHUNK_BYTES, first_size=FIRST_CHUNK_ROWS)

    def _chunk(self, start: int, lines: Sequence[int], texts: list[bytes]) -> Chunk:
        chunk = Chunk(start=start, size=len(texts), locate=lines_locator(lines))
        decode = self._decoder.decode
        ids: list[Any] | None = None
        try:
            rows: list[Any] = []
            for at in range(0, len(texts), _PIECE):
                rows += map(decode, texts[at : at + _PIECE])
                time.sleep(0)  # hand the GIL to the scoring thread if it waits (pipeline.py)
        except (msgspec.DecodeError, RecursionError):
            rows = []
            ids = []
            for index, text in enumerate(texts):
                try:
                    row = decode(text)
                except (msgspec.DecodeError, RecursionError):
                    field, problem, found_id = self._diagnose(text)
                    chunk.mark_bad(index, field, problem)
                    rows.append(None)
                    ids.append(found_id)
                    continue
                rows.append(row)
                ids.append(row.i if self.id_column else None)
        if self.needs.text and ids is None:  # every row read: one pass in C per field
            chunk.expected = list(map(_EXPECTED, rows))
            chunk.actual = list(map(_ACTUAL, rows))
        elif self.needs.text:
            chunk.expected = [row.e if row is not None else "" for row in rows]
            chunk.actual = [row.a if row is not None else "" for row in rows]
        if self.needs.vectors:
            names = (self._column("ev"), self._column("av"))
            chunk.expected_vectors = stack_rows(
                chunk,
                [row.ev if row is not None else None for row in rows],
                names[0],
                self._shapes[0],
            )
            chunk.actual_vectors = stack_rows(
                chunk,
                [row.av if row is not None else None for row in rows],
                names[1],
                self._shapes[1],
            )
        if self.id_column:
            chunk.ids = ids if ids is not None else list(map(_ID, rows))
        return chunk

    def _column(self, attr: str) -> str:
        return next(column for a, column, _ in self._fields if a == attr)

    def _diagnose(self, text: bytes) -> tuple[str, str, Any]:
        """Explain why a line failed to decode: (field, problem, the row's id if readable)."""
        try:
            value = msgspec.json.decode(text)
        except msgspec.DecodeError as exc:
            problem = decode_problem(exc, text.rstrip(b"\r\n"), "")
            reason = problem.message.removeprefix("malformed JSON: ")
            return "", f"is not valid JSON (column {problem.column}): {reason}", None
        except RecursionError:
            return "", _NESTED, None
        if not isinstance(value, dict):
            return "", f"holds {_kind(value)}; each line must be a JSON object", None
        found_id = value.get(self.id_column) if self.id_column else None
        if isinstance(found_id, bool) or not isinstance(found_id, str | int):
            found_id = None
        for _, column, kind in self._fields:
            if column not in value:
                present = ", ".join(sorted(value)) or "none"
                return column, f"is missing (fields present: {present})", found_id
            found = value[column]
            if kind is str and not isinstance(found, str):
                return column, f"is {_kind(found)}; it must be a string", found_id
            if kind == list[float] and not (
                isinstance(found, list)
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in found)
            ):
                return column, "must be an array of numbers", found_id
            if kind == (str | int) and (
                isinstance(found, bool) or not isinstance(found, str | int)
            ):
                return column, f"is {_kind(found)}; an id must be a string or an integer", None
        return "", "cannot be read", found_id
