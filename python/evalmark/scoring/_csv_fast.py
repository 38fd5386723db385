"""The CSV reader's fast path: records read in Rust, the two texts straight into columns.

The data records after the header are read from blocks of whole lines by one extension call
per chunk (``csv_text_columns``), which copies each record's two texts into a
:class:`~evalmark.metrics.TextColumn` each, and its id. It reads only plain RFC 4180 (see
``rust/bindings/csv_columns.rs``); at the first record it leaves to Python's ``csv`` module
(a bad row, a quoting error, a lone carriage return, bytes that are not UTF-8...) it stops,
and ``CsvChunks.resume`` says where the ``csv`` module takes over, so rows after it are
read, and their errors named, as before.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

from evalmark._files.source import BOM
from evalmark.metrics._native import core
from evalmark.scoring._jsonl_fast import Blocks, FastRows, line_numbers

_WHOLE = 1 << 62  # no byte limit


class CsvChunks:
    """Chunks of a CSV file's data records read in Rust, cut as ``CsvRows.batches`` cuts them
    (``size`` records, blank lines counted, the first ``first_size``, each next four times
    the last). After the iteration, ``resume`` is None when the whole file was read, else
    ``(byte offset, lines before it, next chunk size)`` for the ``csv`` module to go on."""

    def __init__(
        self,
        stream: BinaryIO,
        header: list[str],
        wanted: tuple[int, int, int | None],
        size: int,
        max_bytes: int,
        first_size: int,
    ) -> None:
        self._stream = stream
        self._header = header
        self._wanted = wanted
        self._size = size
        self._max_bytes = max_bytes
        self._now = max(1, min(size, first_size))
        self.resume: tuple[int, int, int] | None = None

    def _call(
        self, blocks: Blocks, pos: int, records: int, limit: int, line: int
    ) -> tuple[int, Any]:
        """The extension call at ``pos``, reading on while a record runs past the block;
        returns where ``pos`` is now in ``blocks.data``, and what the call found."""
        width = len(self._header)
        while True:
            found = core.csv_text_columns(
                blocks.data, pos, records, limit, line, width, *self._wanted
            )
            if found is None or blocks.eof:
                return pos, (None if found is None or found[3] else found)
            end, _, passed, cut, _, _ = found
            short = passed < records and end - pos < limit
            if not cut and not (short and end == len(blocks.data)):
                return pos, found
            pos = blocks.more(pos, line, 2 * (len(blocks.data) - pos))  # twice as much

    def __iter__(self) -> Iterator[tuple[Sequence[int], FastRows]]:
        blocks = Blocks(self._stream)
        blocks.more(0, 1)
        start = len(BOM) if blocks.data.startswith(BOM) else 0
        start, head = self._call(blocks, start, 1, _WHOLE, 1)
        text = bytes(blocks.data[start : head[0]]).decode("utf-8", "replace") if head else ""
        if head is None or list(head[4]) != [1] or next(csv.reader([text]), None) != self._header:
            self.resume = (0, 0, self._now)  # the csv module reads the whole file
            return
        pos, line = head[0], head[1]
        while True:
            pos = blocks.ready(pos, line, self._now, self._max_bytes)
            if pos == len(blocks.data) and blocks.eof:
                return
            pos, found = self._call(blocks, pos, self._now, self._max_bytes, line)
            if found is None:
                self.resume = (blocks.base + pos, line - 1, self._now)
                return
            end, line, records, _, numbers, columns = found
            blocks.passed(end - pos, records)
            pos = end
            self._now = min(self._size, self._now * 4)
            if len(numbers):
                yield line_numbers(numbers), FastRows.from_columns(columns)
