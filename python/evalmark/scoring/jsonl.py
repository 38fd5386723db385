"""Read a JSON Lines file in chunks of rows: one JSON object per line, blank lines ignored."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from evalmark.scoring.chunks import Chunk, Columns, Needs, lines_locator
from evalmark.scoring.vectors import VectorShape, stack_rows

_BOM = b"\xef\xbb\xbf"
_JSON_TYPES = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
    type(None): "null",
}


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


class JsonlReader:
    """Yields :class:`Chunk` objects of up to ``chunk_size`` rows from a JSONL file."""

    progress_unit = "bytes"

    def __init__(self, path: Path, columns: Columns, needs: Needs, chunk_size: int) -> None:
        self.path = path
        self.chunk_size = chunk_size
        self.needs = needs
        self._file: BinaryIO = path.open("rb")
        self.progress_total: int | None = path.stat().st_size
        self.id_column = self._resolve_id(columns.id)
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
        )
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(row_type)
        self._shapes = (VectorShape(), VectorShape())

    def _resolve_id(self, requested: str | None) -> str | None:
        if requested is not None:
            return requested or None
        # Auto: use "id" when the first record has it.
        for raw in self._file:
            line = raw.removeprefix(_BOM).strip()
            if line:
                try:
                    first = msgspec.json.decode(line)
                except msgspec.DecodeError:
                    first = None
                self._file.seek(0)
                return "id" if isinstance(first, dict) and "id" in first else None
        self._file.seek(0)
        return None

    def position(self) -> int:
        """Bytes read so far."""
        return self._file.tell()

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __iter__(self) -> Iterator[Chunk]:
        start = 0
        next_line = 1
        first = True
        while True:
            raw_lines = list(itertools.islice(self._file, self.chunk_size))
            if not raw_lines:
                return
            if first:
                raw_lines[0] = raw_lines[0].removeprefix(_BOM)
                first = False
            texts = [raw for raw in raw_lines if not raw.isspace()]
            lines: Sequence[int]
            if len(texts) == len(raw_lines):
                lines = range(next_line, next_line + len(raw_lines))
            else:
                numbered = enumerate(raw_lines, start=next_line)
                lines = [number for number, raw in numbered if not raw.isspace()]
            next_line += len(raw_lines)
            if texts:
                yield self._chunk(start, lines, texts)
                start += len(texts)

    def _chunk(self, start: int, lines: Sequence[int], texts: list[bytes]) -> Chunk:
        chunk = Chunk(start=start, size=len(texts), locate=lines_locator(lines))
        decode = self._decoder.decode
        try:
            rows: list[Any] = [decode(text) for text in texts]
        except (msgspec.DecodeError, UnicodeDecodeError):
            rows = []
            for index, text in enumerate(texts):
                try:
                    rows.append(decode(text))
                except (msgspec.DecodeError, UnicodeDecodeError):
                    field, problem = self._diagnose(text)
                    chunk.mark_bad(index, field, problem)
                    rows.append(None)
        if self.needs.text:
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
            chunk.ids = [row.i if row is not None else None for row in rows]
        return chunk

    def _column(self, attr: str) -> str:
        return next(column for a, column, _ in self._fields if a == attr)

    def _diagnose(self, text: bytes) -> tuple[str, str]:
        """Explain why a line failed to decode: (field, problem)."""
        try:
            value = msgspec.json.decode(text)
        except msgspec.DecodeError as exc:
            return "", f"is not valid JSON: {exc}"
        if not isinstance(value, dict):
            return "", f"holds {_kind(value)}; each line must be a JSON object"
        for _, column, kind in self._fields:
            if column not in value:
                present = ", ".join(sorted(value)) or "none"
                return column, f"is missing (fields present: {present})"
            found = value[column]
            if kind is str and not isinstance(found, str):
                return column, f"is {_kind(found)}; it must be a string"
            if kind == list[float] and not (
                isinstance(found, list)
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in found)
            ):
                return column, "must be an array of numbers"
            if kind == (str | int) and (
                isinstance(found, bool) or not isinstance(found, str | int)
            ):
                return column, f"is {_kind(found)}; an id must be a string or an integer"
        return "", "cannot be read"
