"""The in-memory cassette of a recorder, its link to the file, and usage reports."""

from __future__ import annotations

import heapq
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.atomic import write_atomically as write_atomic
from evalmark.errors import CassetteMiss, SecretFound
from evalmark.models.canonical import key_of, normalize
from evalmark.models.cassette_file import (
    Entry,
    Kind,
    RawEntry,
    encode_entry,
    join_lines,
    locked,
    materialize,
    parse_raw,
    read_raw,
)
from evalmark.models.context import current_call
from evalmark.models.miss import miss_message
from evalmark.models.modes import RecordMode, ResolvedMode
from evalmark.models.secrets import Redactor, SecretScanner

USAGE_ENV = "EVALMARK_CASSETTE_USAGE"


class CassetteUsage(msgspec.Struct, frozen=True):
    """Which entries a recorder used. ``unused`` lists the (key, sample index) of entries of this
    recorder's kind and model that no call asked for."""

    path: str
    mode: str
    replayed: int
    recorded: int
    used: tuple[tuple[str, int], ...]
    unused: tuple[tuple[str, int], ...]

    def write(self, usage_file: str | os.PathLike[str]) -> None:
        """Append the used entries to ``usage_file`` (JSON Lines, read by ``cassette prune``)."""
        append_usage(Path(usage_file), self.path, self.used)


def append_usage(usage_file: Path, cassette: str, used: Iterable[tuple[str, int]]) -> None:
    """Append ``{"cassette", "key", "index"}`` lines to a usage file, under its lock."""
    lines = b"".join(
        msgspec.json.encode({"cassette": os.path.abspath(cassette), "key": k, "index": i}) + b"\n"
        for k, i in sorted(used)
    )
    if not lines:
        return
    with locked(usage_file), open(usage_file, "ab") as handle:
        handle.write(lines)
        handle.flush()
        os.fsync(handle.fileno())


AnyEntry = Entry | RawEntry


class OnDisk:
    """The entries of a cassette file and their encoded lines, by (key, sample index)."""

    def __init__(
        self,
        entries: dict[tuple[str, int], AnyEntry] | None = None,
        lines: dict[tuple[str, int], bytes] | None = None,
    ) -> None:
        self.entries = entries if entries is not None else {}
        self.lines = lines if lines is not None else {}


