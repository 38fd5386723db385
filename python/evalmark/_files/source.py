"""Getting a data file's text: which format a name implies, reading the bytes (a missing file
names its resolved path and the close name meant), UTF-8 decoding that reports the line and
column of the first bad byte, and mapping offsets to lines and columns."""

from __future__ import annotations

import bisect
import codecs
import contextlib
import difflib
import gc
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from evalmark.errors import DataFileError, Problem

__all__ = [
    "BOM",
    "Format",
    "LineIndex",
    "Position",
    "decode_text",
    "format_of",
    "gc_paused",
    "invalid_utf8_position",
    "line_col_of_byte",
    "read_bytes",
    "strip_bom",
]

Format = Literal["yaml", "json", "jsonl"]
Position = tuple[int, int]  # 1-based line and column

BOM = b"\xef\xbb\xbf"
_EXTENSIONS: dict[str, Format] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
NOT_UTF8 = "the file is not valid UTF-8 text; save it as UTF-8"


def format_of(path: str | os.PathLike[str]) -> Format | None:
    """The data format implied by a file name's extension (case-insensitive), or None."""
    return _EXTENSIONS.get(Path(path).suffix.lower())


@contextlib.contextmanager
def gc_paused(*, promote: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while many small containers are built.

    Decoding a large file into dicts and lists otherwise triggers collections that traverse
    every object built so far, which makes decoding several times slower. Nothing made while
    paused holds a reference cycle.

    ``promote``: for data that is kept (not thrown away), move every tracked object into the
    oldest generation on resume, so that the young generation's next collection does not
    traverse all of it at once (the full collections, which would reach it anyway, are
    unchanged). Done only when nothing is frozen (``gc.freeze``), so as not to unfreeze
    objects someone froze on purpose.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if promote and gc.get_freeze_count() == 0:
            gc.freeze()  # everything tracked into the permanent generation...
            gc.unfreeze()  # ...and back into the oldest one, with no traversal
        if enabled:
            gc.enable()


def read_bytes(path: Path, error: type[DataFileError]) -> bytes:
    """Read a file, turning a missing file into an error that shows the resolved path."""
    resolved = path.resolve()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        hint = ""
        parent = resolved.parent
        if parent.is_dir():
            close = difflib.get_close_matches(
                resolved.name, sorted(os.listdir(parent)), n=1, cutoff=0.75
            )
            if close:
                hint = f"; did you mean {parent / close[0]}?"
        raise error(
            [
                Problem(
                    f"no such file (resolved to {resolved}; relative paths start from the "
                    f"current directory {Path.cwd()}){hint}",
                    path=str(path),
                )
            ]
        ) from None
    except IsADirectoryError:
        raise error(
            [Problem("is a directory: name the data files in it one by one", path=str(path))]
        ) from None
    except OSError as exc:
        raise error([Problem(f"cannot read the file: {exc.strerror}", path=str(path))]) from None


def is_utf8(data: bytes) -> bool:
    """Whether all of ``data`` is UTF-8 (an ASCII text is, with no decoding)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def strip_bom(data: bytes) -> bytes:
    """Drop a UTF-8 byte order mark."""
    return data[3:] if data.startswith(BOM) else data


def line_col_of_byte(data: bytes, offset: int) -> Position:
    """The 1-based line and column (in characters) of byte ``offset`` of ``data``."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return line, column


def decode_text(data: bytes, path: str, error: type[DataFileError]) -> str:
    """Decode UTF-8, reporting the line and column of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = line_col_of_byte(data, exc.start)
        raise error([Problem(NOT_UTF8, path=path, line=line, column=column)]) from None


def invalid_utf8_position(stream: BinaryIO, block: int = 1 << 20) -> Position | None:
    """Where the first byte that is not UTF-8 stands in ``stream`` (read from its current
    position, in blocks), or None when all of it is UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    line, line_start = 1, b""  # the bytes of the current line read so far
    while True:
        data = stream.read(block)
        pending = decoder.getstate()[0]  # bytes of a sequence cut by the previous block
        try:
            decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            seen = pending + data  # what the offsets of the error count in
            bad = exc.start
            line += seen.count(b"\n", 0, bad)
            start = seen.rfind(b"\n", 0, bad)
            if start >= 0:
                before = seen[start + 1 : bad]
            else:  # line_start already ends with the pending bytes
                before = (line_start + data)[: len(line_start) - len(pending) + bad]
            return line, len(before.decode("utf-8", "replace")) + 1
        if not data:
            return None
        line += data.count(b"\n")
        last = data.rfind(b"\n")
        line_start = data[last + 1 :] if last >= 0 else line_start + data
        line_start = line_start[-4096:]  # a column past this is approximate; lines are exact


class LineIndex:
    """Maps character offsets of a text to 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> Position:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1
