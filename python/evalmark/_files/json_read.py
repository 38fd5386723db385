"""Reading JSON and JSON Lines: records with lazily found positions, decode errors worded with
their line and column, data nested too deeply located at its deepest point, and the numbered
lines of a JSON Lines stream in batches for readers that stream."""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any, BinaryIO

import msgspec

from evalmark._files.located import VALUE, Locator, PathKey, RawRecord, matches_text_key, norm_key
from evalmark._files.problems import describe_value, raise_problems
from evalmark._files.source import (
    BOM,
    LineIndex,
    Position,
    decode_text,
    line_col_of_byte,
    strip_bom,
)
from evalmark.errors import DataFileError, Problem

__all__ = [
    "LineTooLargeError",
    "decode_problem",
    "jsonl_batches",
    "nesting_problem",
    "read_json",
    "read_jsonl",
]

_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
_JSON_HINTS = (
    ("trailing comma", "JSON allows no comma before '}' or ']'"),
    ("truncated", "the JSON ends too early: a bracket, brace or quote is not closed"),
    (
        "control character",
        "a string holds a raw control character; write it escaped (\\n, \\u0000)",
    ),
    ("invalid character", "strings need double quotes; keys must be quoted"),
    (
        "integer value out of range",
        "integers must fit in 64 bits; write a longer one as a string",
    ),
)
_GENERIC_JSON = msgspec.json.Decoder(float_hook=Decimal)
# A string (skipped), or an integer beyond 64 bits (group 1).
_LONG_INTEGER = re.compile(rb'"(?:[^"\\]|\\.)*"|(-?\d{20,})(?![\d.eE])', re.DOTALL)


def decode_problem(
    exc: msgspec.DecodeError, data: bytes, path: str, line_offset: int = 0
) -> Problem:
    """A msgspec decode error as a problem at its line and column, with a hint."""
    text = str(exc)
    match = _BYTE_OFFSET.search(text)
    offset = int(match.group(1)) if match else len(data)
    reason = _BYTE_OFFSET.sub("", text.removeprefix("JSON is malformed: ")).strip()
    if "out of range" in reason:  # msgspec gives no offset: find the number
        offset = next((m.start() for m in _LONG_INTEGER.finditer(data) if m.group(1)), offset)
        reason = reason.split(" - at ")[0]
    line, column = line_col_of_byte(data, offset)
    if "utf-8" in reason.lower():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            line, column = line_col_of_byte(data, bad.start)
            offset = bad.start
        reason = "a byte that is not UTF-8; save the file as UTF-8"
    elif offset < len(data) and data[offset] < 0x20 and data[offset] not in b"\t\n\r":
        reason = f"control character U+{data[offset]:04X} ({reason})"
    message = "malformed JSON: " + reason
    for needle, hint in _JSON_HINTS:
        if needle in message.lower():
            message += f"; {hint}"
            break
    return Problem(message, path=path, line=line + line_offset, column=column)


def nesting_problem(data: bytes, path: str, line_offset: int = 0) -> Problem:
    """The problem for JSON nested deeper than can be read, placed at its deepest point."""
    depth, offset = _deepest(data)
    line, column = line_col_of_byte(data, offset)
    return Problem(
        f"the data is nested too deeply to read ({depth:,} levels here); flatten it, or keep "
        "the nested part as a JSON string",
        path=path,
        line=line + line_offset,
        column=column,
    )


_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _deepest(data: bytes) -> tuple[int, int]:
    depth = deepest = at = 0
    for match in _STRUCTURE.finditer(data):
        char = data[match.start()]
        if char in b"[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, match.start()
        elif char in b"]}":
            depth -= 1
    return deepest, at


