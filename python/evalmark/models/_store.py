"""The in-memory cassette of a recorder, its link to the file, and usage reports."""

from __future__ import annotations

import bisect
import hashlib
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from evalmark.errors import CassetteMiss, SecretFound
from evalmark.models._canonical import canonical_bytes, key_of, normalize
from evalmark.models._cassette_file import (
    Entry,
    Kind,
    RawEntry,
    Redaction,
    encode_entry,
    join_lines,
    locked,
    materialize,
    parse_raw,
    read_raw,
    write_cassette,
)
from evalmark.models._context import current_call
from evalmark.models._inflight import Flight, SingleFlight
from evalmark.models._miss import miss_message
from evalmark.models._modes import BeyondRecorded, RecordMode, ResolvedMode
from evalmark.models._rewrite import Generation
from evalmark.models._rewrite import join as join_rewrite
from evalmark.models._secrets import Redactor, SecretRedactor, sensitive_values

USAGE_ENV = "EVALMARK_CASSETTE_USAGE"


class CassetteUsage(msgspec.Struct, frozen=True):
    """Which entries a recorder used. ``replayed``: calls answered from the cassette, of which
    ``reused`` were answered by the ``beyond_recorded`` policy (asking for a sample index that
    was not recorded); ``recorded``: new entries. ``unused`` lists the (key, sample index) of
    entries of this recorder's kind and model that no call asked for."""

    path: str
    mode: str
    replayed: int
    recorded: int
    used: tuple[tuple[str, int], ...]
    unused: tuple[tuple[str, int], ...]
    reused: int = 0

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


class Prepared(msgspec.Struct, frozen=True):
    """A request ready to look up: canonical and redacted, its key, what was redacted from it,
    and the redactor for its reply (which also knows the call's own secrets)."""

    request: dict[str, Any]
    key: str
    redacted: tuple[Redaction, ...]
    redactor: SecretRedactor


