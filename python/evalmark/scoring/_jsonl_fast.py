"""The JSONL reader's fast path: chunks cut and read in Rust, texts straight into columns.

The file is read in blocks of whole lines. One extension call (``jsonl_text_columns``) cuts
the next chunk from a block exactly as :func:`evalmark._files.json_read.jsonl_batches` would
(the same lines, the same line numbers) and reads each line's two texts into a
:class:`~evalmark.metrics.TextColumn` each, and its id, without a Python object per text.
When any line of the chunk is one the strict Rust reader leaves to msgspec (a bad row, an
escaped key, a lone surrogate...), the chunk comes back as its lines instead, and the reader
decodes them with msgspec as before: errors and their messages do not change.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from evalmark._files.json_read import LineTooLargeError
from evalmark._files.source import BOM
from evalmark.metrics import TextColumn
from evalmark.metrics._native import core
from evalmark.scoring._chunks import Chunk, lines_locator

# Bytes read from the file at a time (then up to the end of the line they stop in).
BLOCK_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class FastRows:
    """A chunk's texts read in Rust: the two columns, and the ids (None: no id column)."""

    expected: TextColumn
    actual: TextColumn
    ids: list[Any] | None

    @classmethod
    def from_columns(cls, columns: tuple[Any, Any, Any, Any, list[Any] | None]) -> FastRows:
        """The rows of an extension call's ``(expected data, expected offsets, actual data,
        actual offsets, ids)``."""
        e_data, e_offsets, a_data, a_offsets, ids = columns
        return cls(TextColumn(e_data, e_offsets), TextColumn(a_data, a_offsets), ids)

    def chunk(self, start: int, lines: Sequence[int], with_ids: bool) -> Chunk:
        """The chunk of these rows, the first of them row ``start``, read from ``lines``
        (1-based line numbers); its ids only ``with_ids``."""
        chunk = Chunk(start=start, size=len(lines), locate=lines_locator(lines))
        chunk.expected, chunk.actual = self.expected, self.actual
        if with_ids:
            chunk.ids = self.ids
        return chunk


def line_numbers(numbers: Any) -> Sequence[int]:
    """1-based line numbers as a range when there is no blank line between them."""
    n = len(numbers)
    if n and int(numbers[-1]) - int(numbers[0]) == n - 1:
        return range(int(numbers[0]), int(numbers[0]) + n)
    return list(numbers.tolist())


class Blocks:
    """The file's bytes from a position on, read in blocks that end at the end of a line."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.data = b""
        self.eof = False
        self.base = stream.tell()  # the file offset of data[0]
        self._seen = (0, 0)  # bytes and lines (or records) read so far

    def passed(self, size: int, lines: int) -> None:
        """Count ``lines`` lines (or records) of ``size`` bytes as read."""
        self._seen = (self._seen[0] + size, self._seen[1] + lines)

    def ready(self, pos: int, first_line: int, lines: int, max_bytes: int) -> int:
        """Read on, when the data from ``pos`` likely holds fewer than ``lines`` lines (the
        size of the lines read so far tells) or ``max_bytes``, so a chunk is read in one call;
        returns the new offset of ``pos``."""
        size, seen = self._seen
        need = BLOCK_BYTES // 2 if not seen else min(lines * size * 5 // (4 * seen), max_bytes)
        if len(self.data) - pos < need and not self.eof:
            return self.more(pos, first_line, need)
        return pos

    def more(self, keep_from: int, first_line: int, want: int = 0) -> int:
        """Drop the bytes before ``keep_from``, read the next block (of ``want`` bytes or
        more); returns the new offset of ``keep_from`` (0). ``first_line`` is the number of
        the line at ``keep_from``."""
        self.base += keep_from
        rest = memoryview(self.data)[keep_from:]
        block = end = b""
        try:
            block = self._stream.read(max(BLOCK_BYTES, want - len(rest)))
            if block and not block.endswith(b"\n"):
                end = self._stream.readline()
        except MemoryError:  # the line after the last line feed read does not fit
            raise LineTooLargeError(
                first_line + rest.tobytes().count(b"\n") + block.count(b"\n")
            ) from None
        if not block:
            self.eof = True
        # One copy of the block at most (none when it ends a line and nothing is left over).
        self.data = block if not rest and not end else b"".join((rest, block, end))
        return 0


def fast_chunks(
    stream: BinaryIO,
    size: int,
    max_bytes: int,
    first_size: int,
    keys: tuple[str, str, str | None],
) -> Iterator[tuple[Sequence[int], list[bytes] | FastRows]]:
    """The non-blank lines of a JSONL stream, cut into chunks as ``jsonl_batches(stream, size,
    max_bytes, first_size=first_size)`` cuts them, each with its line numbers and either its
    rows read (:class:`FastRows`) or, when msgspec must read them, its lines."""
    expected, actual, id_column = keys
    blocks = Blocks(stream)
    pos = blocks.more(0, 1)
    if blocks.data.startswith(BOM):
        pos = len(BOM)
    next_line = 1
    now = max(1, min(size, first_size))
    while True:
        pos = blocks.ready(pos, next_line, now, max_bytes)
        end, passed, starts, ends, numbers, columns = core.jsonl_text_columns(
            blocks.data, pos, now, max_bytes, next_line, expected, actual, id_column
        )
        short = passed < now and end - pos < max_bytes
        if end == len(blocks.data) and short and not blocks.eof:
            # The chunk goes on past the data: read twice as much and cut it again.
            pos = blocks.more(pos, next_line, 2 * (end - pos))
            continue
        if passed == 0:
            return
        blocks.passed(end - pos, passed)
        next_line += passed
        now = min(size, now * 4)
        data, pos = blocks.data, end
        if not len(numbers):
            continue
        lines = line_numbers(numbers)
        if columns is None:
            yield lines, [data[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
            continue
        yield lines, FastRows.from_columns(columns)
