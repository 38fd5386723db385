"""``RecordedChat``: a chat model answered from a cassette."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from evalmark.errors import CassetteFormatError
from evalmark.models.canonical import chat_request
from evalmark.models.cassette_file import Entry, Kind, RawEntry
from evalmark.models.modes import RecordMode
from evalmark.models.protocols import achat_of
from evalmark.models.recorder_base import Recorder
from evalmark.models.store import AnyEntry
from evalmark.models.values import ChatReply, MessageLike, message_dicts, reply_from

_reply_decoder = msgspec.json.Decoder(ChatReply)


class RecordedChat(Recorder):
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
