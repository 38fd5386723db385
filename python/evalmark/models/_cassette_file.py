"""The cassette file: reading, validating and atomically writing the JSON Lines format.

Line 1 is the header ``{"format":"evalmark-cassette","version":1,"key_version":1}``; every
other line is one entry ``{"key","kind","index","request","response"}``, sorted by key then
sample index, with ``"redacted": [{"path", "reason"}, ...]`` after them when secrets were
removed from it before writing. Files are UTF-8 (a leading byte order mark is accepted) and end
with a newline. JSON nested more than :data:`MAX_DEPTH` levels is refused, on reading and on
writing, so every tool that walks an entry stays within Python's recursion limit.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import msgspec

from evalmark._files.atomic import write_atomically
from evalmark._files.text import without_surrogates
from evalmark.errors import CassetteFormatError
from evalmark.models._canonical import KEY_VERSION, MAX_DEPTH, too_deep

FORMAT_NAME = "evalmark-cassette"
FORMAT_VERSION = 1

Kind = Literal["chat", "embedding"]


class Header(msgspec.Struct, frozen=True):
    """The first line of a cassette."""

    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    key_version: int = KEY_VERSION


class Redaction(msgspec.Struct, frozen=True):
    """Where a secret was removed from an entry (``request.params.extra_body.api_key``) and
    why (``field name``, ``configured secret``, or the pattern's label)."""

    path: str
    reason: str


class Entry(msgspec.Struct, frozen=True, omit_defaults=True):
    """One recorded call: its key, kind, sample index, canonical request and response, and
    the places secrets were redacted from them (none: not written)."""

    key: str
    kind: Kind
    index: int
    request: dict[str, Any]
    response: dict[str, Any]
    redacted: tuple[Redaction, ...] = ()

    @property
    def slot(self) -> tuple[str, int]:
        """(key, sample index): what identifies an entry."""
        return (self.key, self.index)


class CassetteContents(msgspec.Struct, frozen=True):
    """A parsed cassette: entries in file order, with the line number of each."""

    path: str
    entries: tuple[Entry, ...]
    lines: tuple[int, ...]


class RawEntry(msgspec.Struct, frozen=True):
    """An entry as loaded: key, kind and index parsed; request and response kept as JSON text
    (checked well-formed) until someone needs them (see :func:`materialize`, which also checks
    their depth). Loading stays fast for large cassettes."""

    key: str
    kind: Kind
    index: int
    request: msgspec.Raw
    response: msgspec.Raw
    redacted: tuple[Redaction, ...] = ()

    @property
    def slot(self) -> tuple[str, int]:
        """(key, sample index): what identifies an entry."""
        return (self.key, self.index)


class RawContents(msgspec.Struct, frozen=True):
    """A cassette parsed lazily: entries, their line numbers and their line bytes."""

    path: str
    entries: tuple[RawEntry, ...]
    lines: tuple[int, ...]
    texts: tuple[bytes, ...]


_raw_decoder = msgspec.json.Decoder(RawEntry)
_object_decoder = msgspec.json.Decoder(dict[str, Any])
# "deterministic" sorts dict keys at every depth and keeps the entry fields in declared order.
_encoder = msgspec.json.Encoder(order="deterministic")


def read_cassette(path: Path) -> CassetteContents:
    """Read and validate a cassette. A missing or empty file is an empty cassette.

    Raises ``CassetteFormatError`` naming the file and line of a corrupt or truncated line, a
    duplicate entry, a git conflict marker, or an unknown format or key version.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return CassetteContents(path=str(path), entries=(), lines=())
    return parse_cassette(data, str(path))


def read_raw(path: Path) -> RawContents:
    """Read a cassette lazily (see :class:`RawEntry`); a missing file is an empty cassette."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return RawContents(path=str(path), entries=(), lines=(), texts=())
    return parse_raw(data, str(path))


def parse_cassette(data: bytes, where: str) -> CassetteContents:
    """Parse and fully validate cassette bytes; ``where`` names the source in error messages."""
    raw = parse_raw(data, where)
    entries = tuple(
        materialize(entry, f"{where}:{line}")
        for entry, line in zip(raw.entries, raw.lines, strict=True)
    )
    return CassetteContents(path=where, entries=entries, lines=raw.lines)


def materialize(raw: RawEntry, where: str) -> Entry:
    """The full ``Entry`` of a lazily loaded one; ``where`` is its file and line."""
    parts: list[dict[str, Any]] = []
    for name, text in (("request", raw.request), ("response", raw.response)):
        check_depth(text, where)
        try:
            parts.append(_object_decoder.decode(text))
        except msgspec.ValidationError:
            raise CassetteFormatError(
                f"{where}: invalid cassette entry: the {name} must be a JSON object"
            ) from None
        except (msgspec.DecodeError, RecursionError) as exc:
            raise CassetteFormatError(f"{where}: invalid cassette entry: {exc}") from None
    return Entry(raw.key, raw.kind, raw.index, parts[0], parts[1], raw.redacted)


def parse_raw(data: bytes, where: str) -> RawContents:
    """Parse cassette bytes lazily: header, entry keys and indexes, well-formed JSON."""
    data = data.removeprefix(_BOM)
    _check_utf8(data, where)
    raw_lines = data.split(b"\n")
    truncated = bool(data) and not data.endswith(b"\n")
    numbered = [
        (number, line)
        for number, line in enumerate(raw_lines, 1)
        if line and (line[0] not in _BLANK or line.strip())
    ]
    if not numbered:
        return RawContents(path=where, entries=(), lines=(), texts=())
    _check_header(numbered[0][1], where, numbered[0][0])
    entries: list[RawEntry] = []
    lines: list[int] = []
    texts: list[bytes] = []
    seen: dict[tuple[str, int], int] = {}
    last_number = numbered[-1][0]
    for number, line in numbered[1:]:
        entry = _decode_entry(line, where, number, truncated and number == last_number)
        slot = (entry.key, entry.index)
        first = seen.setdefault(slot, number)
        if first != number:
            raise CassetteFormatError(
                f"{where}:{number}: duplicate entry for key {entry.key[:12]}… sample "
                f"{entry.index} (first at line {first}); keep one of the two lines"
            )
        entries.append(entry)
        lines.append(number)
        texts.append(line[:-1] if line[-1] == 0x0D else line)
    return RawContents(path=where, entries=tuple(entries), lines=tuple(lines), texts=tuple(texts))


_BLANK = frozenset(b" \t\r")
_BOM = b"\xef\xbb\xbf"


def _check_utf8(data: bytes, where: str) -> None:
    if data.isascii():
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CassetteFormatError(
            f"{where}:{line}: not UTF-8 (byte {data[exc.start]:#04x} at column {column}); "
            "cassettes are UTF-8 text: re-record the entry or fix the file's encoding"
        ) from None


def _check_header(line: bytes, where: str, number: int) -> None:
    try:
        if too_deep(line, MAX_DEPTH):
            raise msgspec.DecodeError("nested too deeply")
        header = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise CassetteFormatError(
            f"{where}:{number}: the header line is not valid JSON ({exc}); "
            "this does not look like an evalmark cassette"
        ) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise CassetteFormatError(
            f"{where}:{number}: not an evalmark cassette (the first line must be a header with "
            f'"format": "{FORMAT_NAME}")'
        )
    version = header.get("version")
    if version != FORMAT_VERSION:
        raise CassetteFormatError(
            f"{where}:{number}: cassette format version {version!r} is unknown to this evalmark, "
            f"which reads version {FORMAT_VERSION}; upgrade evalmark (or re-record the cassette "
            "with this one)"
        )
    key_version = header.get("key_version")
    if key_version != KEY_VERSION:
        raise CassetteFormatError(
            f"{where}:{number}: cassette key version {key_version!r} is unknown to this "
            f"evalmark, which computes key version {KEY_VERSION}; its keys would never match. "
            "Upgrade evalmark or re-record with mode 'rewrite'"
        )


def _too_deep(where: str) -> CassetteFormatError:
    return CassetteFormatError(
        f"{where}: the entry is nested more than {MAX_DEPTH} levels deep; no model request "
        "needs that, so the line is corrupt or hostile: delete it"
    )


def check_depth(text: bytes | msgspec.Raw, where: str) -> None:
    """Raise ``CassetteFormatError`` when a request or response is nested more than
    :data:`MAX_DEPTH` levels deep. Checked where an entry's JSON becomes Python values (so
    nothing that walks them nears the recursion limit), not when a cassette is loaded."""
    if too_deep(text if isinstance(text, bytes) else bytes(text), MAX_DEPTH):
        raise _too_deep(where)


def _decode_entry(line: bytes, where: str, number: int, last_unterminated: bool) -> RawEntry:
    try:
        entry = _raw_decoder.decode(line)
    except RecursionError:  # far deeper than MAX_DEPTH: the decoder itself gave up
        raise _too_deep(f"{where}:{number}") from None
    except msgspec.ValidationError as exc:
        raise CassetteFormatError(f"{where}:{number}: invalid cassette entry: {exc}") from None
    except msgspec.DecodeError as exc:
        if line.startswith((b"<<<<<<<", b"=======", b">>>>>>>")):
            raise CassetteFormatError(
                f"{where}:{number}: git conflict marker; resolve the merge by keeping the entry "
                "lines of both sides (then run `evalmark cassette verify`)"
            ) from None
        hint = (
            "the file is truncated (its last line has no newline); re-record it or delete that line"
            if last_unterminated
            else "the line is corrupt; fix or delete it, then run `evalmark cassette verify`"
        )
        raise CassetteFormatError(f"{where}:{number}: not valid JSON ({exc}): {hint}") from None
    if entry.index < 0:
        raise CassetteFormatError(f"{where}:{number}: negative sample index {entry.index}")
    return entry


def encode_entry(entry: Entry) -> bytes:
    """One entry line, without its newline. Raises ``ValueError`` for an entry nested more
    than :data:`MAX_DEPTH` levels deep (no reader would accept it)."""
    try:
        line = _encoder.encode(entry)
    except UnicodeEncodeError:  # a lone surrogate: kept, written as \udcff
        plain = without_surrogates(msgspec.to_builtins(entry))
        line = _encoder.encode(msgspec.convert(plain, type(entry)))
    if too_deep(line, MAX_DEPTH + 1):
        raise ValueError(
            f"refusing to record a {entry.kind} call nested more than {MAX_DEPTH} levels deep"
        )
    return line


def join_lines(lines: Mapping[tuple[str, int], bytes]) -> bytes:
    """The bytes of a cassette from encoded entry lines keyed by (key, sample index)."""
    parts = [_encoder.encode(Header())]
    parts.extend(lines[slot] for slot in sorted(lines))
    return b"\n".join(parts) + b"\n"


def serialize(entries: Iterable[Entry]) -> bytes:
    """The bytes of a cassette holding ``entries`` (sorted by key, then sample index)."""
    return join_lines({entry.slot: encode_entry(entry) for entry in entries})


def write_cassette(path: Path, data: bytes) -> None:
    """Replace the cassette at ``path`` with ``data`` atomically, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data)


_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    name = os.path.abspath(path)
    with _thread_locks_guard:
        return _thread_locks.setdefault(name, threading.Lock())


def lock_path(path: Path) -> Path:
    """The lock file guarding ``path`` (``<name>.lock`` next to it; safe to git-ignore)."""
    return path.with_name(path.name + ".lock")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the cassette's lock, against other threads and other processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _thread_lock(path):
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock_fd(fd)
            try:
                yield
            finally:
                _unlock_fd(fd)
        finally:
            os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt
    import time

    def _lock_fd(fd: int) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                time.sleep(0.05)

    def _unlock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
