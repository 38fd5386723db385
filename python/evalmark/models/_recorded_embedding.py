"""``RecordedEmbedding``: an embedding model answered from a cassette, one entry per text."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evalmark.errors import CassetteFormatError
from evalmark.models._canonical import embedding_request, key_of
from evalmark.models._cassette_file import Entry, Kind
from evalmark.models._inflight import Flight
from evalmark.models._modes import RecordMode
from evalmark.models._protocols import FloatArray, aembed_of, as_embedding_rows
from evalmark.models._recorder_base import Recorder
from evalmark.models._store import AnyEntry, Prepared


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


class RecordedEmbedding(Recorder):
    """An embedding model that answers from a cassette, one entry per text (batching free).

    Embeddings are a function of their input, so every text has one recording (sample index 0)
    and repeated texts replay it. Callers embedding the same missing text at once make one live
    call for it: the others wait for its recording and replay it.
    """

    _kind: Kind = "embedding"

    def _plan(
        self, texts: Sequence[str]
    ) -> tuple[list[FloatArray | None], dict[str, tuple[Prepared, str, list[int]]]]:
        store = self._store
        store.ensure_loaded()
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, got a single string; wrap it")
        rows: list[FloatArray | None] = []
        missing: dict[str, tuple[Prepared, str, list[int]]] = {}
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{position}] is a {type(text).__name__}, not a str")
            request = store.user_redacted(embedding_request(self.model_id, text, self._defaults))
            entry = store.lookup(key_of(request), 0)
            if entry is not None:
                rows.append(self._decode(entry))
                continue
            prepared = store.prepare(request, {})
            key = prepared.key
            entry = store.lookup(key, 0)
            if entry is not None:
                rows.append(self._decode(entry))
                continue
            rows.append(None)
            missing.setdefault(key, (prepared, text, []))[2].append(position)
        if missing and store.mode.mode is RecordMode.REPLAY:
            key, (prepared, _, _) = next(iter(missing.items()))
            raise store.miss(prepared.request, key, 0, also_missing=len(missing) - 1)
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
        missing: dict[str, tuple[Prepared, str, list[int]]],
        fresh: object,
    ) -> list[Entry]:
        fresh_rows = as_embedding_rows(fresh, len(missing), source=f"{self.model_id}.embed")
        entries: list[Entry] = []
        for (key, (prepared, _, positions)), row in zip(missing.items(), fresh_rows, strict=True):
            vector = encode_vector(row)
            entries.append(Entry(key, "embedding", 0, prepared.request, vector, prepared.redacted))
            for position in positions:
                rows[position] = row
        return entries

    def _turns(
        self,
        rows: list[FloatArray | None],
        missing: dict[str, tuple[Prepared, str, list[int]]],
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> tuple[dict[str, tuple[Prepared, str, list[int]]], dict[str, Flight]]:
        """Split the missing texts into those this caller embeds (it leads their flights) and
        those another caller is recording (their flights); rows landed meanwhile are filled."""
        mine: dict[str, tuple[Prepared, str, list[int]]] = {}
        theirs: dict[str, Flight] = {}
        for key, wanted in missing.items():
            turn = self._store.turn(key, 0, loop)
            if turn is None:
                mine[key] = wanted
            elif isinstance(turn, Flight):
                theirs[key] = turn
            else:
                for position in wanted[2]:
                    rows[position] = self._decode(turn)
        return mine, theirs

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
        while missing:
            mine, theirs = self._turns(planned, missing)
            try:
                if mine:
                    fresh = self.model.embed([text for _, text, _ in mine.values()])
                    self._store.record(self._fill(planned, mine, fresh))
            finally:
                for key in mine:
                    self._store.landed(key, 0)
            # a flight led by a task of this thread's event loop cannot be waited for here
            blocked = {key: missing[key] for key, flight in theirs.items() if not flight.wait()}
            if blocked:
                fresh = self.model.embed([text for _, text, _ in blocked.values()])
                self._store.record(self._fill(planned, blocked, fresh))
            missing = {key: missing[key] for key in theirs if key not in blocked}
        return self._stack(planned)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Async :meth:`embed`."""
        if self.mode is RecordMode.OFF:
            return await aembed_of(self.model, texts)
        planned, missing = self._plan(texts)
        while missing:
            mine, theirs = self._turns(planned, missing, asyncio.get_running_loop())
            try:
                if mine:
                    fresh = await aembed_of(self.model, [text for _, text, _ in mine.values()])
                    await asyncio.to_thread(self._store.record, self._fill(planned, mine, fresh))
            finally:
                for key in mine:
                    self._store.landed(key, 0)
            for flight in theirs.values():
                await flight.wait_async()
            missing = {key: missing[key] for key in theirs}
        return self._stack(planned)