class CassetteStore:
    """The in-memory cassette of one recorder, and its link to the file."""

    def __init__(
        self, path: Path, mode: ResolvedMode, redactors: Sequence[Redactor], scanner: SecretScanner
    ) -> None:
        self.path = path
        self.mode = mode
        self.redactors = tuple(redactors)
        self.scanner = scanner
        self.lock = threading.Lock()
        self.entries: dict[tuple[str, int], AnyEntry] = {}
        self.origin: dict[tuple[str, int], int] = {}
        self.counts: dict[str, int] = {}
        self.decoded: dict[tuple[str, int], Any] = {}
        self.used: set[tuple[str, int]] = set()
        self.replayed = 0
        self.recorded = 0
        self.next_index: dict[str, int] = {}
        self.free_indexes: dict[str, list[int]] = {}
        self.loaded = False
        self.existed = False
        self.replace_on_write = mode.mode is RecordMode.REWRITE
        self.last_written: tuple[bytes, OnDisk] | None = None
        self.buffering = 0
        self.pending: list[Entry] = []

    def ensure_loaded(self) -> None:
        """Read the cassette on first use (not in rewrite mode, which starts afresh)."""
        if self.loaded:
            return
        with self.lock:
            if self.loaded:
                return
            if self.mode.mode is not RecordMode.REWRITE:
                self.existed = self.path.exists()
                contents = read_raw(self.path)
                self._adopt(contents.entries)
                self.origin.update(
                    zip(((e.key, e.index) for e in contents.entries), contents.lines, strict=True)
                )
            self.loaded = True

    def _adopt(self, entries: Iterable[AnyEntry]) -> None:
        known, counts = self.entries, self.counts
        for entry in entries:
            slot = (entry.key, entry.index)
            if slot not in known:
                known[slot] = entry
                counts[entry.key] = counts.get(entry.key, 0) + 1

    def where(self, entry: AnyEntry) -> str:
        """The file and line of an entry, for messages."""
        line = self.origin.get(entry.slot)
        return f"{self.path}:{line}" if line else f"{self.path} (key {entry.key[:12]}…)"

    def full(self, entry: AnyEntry) -> Entry:
        """``entry`` with its request and response decoded."""
        if isinstance(entry, Entry):
            return entry
        return materialize(entry, self.where(entry))

    def claim(self, key: str) -> tuple[int, AnyEntry | None]:
        """The sample index of this call of ``key`` and its recording, if any (marked used)."""
        context = current_call()
        repeat = None if context is None else context.repeat
        with self.lock:
            if repeat is not None:
                index = repeat
            else:
                free = self.free_indexes.get(key)
                if free:
                    index = heapq.heappop(free)
                else:
                    index = self.next_index.get(key, 0)
                    self.next_index[key] = index + 1
            entry = self.entries.get((key, index))
            if entry is not None:
                self.used.add((key, index))
                self.replayed += 1
        return index, entry

    def give_back(self, key: str, index: int) -> None:
        """Return an unrecorded sample index so the next identical call takes it again."""
        context = current_call()
        if context is not None and context.repeat is not None:
            return
        with self.lock:
            heapq.heappush(self.free_indexes.setdefault(key, []), index)

    def lookup(self, key: str, index: int) -> AnyEntry | None:
        """The recording at (key, index), marked used, or None."""
        entry = self.entries.get((key, index))
        if entry is not None:
            with self.lock:
                self.used.add(entry.slot)
                self.replayed += 1
        return entry

    def canonical(self, normalized: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The request after the redactors, and its key."""
        for redactor in self.redactors:
            normalized = normalize(redactor(normalized))
        return normalized, key_of(normalized)

    def miss(
        self, request: dict[str, Any], key: str, index: int, *, also_missing: int = 0
    ) -> CassetteMiss:
        """The ``CassetteMiss`` for a request nothing answers, with its full explanation."""
        with self.lock:
            stored = list(self.entries.values())
            recorded = self.counts.get(key, 0)
        candidates = [self.full(entry) for entry in stored]
        message = miss_message(
            path=self.path,
            exists=self.existed,
            total_entries=len(candidates),
            mode=self.mode,
            request=request,
            key=key,
            sample_index=index,
            recorded=recorded,
            candidates=candidates,
            also_missing=also_missing,
        )
        return CassetteMiss(
            message,
            path=str(self.path),
            mode=self.mode.mode.value,
            key=key,
            sample_index=index,
            recorded=recorded,
        )

    def record(self, new: Sequence[Entry]) -> None:
        """Scan ``new``, then write it (merged into the file under its lock, atomically), or
        keep it for :meth:`flush` while writes are buffered. Replayable at once either way."""
        for entry in new:
            self._scan(entry)
        with self.lock:
            if self.buffering:
                self._adopt(new)
                self.used.update(entry.slot for entry in new)
                self.recorded += len(new)
                self.pending.extend(new)
                return
        self._write(new)
        with self.lock:
            self.used.update(entry.slot for entry in new)
            self.recorded += len(new)

    def flush(self) -> None:
        """Write the entries kept while writes were buffered."""
        with self.lock:
            batch, self.pending = self.pending, []
        if batch:
            self._write(batch)

    def _write(self, new: Sequence[Entry]) -> None:
        with locked(self.path):
            on_disk = OnDisk() if self.replace_on_write else self._read_disk()
            merged = OnDisk(dict(on_disk.entries), dict(on_disk.lines))
            for entry in new:
                if entry.slot not in merged.entries:
                    merged.entries[entry.slot] = entry
                    merged.lines[entry.slot] = encode_entry(entry)
            data = join_lines(merged.lines)
            write_atomic(self.path, data)
            self.last_written = (data, merged)
            with self.lock:
                self.replace_on_write = False
                self.existed = True
                self._adopt(new)
                self._adopt(on_disk.entries.values())

    def _read_disk(self) -> OnDisk:
        """The entries on disk; parsing is skipped when the bytes are what this store wrote."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return OnDisk()
        if self.last_written is not None and self.last_written[0] == data:
            return self.last_written[1]
        contents = parse_raw(data, str(self.path))
        with self.lock:
            for entry, line in zip(contents.entries, contents.lines, strict=True):
                self.origin.setdefault(entry.slot, line)
        return OnDisk(
            {entry.slot: entry for entry in contents.entries},
            dict(zip((entry.slot for entry in contents.entries), contents.texts, strict=True)),
        )

    def _scan(self, entry: Entry) -> None:
        where = f"an entry to cassette {self.path}"
        self.scanner.check(entry.request, "request", where=where)
        self.scanner.check(entry.response, "response", where=where)
        text = msgspec.json.encode(entry).decode("utf-8")
        hit = self.scanner.first_hit(text)
        if hit is not None:
            raise SecretFound(
                f"refusing to write {where}: the serialized entry contains what looks like a "
                f"{hit[0]} ({hit[1]}); remove it or add a redactor"
            )

    def usage(self, kind: Kind, model_id: str) -> CassetteUsage:
        """Entries used so far, and entries of ``kind`` and ``model_id`` never used."""
        with self.lock:
            used = tuple(sorted(self.used))
            unused = tuple(
                sorted(
                    slot
                    for slot, entry in self.entries.items()
                    if slot not in self.used and entry.kind == kind and model_of(entry) == model_id
                )
            )
            return CassetteUsage(
                path=str(self.path),
                mode=self.mode.mode.value,
                replayed=self.replayed,
                recorded=self.recorded,
                used=used,
                unused=unused,
            )


class _ModelOnly(msgspec.Struct):
    model: object = None


_model_decoder = msgspec.json.Decoder(_ModelOnly)


def model_of(entry: AnyEntry) -> object:
    """The model id in an entry's request, read without decoding the rest."""
    if isinstance(entry, Entry):
        return entry.request.get("model")
    try:
        return _model_decoder.decode(entry.request).model
    except msgspec.ValidationError:
        return None
