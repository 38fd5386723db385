"""``record_replay``: wrap a chat or embedding model so its calls are recorded and replayed."""

from __future__ import annotations

import asyncio
import atexit
import base64
import heapq
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, overload

import msgspec
import numpy as np

from evalmark.models.canonical import chat_request, embedding_request, key_of, normalize
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
    write_atomic,
)
from evalmark.models.context import current_call
from evalmark.models.errors import CassetteFormatError, CassetteMiss, SecretFound
from evalmark.models.miss import miss_message
from evalmark.models.modes import RecordMode, ResolvedMode, resolve_mode
from evalmark.models.protocols import (
    ChatModel,
    EmbeddingModel,
    FloatArray,
    achat_of,
    aembed_of,
    as_embedding_rows,
    default_params_of,
    model_id_of,
)
from evalmark.models.secrets import Redactor, SecretScanner
from evalmark.models.values import ChatReply, MessageLike, message_dicts, reply_from

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


class _OnDisk:
    """The entries of a cassette file and their encoded lines, by (key, sample index)."""

    def __init__(
        self,
        entries: dict[tuple[str, int], AnyEntry] | None = None,
        lines: dict[tuple[str, int], bytes] | None = None,
    ) -> None:
        self.entries = entries if entries is not None else {}
        self.lines = lines if lines is not None else {}