class CassetteStore(SingleFlight[AnyEntry]):
    """The in-memory cassette of one recorder, and its link to the file."""

    def __init__(
        self,
        path: Path,
        mode: ResolvedMode,
        redactors: Sequence[Redactor],
        secrets: SecretRedactor,
        beyond: BeyondRecorded = BeyondRecorded.REPEAT,
    ) -> None:
        self.path = path
        self.mode = mode
        self.redactors = tuple(redactors)
        self.secrets = secrets
        self.beyond = beyond
        self.lock = threading.Lock()
        self.entries: dict[tuple[str, int], AnyEntry] = {}
        self.origin: dict[tuple[str, int], int] = {}
        self.samples: dict[str, list[int]] = {}
        self.decoded: dict[tuple[str, int], Any] = {}
        self.used: set[tuple[str, int]] = set()
        self.replayed = 0
        self.recorded = 0
        self.reused = 0
        self.loaded = False
        self.existed = False
        self.generation: Generation | None = None
        self.last_written: tuple[bytes, OnDisk] | None = None
        self.buffering = 0
        self.pending: list[tuple[Entry, bytes]] = []
        self.flights: dict[tuple[str, int], Flight] = {}

    def ensure_loaded(self) -> None:
        """Read the cassette on first use; in rewrite mode, join the run's rewrite instead
        (its recordings start afresh)."""
        if self.loaded:
            return
        with self.lock:
            if self.loaded:
                return
            if self.mode.mode is RecordMode.REWRITE:
                with locked(self.path):
                    self.generation = join_rewrite(self.path)
            else:
                self.existed = self.path.exists()
                contents = read_raw(self.path)
                self._adopt(contents.entries)
                self.origin.update(
                    zip(((e.key, e.index) for e in contents.entries), contents.lines, strict=True)
                )
            self.loaded = True

    def _adopt(self, entries: Iterable[AnyEntry]) -> None:
        known, samples = self.entries, self.samples
        for entry in entries:
            slot = (entry.key, entry.index)
            if slot not in known:
                known[slot] = entry
                bisect.insort(samples.setdefault(entry.key, []), entry.index)

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
        """The sample index of this call of ``key`` and the recording that answers it, if any
        (marked used).

        The index is the ``repeat`` of the call context (0 outside one, or when it sets none):
        the same call replays the same recording however often and in whatever order it is
        made. In replay mode an index beyond the recorded ones follows ``beyond``."""
        context = current_call()
        index = 0 if context is None or context.repeat is None else context.repeat
        with self.lock:
            entry = self.entries.get((key, index))
            if entry is None and self.mode.mode is RecordMode.REPLAY:
                entry = self._beyond(key, index)
                if entry is not None:
                    self.reused += 1
            if entry is not None:
                self.used.add(entry.slot)
                self.replayed += 1
        return index, entry

    def _beyond(self, key: str, index: int) -> AnyEntry | None:
        recorded = self.samples.get(key)
        if not recorded or self.beyond is BeyondRecorded.ERROR:
            return None
        if self.beyond is BeyondRecorded.CYCLE:
            chosen = recorded[index % len(recorded)]
        else:
            below = bisect.bisect_left(recorded, index)
            chosen = recorded[below - 1] if below else recorded[0]
        return self.entries.get((key, chosen))

    def kept(self, entry: Entry) -> AnyEntry:
        """The entry kept for ``entry``'s call after recording it: ``entry`` itself, or the one
        another thread or process recorded for the same call first."""
        with self.lock:
            return self.entries.get(entry.slot, entry)

    def lookup(self, key: str, index: int) -> AnyEntry | None:
        """The recording at (key, index), marked used, or None."""
        entry = self.entries.get((key, index))
        if entry is not None:
            with self.lock:
                self.used.add(entry.slot)
                self.replayed += 1
        return entry

    def user_redacted(self, normalized: dict[str, Any]) -> dict[str, Any]:
        """The request after the user's redactors (``record_replay(redact=...)``)."""
        for redactor in self.redactors:
            normalized = normalize(redactor(normalized))
        return normalized

    def prepare(self, normalized: dict[str, Any], call_params: Mapping[str, Any]) -> Prepared:
        """The request after the secret redactor, and its key. ``normalized`` has been through
        :meth:`user_redacted`.

        ``call_params``: the parameters of this call (transport settings included): values
        under credential names among them are also searched for in the reply."""
        secrets = self.secrets
        if call_params:
            secrets = secrets.with_values(sensitive_values(call_params))
        data = canonical_bytes(normalized)
        if secrets.clean(data, normalized):
            return Prepared(normalized, hashlib.sha256(data).hexdigest(), (), secrets)
        redacted, found = secrets.redact(normalized, "request")
        if any(redaction.reason == "field name" for redaction in found):
            secrets = secrets.with_values(sensitive_values(normalized))
        return Prepared(redacted, key_of(redacted), tuple(found), secrets)

    def miss(
        self, request: dict[str, Any], key: str, index: int, *, also_missing: int = 0
    ) -> CassetteMiss:
        """The ``CassetteMiss`` for a request nothing answers, with its full explanation."""
        with self.lock:
            stored = list(self.entries.values())
            recorded = len(self.samples.get(key, ()))
            indexes = tuple(self.samples.get(key, ()))
        candidates = [self.full(entry) for entry in stored]
        message = miss_message(
            path=self.path,
            exists=self.existed,
            total_entries=len(candidates),
            mode=self.mode,
            request=request,
            key=key,
            sample_index=index,
            recorded=indexes,
            beyond=self.beyond,
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

    def record(self, new: Sequence[Entry], secrets: SecretRedactor | None = None) -> None:
        """Check ``new`` holds no known secret, then write it (merged into the file under its
        lock, atomically), or keep it for :meth:`flush` while writes are buffered. Replayable
        at once either way."""
        lines = [self._line(entry, secrets or self.secrets) for entry in new]
        with self.lock:
            if self.buffering:
                self._adopt(new)
                self.used.update(entry.slot for entry in new)
                self.recorded += len(new)
                self.pending.extend(zip(new, lines, strict=True))
                return
        self._write(list(zip(new, lines, strict=True)))
        with self.lock:
            self.used.update(entry.slot for entry in new)
            self.recorded += len(new)

    def flush(self) -> None:
        """Write the entries kept while writes were buffered."""
        with self.lock:
            batch, self.pending = self.pending, []
        if batch:
            self._write(batch)

    def _write(self, new: Sequence[tuple[Entry, bytes]]) -> None:
        with locked(self.path):
            replace = self.generation is not None and self.generation.replaces_file()
            on_disk = OnDisk() if replace else self._read_disk()
            merged = OnDisk(dict(on_disk.entries), dict(on_disk.lines))
            for entry, line in new:
                if entry.slot not in merged.entries:
                    merged.entries[entry.slot] = entry
                    merged.lines[entry.slot] = line
            data = join_lines(merged.lines)
            write_cassette(self.path, data)
            self.last_written = (data, merged)
            with self.lock:
                self.existed = True
                # Where another writer recorded the same call first, its entry is the one kept.
                self._adopt(merged.entries[entry.slot] for entry, _ in new)
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

    def _line(self, entry: Entry, secrets: SecretRedactor) -> bytes:
        line = encode_entry(entry)
        leak = secrets.leak(line)
        if leak is not None:
            raise SecretFound(
                f"refusing to write an entry to cassette {self.path}: after redaction it still "
                f"holds a {leak}; redact it with record_replay(..., redact=[...]) or remove it"
            )
        return line

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
                reused=self.reused,
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
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
