"""``RecordedChat``: a chat model answered from a cassette."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from evalmark._files.text import without_surrogates
from evalmark.errors import CassetteFormatError
from evalmark.models._attachments import check_blobs, externalize, write_blobs
from evalmark.models._canonical import chat_request, key_of
from evalmark.models._cassette_file import Entry, Kind, RawEntry, check_depth
from evalmark.models._inflight import Flight
from evalmark.models._modes import RecordMode
from evalmark.models._protocols import achat_of
from evalmark.models._recorder_base import Recorder
from evalmark.models._store import AnyEntry, Prepared
from evalmark.models._values import ChatReply, MessageLike, message_dicts, reply_from

_reply_decoder = msgspec.json.Decoder(ChatReply)


class RecordedChat(Recorder):
    """A chat model that answers from a cassette and records what it misses (by mode).

    A reply's ``metadata`` is not recorded; a recorded call returns the reply as stored, so a
    recording run and a replaying run see equal replies. Errors raised by the real model and
    refused replies (``ChatReply.refused``) are returned or raised but never recorded.
    Callers (threads or tasks) that miss the same recording at once make one live call: the
    first records it, the others wait for it and replay it.
    """

    _kind: Kind = "chat"

    def _prepare(
        self, messages: Sequence[MessageLike], params: Mapping[str, Any]
    ) -> tuple[Prepared | None, int, ChatReply | None, dict[str, bytes]]:
        """(the redacted request, its sample index, the recorded reply or None, the bytes of
        its attachments by sha256). A request that is itself recorded replays at once:
        recorded requests hold no secret, so redacting it could change nothing that matters;
        only a miss pays for the redaction. Attachments are keyed by their hash (the bytes
        live beside the cassette, see :mod:`evalmark.models._attachments`)."""
        store = self._store
        store.ensure_loaded()
        keyed, blobs = externalize(message_dicts(messages))
        request = chat_request(self.model_id, keyed, {**self._defaults, **params})
        request = store.user_redacted(request)
        key = key_of(request)
        index, entry = store.claim(key)
        if entry is not None:
            return None, index, self._replayed(entry, key, blobs), blobs
        prepared = store.prepare(request, params)
        index, entry = store.claim(prepared.key)
        if entry is not None:
            return prepared, index, self._replayed(entry, prepared.key, blobs), blobs
        if store.mode.mode is RecordMode.REPLAY:
            raise store.miss(prepared.request, prepared.key, index)
        return prepared, index, None, blobs

    def _replayed(self, entry: AnyEntry, key: str, blobs: Mapping[str, bytes]) -> ChatReply:
        """A recorded reply; in replay its attachments must be beside the cassette (a
        recording mode puts back any that went missing)."""
        if blobs:
            if self._store.mode.mode is RecordMode.REPLAY:
                check_blobs(self._store.path, blobs, key)
            else:
                write_blobs(self._store.path, blobs)
        return self._decode(entry)

    def _decode(self, entry: AnyEntry) -> ChatReply:
        cached = self._store.decoded.get(entry.slot)
        if cached is None:
            try:
                if isinstance(entry, RawEntry):
                    check_depth(entry.response, self._store.where(entry))
                    cached = _reply_decoder.decode(entry.response)
                else:
                    cached = msgspec.convert(entry.response, ChatReply)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                raise CassetteFormatError(
                    f"{self._store.where(entry)}: invalid chat response: {exc}"
                ) from None
            self._store.decoded[entry.slot] = cached
        reply: ChatReply = cached
        return reply

    def _entry(self, prepared: Prepared, index: int, reply: ChatReply) -> Entry:
        # A lone surrogate (half an emoji) is kept, written as \udcff, as every writer does.
        plain = msgspec.to_builtins(msgspec.structs.replace(reply, metadata={}))
        stored = without_surrogates(plain)
        response, found = prepared.redactor.redact(stored, "response")
        redacted = (*prepared.redacted, *found)
        return Entry(prepared.key, "chat", index, prepared.request, response, redacted)

    def _live(
        self,
        messages: Sequence[MessageLike],
        params: Mapping[str, Any],
        prepared: Prepared,
        index: int,
        blobs: Mapping[str, bytes],
    ) -> ChatReply:
        """Call the real model and record its reply (a refused reply is returned unrecorded)."""
        reply = reply_from(self.model.chat(messages, **params), source=self.model_id)
        if reply.refused:
            return reply
        entry = self._entry(prepared, index, reply)
        write_blobs(self._store.path, blobs)
        self._store.record([entry], prepared.redactor)
        return self._decode(self._store.kept(entry))

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Replay the recorded answer, or (by mode) call the real model and record it."""
        if self.mode is RecordMode.OFF:
            reply: ChatReply = self.model.chat(messages, **params)
            return reply
        prepared, index, replayed, blobs = self._prepare(messages, params)
        if replayed is not None:
            return replayed
        assert prepared is not None
        store = self._store
        while (turn := store.turn(prepared.key, index)) is not None:
            if not isinstance(turn, Flight):
                return self._decode(turn)
            if not turn.wait():  # a task of this thread's event loop leads: do not block it
                return self._live(messages, params, prepared, index, blobs)
        try:
            return self._live(messages, params, prepared, index, blobs)
        finally:
            store.landed(prepared.key, index)

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Async :meth:`chat`: the real model's ``achat`` is awaited and the write runs in a
        worker thread. A caller missing a recording another caller is making waits for it
        without blocking the loop."""
        if self.mode is RecordMode.OFF:
            return await achat_of(self.model, messages, **params)
        prepared, index, replayed, blobs = self._prepare(messages, params)
        if replayed is not None:
            return replayed
        assert prepared is not None
        store = self._store
        while (turn := store.turn(prepared.key, index, asyncio.get_running_loop())) is not None:
            if not isinstance(turn, Flight):
                return self._decode(turn)
            await turn.wait_async()
        try:
            reply = await achat_of(self.model, messages, **params)
            reply = reply_from(reply, source=self.model_id)
            if reply.refused:
                return reply
            entry = self._entry(prepared, index, reply)
            await asyncio.to_thread(write_blobs, store.path, blobs)
            await asyncio.to_thread(store.record, [entry], prepared.redactor)
        finally:
            store.landed(prepared.key, index)
        return self._decode(store.kept(entry))