class _Store:
    """The in-memory cassette of one recorder, and its link to the file."""

    def __init__(
        self,
        path: Path,
        mode: ResolvedMode,
        redactors: Sequence[Redactor],
        scanner: SecretScanner,
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
        self.last_written: tuple[bytes, _OnDisk] | None = None
        self.buffering = 0
        self.pending: list[Entry] = []

    def ensure_loaded(self) -> None:
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
            on_disk = _OnDisk() if self.replace_on_write else self._read_disk()
            merged = _OnDisk(dict(on_disk.entries), dict(on_disk.lines))
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

    def _read_disk(self) -> _OnDisk:
        """The entries on disk; parsing is skipped when the bytes are what this store wrote."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return _OnDisk()
        if self.last_written is not None and self.last_written[0] == data:
            return self.last_written[1]
        contents = parse_raw(data, str(self.path))
        with self.lock:
            for entry, line in zip(contents.entries, contents.lines, strict=True):
                self.origin.setdefault(entry.slot, line)
        return _OnDisk(
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
        with self.lock:
            used = tuple(sorted(self.used))
            unused = tuple(
                sorted(
                    slot
                    for slot, entry in self.entries.items()
                    if slot not in self.used and entry.kind == kind and _model_of(entry) == model_id
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


_reply_decoder = msgspec.json.Decoder(ChatReply)


class _ModelOnly(msgspec.Struct):
    model: object = None


_model_decoder = msgspec.json.Decoder(_ModelOnly)


def _model_of(entry: AnyEntry) -> object:
    if isinstance(entry, Entry):
        return entry.request.get("model")
    try:
        return _model_decoder.decode(entry.request).model
    except msgspec.ValidationError:
        return None


class _Recorder:
    """What chat and embedding recorders share: the store, the mode, the usage report."""

    _kind: Kind

    def __init__(
        self,
        model: Any,
        cassette: str | os.PathLike[str],
        mode: str | RecordMode | None,
        *,
        model_id: str | None,
        redact: Sequence[Redactor],
        secret_patterns: Sequence[str],
    ) -> None:
        self.model = model
        self.model_id = model_id or model_id_of(model)
        self._defaults = default_params_of(model)
        self._resolved = resolve_mode(mode)
        self._store = _Store(
            Path(os.path.abspath(cassette)), self._resolved, redact, SecretScanner(secret_patterns)
        )
        usage_file = os.environ.get(USAGE_ENV)
        if usage_file and self._resolved.mode is not RecordMode.OFF:
            atexit.register(self._write_usage_at_exit, Path(usage_file))

    @property
    def default_params(self) -> Mapping[str, Any]:
        """The wrapped model's default parameters."""
        return dict(self._defaults)

    @property
    def cassette(self) -> Path:
        """The cassette file."""
        return self._store.path

    @property
    def mode(self) -> RecordMode:
        """The mode in force (after the argument, ``CI`` and ``EVALMARK_RECORD_MODE``)."""
        return self._resolved.mode

    @property
    def mode_source(self) -> str:
        """Where the mode came from, in words."""
        return self._resolved.source

    def usage(self) -> CassetteUsage:
        """Entries used so far, and entries of this kind and model never used."""
        self._store.ensure_loaded()
        return self._store.usage(self._kind, self.model_id)

    @contextmanager
    def buffered(self) -> Iterator[None]:
        """Keep new recordings in memory inside the ``with`` block and write them in one go at
        its end (also when it ends with an error). Much faster for recording many calls from a
        fast model; a crash inside the block loses what it recorded. Blocks may nest; the
        outermost one writes."""
        store = self._store
        with store.lock:
            store.buffering += 1
        try:
            yield
        finally:
            with store.lock:
                store.buffering -= 1
                outermost = store.buffering == 0
            if outermost:
                store.flush()

    def reset_counters(self) -> None:
        """Start counting identical calls from sample index 0 again (e.g. per test)."""
        with self._store.lock:
            self._store.next_index.clear()
            self._store.free_indexes.clear()

    def _write_usage_at_exit(self, usage_file: Path) -> None:
        if not self._store.loaded:
            return
        usage = self.usage()
        append_usage(usage_file, usage.path, usage.used)


class RecordedChat(_Recorder):
    """A chat model that answers from a cassette and records what it misses (by mode).

    A reply's ``metadata`` is not recorded; a recorded call returns the reply as stored, so a
    recording run and a replaying run see equal replies. Errors raised by the real model and
    refused replies (``ChatReply.refused``) are returned or raised but never recorded.
    """

    _kind: Kind = "chat"

    def _prepare(
        self, messages: Sequence[MessageLike], params: Mapping[str, Any]
    ) -> tuple[dict[str, Any], str, int, ChatReply | None]:
        store = self._store
        store.ensure_loaded()
        request = chat_request(self.model_id, message_dicts(messages), {**self._defaults, **params})
        request, key = store.canonical(request)
        index, entry = store.claim(key)
        if entry is not None:
            return request, key, index, self._decode(entry)
        if store.mode.mode is RecordMode.REPLAY:
            store.give_back(key, index)
            raise store.miss(request, key, index)
        return request, key, index, None

    def _decode(self, entry: AnyEntry) -> ChatReply:
        cached = self._store.decoded.get(entry.slot)
        if cached is None:
            try:
                if isinstance(entry, RawEntry):
                    cached = _reply_decoder.decode(entry.response)
                else:
                    cached = msgspec.convert(entry.response, ChatReply)
            except msgspec.ValidationError as exc:
                raise CassetteFormatError(
                    f"{self._store.where(entry)}: invalid chat response: {exc}"
                ) from None
            self._store.decoded[entry.slot] = cached
        reply: ChatReply = cached
        return reply

    def _entry(self, request: dict[str, Any], key: str, index: int, reply: ChatReply) -> Entry:
        stored = msgspec.structs.replace(reply, metadata={})
        return Entry(key, "chat", index, request, msgspec.to_builtins(stored))

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Replay the recorded answer, or (by mode) call the real model and record it."""
        if self.mode is RecordMode.OFF:
            reply: ChatReply = self.model.chat(messages, **params)
            return reply
        request, key, index, replayed = self._prepare(messages, params)
        if replayed is not None:
            return replayed
        try:
            reply = reply_from(self.model.chat(messages, **params), source=self.model_id)
            if reply.refused:
                self._store.give_back(key, index)
                return reply
            entry = self._entry(request, key, index, reply)
            self._store.record([entry])
        except BaseException:
            self._store.give_back(key, index)
            raise
        return self._decode(entry)

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Async :meth:`chat`: the real model's ``achat`` is awaited and the write runs in a
        worker thread."""
        if self.mode is RecordMode.OFF:
            return await achat_of(self.model, messages, **params)
        request, key, index, replayed = self._prepare(messages, params)
        if replayed is not None:
            return replayed
        try:
            reply = reply_from(await achat_of(self.model, messages, **params), source=self.model_id)
            if reply.refused:
                self._store.give_back(key, index)
                return reply
            entry = self._entry(request, key, index, reply)
            await asyncio.to_thread(self._store.record, [entry])
        except BaseException:
            self._store.give_back(key, index)
            raise
        return self._decode(entry)


def encode_vector(row: FloatArray) -> dict[str, Any]:
    """A vector as stored: little-endian float32 bytes in base64, with the shape."""
    data = np.ascontiguousarray(row, dtype="<f4")
    return {
        "dtype": "float32-le",
        "shape": list(data.shape),
        "base64": base64.b64encode(data.tobytes()).decode("ascii"),
    }


def decode_vector(response: Mapping[str, Any], where: str) -> FloatArray:
    """The float32 vector of a stored embedding response, bit for bit."""
    try:
        shape = tuple(int(n) for n in response["shape"])
        raw = base64.b64decode(response["base64"], validate=True)
        if response.get("dtype") != "float32-le":
            raise ValueError(f"unknown dtype {response.get('dtype')!r}")
        vector = np.frombuffer(raw, dtype="<f4").reshape(shape)
    except (KeyError, TypeError, ValueError) as exc:
        raise CassetteFormatError(f"{where}: invalid embedding response: {exc}") from None
    return vector.astype(np.float32)


class RecordedEmbedding(_Recorder):
    """An embedding model that answers from a cassette, one entry per text (batching free).

    Embeddings are a function of their input, so every text has one recording (sample index 0)
    and repeated texts replay it.
    """

    _kind: Kind = "embedding"

    def _plan(
        self, texts: Sequence[str]
    ) -> tuple[list[FloatArray | None], dict[str, tuple[dict[str, Any], str, list[int]]]]:
        store = self._store
        store.ensure_loaded()
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, got a single string; wrap it")
        rows: list[FloatArray | None] = []
        missing: dict[str, tuple[dict[str, Any], str, list[int]]] = {}
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{position}] is a {type(text).__name__}, not a str")
            request, key = store.canonical(embedding_request(self.model_id, text, self._defaults))
            entry = store.lookup(key, 0)
            if entry is not None:
                rows.append(self._decode(entry))
                continue
            rows.append(None)
            missing.setdefault(key, (request, text, []))[2].append(position)
        if missing and store.mode.mode is RecordMode.REPLAY:
            key, (request, _, _) = next(iter(missing.items()))
            raise store.miss(request, key, 0, also_missing=len(missing) - 1)
        return rows, missing

    def _decode(self, entry: AnyEntry) -> FloatArray:
        cached = self._store.decoded.get(entry.slot)
        if cached is None:
            full = self._store.full(entry)
            cached = decode_vector(full.response, self._store.where(entry))
            cached.flags.writeable = False
            self._store.decoded[entry.slot] = cached
        vector: FloatArray = cached
        return vector

    def _fill(
        self,
        rows: list[FloatArray | None],
        missing: dict[str, tuple[dict[str, Any], str, list[int]]],
        fresh: object,
    ) -> list[Entry]:
        fresh_rows = as_embedding_rows(fresh, len(missing), source=f"{self.model_id}.embed")
        entries: list[Entry] = []
        for (key, (request, _, positions)), row in zip(missing.items(), fresh_rows, strict=True):
            entries.append(Entry(key, "embedding", 0, request, encode_vector(row)))
            for position in positions:
                rows[position] = row
        return entries

    def _stack(self, rows: list[FloatArray | None]) -> FloatArray:
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        dims = {row.shape for row in rows if row is not None}
        if len(dims) > 1:
            raise CassetteFormatError(
                f"{self._store.path}: recorded vectors of model {self.model_id!r} have different "
                f"shapes {sorted(dims)}; re-record this cassette"
            )
        return np.stack([row for row in rows if row is not None]).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Rows from the cassette; (by mode) the missing texts are embedded in one call."""
        if self.mode is RecordMode.OFF:
            rows: FloatArray = self.model.embed(texts)
            return rows
        planned, missing = self._plan(texts)
        if missing:
            fresh = self.model.embed([text for _, text, _ in missing.values()])
            self._store.record(self._fill(planned, missing, fresh))
        return self._stack(planned)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Async :meth:`embed`."""
        if self.mode is RecordMode.OFF:
            return await aembed_of(self.model, texts)
        planned, missing = self._plan(texts)
        if missing:
            fresh = await aembed_of(self.model, [text for _, text, _ in missing.values()])
            await asyncio.to_thread(self._store.record, self._fill(planned, missing, fresh))
        return self._stack(planned)