def _floats_except(value: Any, keep: frozenset[PathKey]) -> Any:
    """Turn the Decimals of an exact parse back into floats, except at the ``keep`` paths.

    Iterative, so data nested as deep as the decoder reads never overflows the stack.
    """
    holder = [value]
    stack: list[tuple[Any, Any, PathKey]] = [(holder, 0, ())]
    while stack:
        parent, slot, where = stack.pop()
        item = parent[slot]
        if isinstance(item, Decimal):
            if not (keep and matches_text_key(where, keep)):
                parent[slot] = float(item)
        elif isinstance(item, dict):
            stack.extend(
                (item, key, (*where, norm_key(key) if isinstance(key, str) else key))
                for key in item
            )
        elif isinstance(item, list):
            stack.extend((item, i, (*where, i)) for i in range(len(item)))
    return holder[0]


def read_json(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse a JSON list of records; numbers under ``text_keys`` keep their exact value."""
    data = strip_bom(data)
    if not data.strip():
        raise error([Problem("the file is empty: write a JSON list of records", path=path)])
    try:
        value = _GENERIC_JSON.decode(data)
    except msgspec.DecodeError as exc:
        decode_text(data, path, error)
        raise error([decode_problem(exc, data, path)]) from None
    except RecursionError:
        raise error([nesting_problem(data, path)]) from None
    text = data.decode("utf-8")
    if not isinstance(value, list):
        hint = "wrap the records in [ ... ]"
        if isinstance(value, dict) and len(value) == 1:
            hint = f"write the list under '{next(iter(value))}' at the top level"
        raise error(
            [
                Problem(
                    f"expected a JSON list of records, found {describe_value(value)}; {hint}",
                    path=path,
                    line=1,
                )
            ]
        )
    locator = _JsonLocator(text)
    return [
        RawRecord(_floats_except(item, text_keys), i, locator=locator)
        for i, item in enumerate(value)
    ]


def read_jsonl(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse JSON Lines: one record per non-blank line."""
    decode_text(strip_bom(data), path, error)
    records: list[RawRecord] = []
    problems: list[Problem] = []
    for lines, texts in jsonl_batches(io.BytesIO(data), 1 << 62):
        for number, raw in zip(lines, texts, strict=True):
            line_bytes = raw.rstrip(b"\r\n")
            try:
                value = _GENERIC_JSON.decode(line_bytes)
            except msgspec.DecodeError as exc:
                problems.append(_jsonl_problem(exc, line_bytes, path, number, first=not records))
                continue
            except RecursionError:
                problems.append(nesting_problem(line_bytes, path, number - 1))
                continue
            locator = _jsonl_locator(line_bytes.decode("utf-8"), number)
            records.append(
                RawRecord(
                    _floats_except(value, text_keys), len(records), (number, 1), None, locator
                )
            )
    raise_problems(problems, error)
    if not records:
        raise error([Problem("the file is empty: write one JSON record per line", path=path)])
    return records


def _jsonl_problem(
    exc: msgspec.DecodeError, line_bytes: bytes, path: str, number: int, *, first: bool
) -> Problem:
    problem = decode_problem(exc, line_bytes, path, number - 1)
    if first and line_bytes.strip() in (b"[", b"{"):
        problem = Problem(
            problem.message + "; each line of a JSON Lines file must hold one whole record "
            "(a pretty-printed JSON list belongs in a .json file)",
            path=path,
            line=number,
            column=problem.column,
        )
    return problem


class LineTooLargeError(MemoryError):
    """A line of a JSON Lines stream did not fit in the memory the process may use; ``line``
    is its 1-based number."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line} is too large to read in the memory available")
        self.line = line


def _read_lines(stream: BinaryIO, size: int, max_bytes: int | None, first_line: int) -> list[bytes]:
    """Up to ``size`` lines, and no more once ``max_bytes`` are read (at least one line)."""
    if max_bytes is None:
        return list(itertools.islice(stream, size))
    lines: list[bytes] = []
    total = 0
    try:
        for raw in stream:
            lines.append(raw)
            total += len(raw)
            if len(lines) >= size or total >= max_bytes:
                break
    except MemoryError:
        raise LineTooLargeError(first_line + len(lines)) from None
    return lines


def jsonl_batches(
    stream: BinaryIO, size: int, max_bytes: int | None = None, *, first_size: int | None = None
) -> Iterator[tuple[Sequence[int], list[bytes]]]:
    """The non-blank lines of a JSON Lines stream, ``size`` lines read at a time (fewer once
    ``max_bytes`` are read, so wide lines make small batches), with their 1-based line
    numbers; a leading byte order mark is dropped. A line that does not fit in memory is a
    :class:`LineTooLargeError` naming it (with ``max_bytes``). With ``first_size``, the first
    read is of that many lines, and each next one four times the last, up to ``size``: a
    consumer gets to work sooner."""
    next_line = 1
    first = True
    now = size if first_size is None else max(1, min(size, first_size))
    while True:
        raw_lines = _read_lines(stream, now, max_bytes, next_line)
        now = min(size, now * 4)
        if not raw_lines:
            return
        if first:
            raw_lines[0] = raw_lines[0].removeprefix(BOM)
            first = False
        if all(raw_lines) and not any(map(bytes.isspace, raw_lines)):  # no blank line: in C
            texts = raw_lines
        else:
            texts = [raw for raw in raw_lines if raw and not raw.isspace()]
        lines: Sequence[int]
        if len(texts) == len(raw_lines):
            lines = range(next_line, next_line + len(raw_lines))
        else:
            numbered = enumerate(raw_lines, start=next_line)
            lines = [number for number, raw in numbered if raw and not raw.isspace()]
        next_line += len(raw_lines)
        if texts:
            yield lines, texts


# --------------------------------------------------------------------------- positions


class _JsonLocator:
    """Finds where the items of a JSON list start, scanning the text once, when first asked."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._found: list[tuple[Position, dict[PathKey, Position]]] | None = None

    def __call__(self, index: int) -> tuple[Position, dict[PathKey, Position]]:
        if self._found is None:
            lines = LineIndex(self._text)
            offsets = _scan(self._text)
            items: dict[int, dict[PathKey, Position]] = {}
            for key, offset in offsets.items():
                if key:
                    items.setdefault(int(key[0]), {})[key[1:]] = lines(offset)
            self._found = [(items[i][()], items[i]) for i in range(len(items)) if () in items[i]]
        return self._found[index]


def _jsonl_locator(text: str, number: int) -> Locator:
    def locate(index: int) -> tuple[Position, dict[PathKey, Position]]:
        lines = LineIndex(text)
        found = {}
        for key, offset in _scan(text).items():
            line, column = lines(offset)
            found[key] = (number + line - 1, column)
        return (number, 1), found

    return locate


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)


