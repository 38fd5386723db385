"""Reading a CSV file as a stream of rows (UTF-8, a byte order mark allowed, a header row,
RFC 4180 quoting, values may span lines), each with the line it starts on. A byte that is not
UTF-8 and a quoting error are reported at their exact line."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from evalmark._files.source import invalid_utf8_position
from evalmark.errors import Problem

__all__ = ["CsvRows"]

Fail = Callable[[Problem], Exception]
_STEP = 256  # records read between two looks at the byte budget


def _allow_long_fields() -> None:
    # Model answers can exceed csv's default 131,072-character field limit.
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2


class CsvRows:
    """The header and then the rows of a CSV file, in batches, with their starting lines.

    ``fail`` turns a problem (with its line, and its column when known) into the exception to
    raise. ``header`` is None for a file with no content at all.
    """

    def __init__(
        self, path: Path, fail: Fail, at: tuple[int, int, list[str]] | None = None
    ) -> None:
        """``at``: (byte offset, lines before it, header) to read the rows from a record
        boundary on, the header already read."""
        _allow_long_fields()
        self.path = path
        self._fail = fail
        self._binary = path.open("rb")
        self._raw: BinaryIO | None = None
        self._lines_before = 0 if at is None else at[1]
        self._position = 0 if at is None else at[0]
        if at is not None:
            self._binary.seek(at[0])
        encoding = "utf-8-sig" if at is None or at[0] == 0 else "utf-8"
        self._text = io.TextIOWrapper(self._binary, encoding=encoding, newline="")
        self._reader = csv.reader(self._text, strict=True)
        try:
            self.header: list[str] | None = self._next() if at is None else at[2]
        except BaseException:
            self.close()
            raise

    def _next(self) -> list[str] | None:
        with self._problems():
            return next(self._reader, None)

    def stream(self) -> BinaryIO:
        """A second handle on the file, at its start (for a reader of the raw bytes)."""
        if self._raw is None:
            self._raw = self.path.open("rb")
        return self._raw

    def position(self) -> int:
        """Bytes read so far (the reader reads ahead in blocks). A progress bar asks from
        another thread than the one reading, which may close the file meanwhile: the last
        position seen is given then."""
        try:
            raw = 0 if self._raw is None or self._raw.closed else self._raw.tell()
            self._position = max(self._position, raw, self._binary.tell())
        except (OSError, ValueError):  # closed under us: EBADF mid-close, or after it
            pass
        return self._position

    def close(self) -> None:
        """Close the file."""
        self._text.close()
        if self._raw is not None:
            self._raw.close()

    def batches(
        self, size: int, max_bytes: int | None = None, *, first_size: int | None = None
    ) -> Iterator[tuple[list[int], list[list[str]]]]:
        """The data rows, ``size`` records at a time (fewer once about ``max_bytes`` of the
        file are read, so wide rows make small batches), as (starting lines, rows); blank
        lines are skipped. With ``first_size``, the first batch reads that many records, and
        each next one four times the last, up to ``size``: a consumer gets to work sooner."""
        last_line = self._line()  # the line the previous record ended on
        now = size if first_size is None else max(1, min(size, first_size))
        while self.header is not None:
            with self._problems():
                # the records and the lines they end on; a record starts the line after the
                # previous one
                rows, ends = self._records(now, max_bytes)
            now = min(size, now * 4)
            if not rows:
                return
            if all(rows):  # no blank line (one reads as [])
                lines = [last_line + 1]
                lines += map((1).__add__, ends[:-1])
            else:
                lines, kept = [], []
                for row, end in zip(rows, ends, strict=True):
                    if row:
                        lines.append(last_line + 1)
                        kept.append(row)
                    last_line = end
                rows = kept
            last_line = ends[-1]
            if rows:
                yield lines, rows

    def _records(self, size: int, max_bytes: int | None) -> tuple[list[list[str]], list[int]]:
        """Up to ``size`` records (fewer once about ``max_bytes`` more of the file are read,
        checked every ``_STEP`` records) and the line each ends on."""
        reader = self._reader
        until = None if max_bytes is None else self._binary.tell() + max_bytes
        rows: list[list[str]] = []
        ends: list[int] = []
        add_row, add_end = rows.append, ends.append
        while len(rows) < size:
            step = min(_STEP, size - len(rows))
            before = len(rows)
            for row in itertools.islice(reader, step):
                add_row(row)
                add_end(reader.line_num + self._lines_before)
            if len(rows) - before < step or (until is not None and self._binary.tell() >= until):
                break
            time.sleep(0)  # a thread waiting for the GIL (one that scores rows) gets it now
        return rows, ends

    @contextlib.contextmanager
    def _problems(self) -> Iterator[None]:
        """Turn the decoding and quoting errors met while reading into ``fail``'s errors."""
        try:
            yield
        except UnicodeDecodeError as exc:
            raise self.not_utf8(exc.reason) from None
        except csv.Error as exc:
            raise self.not_csv(exc) from None

    def not_utf8(self, reason: str) -> Exception:
        """The error for the first byte of the file that is not UTF-8."""
        with self.path.open("rb") as stream:
            found = invalid_utf8_position(stream)
        line, column = found if found is not None else (None, None)
        return self._fail(
            Problem(
                f"is not valid UTF-8 ({reason})" + (f" at column {column}" if column else ""),
                path=str(self.path),
                line=line,
                column=column,
            )
        )

    def not_csv(self, exc: csv.Error) -> Exception:
        """The error for a record the csv module cannot read."""
        message = f"is not valid CSV: {exc}"
        return self._fail(Problem(message, path=str(self.path), line=self._line()))

    def _line(self) -> int:
        """The line the reader is at (1-based; 0 before the first)."""
        return self._reader.line_num + self._lines_before