@overload
def record_replay(
    model: ChatModel,
    cassette: str | os.PathLike[str],
    mode: str | RecordMode | None = None,
    *,
    model_id: str | None = None,
    redact: Sequence[Redactor] = (),
    secret_patterns: Sequence[str] = (),
) -> RecordedChat: ...


@overload
def record_replay(
    model: EmbeddingModel,
    cassette: str | os.PathLike[str],
    mode: str | RecordMode | None = None,
    *,
    model_id: str | None = None,
    redact: Sequence[Redactor] = (),
    secret_patterns: Sequence[str] = (),
) -> RecordedEmbedding: ...


def record_replay(
    model: ChatModel | EmbeddingModel,
    cassette: str | os.PathLike[str],
    mode: str | RecordMode | None = None,
    *,
    model_id: str | None = None,
    redact: Sequence[Redactor] = (),
    secret_patterns: Sequence[str] = (),
) -> RecordedChat | RecordedEmbedding:
    """Wrap ``model`` so its calls are replayed from (and, by mode, recorded into) ``cassette``.

    ``mode``: ``replay``, ``record-missing``, ``rewrite`` or ``off``; when None, ``replay`` if
    ``CI`` is set, else ``$EVALMARK_RECORD_MODE``, else ``replay``. ``model_id`` overrides the
    model's own id in keys. ``redact``: functions applied to the canonical request before it is
    hashed and written (so redacted cassettes still match). ``secret_patterns``: regular
    expressions refused in written text, on top of the built-in credential patterns.
    The file is read on the first call, not here.
    """
    options: dict[str, Any] = {
        "model_id": model_id,
        "redact": redact,
        "secret_patterns": secret_patterns,
    }
    if callable(getattr(model, "chat", None)):
        return RecordedChat(model, cassette, mode, **options)
    if callable(getattr(model, "embed", None)):
        return RecordedEmbedding(model, cassette, mode, **options)
    raise TypeError(
        f"record_replay needs a chat model (with .chat) or an embedding model (with .embed), "
        f"got {type(model).__name__}; wrap a function with chat_from_callable or "
        "embedding_from_callable"
    )