def _scan(text: str) -> dict[PathKey, int]:
    """The offset of the first JSON value in ``text`` and of every key and value inside it,
    by path (a key's value under the key's path plus ``VALUE``). The text is valid JSON."""
    found: dict[PathKey, int] = {}
    # One frame per open container: its path, whether it is an object, and the path of the
    # next value (objects: set by the key just read) or the next index (arrays).
    frames: list[list[Any]] = []
    for match in _TOKEN.finditer(text):
        token, at = match.group(), match.start()
        first = token[0]
        if first in ",:":
            continue
        if first in "]}":
            frames.pop()
            if not frames:
                return found
            continue
        if frames and frames[-1][1] and frames[-1][2] is None:  # a key
            frame = frames[-1]
            key = json.loads(token)
            frame[2] = (*frame[0], norm_key(key) if isinstance(key, str) else key)
            found.setdefault(frame[2], at)
            continue
        if not frames:
            where: PathKey = ()
        elif frames[-1][1]:
            frame = frames[-1]
            where, frame[2] = frame[2], None
            found.setdefault((*where, VALUE), at)
        else:
            frame = frames[-1]
            where = (*frame[0], frame[2])
            frame[2] += 1
        found.setdefault(where, at)
        if first == "{":
            frames.append([where, True, None])
        elif first == "[":
            frames.append([where, False, 0])
        elif not frames:
            return found
    return found
