"""Reading a CSV file as a stream of rows (UTF-8, a byte order mark allowed, a header row,
RFC 4180 quoting, values may span lines), each with the line it starts on. A byte that is not
UTF-8 and a quoting error are reported at their exact line."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from evalmark._files.source import invalid_utf8_position
from evalmark.errors import Problem

__all__ = ["CsvRows"]

Fail = Callable[[Problem], Exception]


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

    def __init__(self, path: Path, fail: Fail) -> None:
        _allow_long_fields()
        self.path = path
        self._fail = fail
        self._binary = path.open("rb")
        self._text = io.TextIOWrapper(self._binary, encoding="utf-8-sig", newline="")
        self._reader = csv.reader(self._text, strict=True)
        try:
            self.header: list[str] | None = self._next()
        except BaseException:
            self.close()
            raise

    def _next(self) -> list[str] | None:
        with self._problems():
            return next(self._reader, None)

    def position(self) -> int:
        """Bytes read so far (the reader reads ahead in blocks)."""
        return self._binary.tell()

    def close(self) -> None:
        """Close the file."""
        self._text.close()

    def batches(
        self, size: int, max_bytes: int | None = None
    ) -> Iterator[tuple[list[int], list[list[str]]]]:
        """The data rows, ``size`` records at a time (fewer once about ``max_bytes`` of the
        file are read, so wide rows make small batches), as (starting lines, rows); blank
        lines are skipped."""
        reader = self._reader
        last_line = reader.line_num  # the line the previous record ended on
        while self.header is not None:
            with self._problems():
                # (record, the line it ends on); a record starts the line after the previous one
                if max_bytes is None:
                    records = [(row, reader.line_num) for row in itertools.islice(reader, size)]
                else:
                    records = self._records(size, max_bytes)
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
                yield lines, rows

    def _records(self, size: int, max_bytes: int) -> list[tuple[list[str], int]]:
        reader = self._reader
        until = self._binary.tell() + max_bytes
        records = []
        for row in reader:
            records.append((row, reader.line_num))
            if len(records) >= size or self._binary.tell() >= until:
                break
        return records

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
        return self._fail(Problem(message, path=str(self.path), line=self._reader.line_num))
