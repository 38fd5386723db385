"""Deterministic stand-ins for real models: scripted and echo chat, hashed embeddings."""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import numpy as np

from evalmark.errors import ScriptExhausted
from evalmark.models._protocols import FloatArray
from evalmark.models._values import (
    ChatReply,
    MessageLike,
    content_text,
    last_user_text,
    message_dicts,
    reply_from,
)


class ScriptedCall(msgspec.Struct, frozen=True):
    """One call a fake received: the messages (as dicts) and the parameters."""

    messages: tuple[dict[str, Any], ...]
    params: dict[str, Any]


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of every message, one per line, in order."""
    return "\n".join(content_text(message.get("content")) for message in messages)


class _CallLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[ScriptedCall] = []

    def add(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> int:
        """Keep one call; returns its position."""
        with self._lock:
            self._calls.append(ScriptedCall(tuple(messages), params))
            return len(self._calls) - 1

    def all(self) -> tuple[ScriptedCall, ...]:
        """Every call kept so far."""
        with self._lock:
            return tuple(self._calls)


class ScriptedChat:
    """A chat model that answers from a script.

    ``replies`` is either a sequence, consumed in call order (an exhausted script raises
    ``ScriptExhausted``; it never cycles), or a mapping from a regular expression to a reply:
    the first pattern, in the mapping's order, found anywhere in the prompt (all messages'
    text) answers, and no match raises ``ScriptExhausted``. A mapping answers the same prompt
    the same way whatever the call order; prefer it when calls run concurrently. Every call is
    kept in :attr:`calls`.
    """

    def __init__(
        self,
        replies: Sequence[str | ChatReply] | Mapping[str, str | ChatReply],
        *,
        model_id: str = "scripted",
    ) -> None:
        self.model_id = model_id
        self._log = _CallLog()
        self._lock = threading.Lock()
        self._patterns: tuple[tuple[re.Pattern[str], ChatReply], ...] | None = None
        self._queue: tuple[ChatReply, ...] = ()
        if isinstance(replies, Mapping):
            self._patterns = tuple(
                (re.compile(pattern), reply_from(reply, source=f"replies[{pattern!r}]"))
                for pattern, reply in replies.items()
            )
        elif isinstance(replies, str):
            raise TypeError("ScriptedChat takes a list of replies or a mapping, not one string")
        else:
            self._queue = tuple(
                reply_from(reply, source=f"replies[{i}]") for i, reply in enumerate(replies)
            )
        self._next = 0

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No default parameters."""
        return {}

    @property
    def calls(self) -> tuple[ScriptedCall, ...]:
        """Every call received so far, in arrival order."""
        return self._log.all()

    @property
    def remaining(self) -> int:
        """Replies left in a list script (0 for a mapping script)."""
        with self._lock:
            return len(self._queue) - self._next

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """The next scripted reply (list) or the reply of the first matching pattern (mapping)."""
        dicts = message_dicts(messages)
        number = self._log.add(dicts, dict(params)) + 1
        if self._patterns is not None:
            text = prompt_text(dicts)
            for pattern, reply in self._patterns:
                if pattern.search(text):
                    return reply
            listed = ", ".join(repr(p.pattern) for p, _ in self._patterns)
            raise ScriptExhausted(
                f"ScriptedChat call {number}: no pattern matches the prompt {_excerpt(text)}; "
                f"patterns: {listed}"
            )
        with self._lock:
            if self._next >= len(self._queue):
                raise ScriptExhausted(
                    f"ScriptedChat has {len(self._queue)} replies and all were used; call "
                    f"{number} asked {_excerpt(last_user_text(dicts) or prompt_text(dicts))}. "
                    "Add replies to the script (it never cycles)."
                )
            reply = self._queue[self._next]
            self._next += 1
        return reply

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)


def _excerpt(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class EchoChat:
    """A chat model that replies with the last user message (empty if there is none)."""

    model_id = "echo"

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No default parameters."""
        return {}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Echo the last user message."""
        return ChatReply(text=last_user_text(message_dicts(messages)) or "")

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)


_WORD = re.compile(r"\w+")


def hash_features(text: str) -> list[tuple[str, float]]:
    """The weighted features of ``text``: each normalized word (weight 1) and each character
    3-gram of ``<word>`` (weight 0.5). Normalization: NFKC, then case folding."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    features: list[tuple[str, float]] = [("w " + word, 1.0) for word in words]
    for word in words:
        padded = f"<{word}>"
        features.extend(("g " + padded[i : i + 3], 0.5) for i in range(len(padded) - 2))
    return features


@functools.lru_cache(maxsize=1 << 16)
def _bucket(feature: str, dim: int, seed: int) -> tuple[int, float]:
    digest = hashlib.blake2b(
        feature.encode("utf-8", "surrogatepass"),
        digest_size=8,
        person=b"evalmark-hashemb",
        salt=seed.to_bytes(16, "little", signed=True),
    ).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if value >> 63 else -1.0)


@functools.lru_cache(maxsize=1 << 16)
def _word_buckets(word: str, dim: int, seed: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """The buckets and signed weights of one word's features (the word and its 3-grams)."""
    padded = f"<{word}>"
    features = [("w " + word, 1.0)]
    features.extend(("g " + padded[i : i + 3], 0.5) for i in range(len(padded) - 2))
    indexes: list[int] = []
    signed: list[float] = []
    for feature, weight in features:
        index, sign = _bucket(feature, dim, seed)
        indexes.append(index)
        signed.append(sign * weight)
    return tuple(indexes), tuple(signed)


class HashEmbedding:
    """Deterministic lexical embeddings by signed feature hashing, L2-normalized.

    Words and character 3-grams (see :func:`hash_features`) are hashed with blake2b (keyed by
    ``seed``) into ``dim`` buckets with a sign. Identical texts have cosine 1.0; texts sharing
    most words score well above unrelated texts, whose cosine is near 0 (within about
    ``1/sqrt(dim)``). It is lexical only: synonyms score like unrelated words, and word order
    barely matters. A text with no word characters embeds as the zero vector.
    """

    def __init__(self, dim: int = 256, seed: int = 0) -> None:
        if dim < 1:
            raise ValueError(f"HashEmbedding dim must be >= 1, got {dim}")
        if not -(1 << 127) <= seed < (1 << 127):
            raise ValueError(f"HashEmbedding seed must fit in 128 bits, got {seed}")
        self.dim = dim
        self.seed = seed
        self.model_id = f"hash-embedding-{dim}-{seed}"

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No default parameters."""
        return {}

    def _features(self, text: str, offset: int, slots: list[int], weights: list[float]) -> None:
        dim, seed = self.dim, self.seed
        for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
            indexes, signed = _word_buckets(word, dim, seed)
            slots.extend(offset + index for index in indexes)
            weights.extend(signed)

    def vector(self, text: str) -> FloatArray:
        """The embedding of one text."""
        row: FloatArray = self.embed([text])[0]
        return row

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """One row per text, shape (len(texts), dim)."""
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, got a single string; wrap it")
        slots: list[int] = []
        weights: list[float] = []
        for row, text in enumerate(texts):
            self._features(text, row * self.dim, slots, weights)
        # bincount adds the weights in input order: the same sums on every run.
        totals = np.bincount(
            np.asarray(slots, dtype=np.intp),
            weights=np.asarray(weights, dtype=np.float64),
            minlength=len(texts) * self.dim,
        ).astype(np.float64)
        matrix = totals.reshape(len(texts), self.dim)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0.0)
        return matrix.astype(np.float32)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Same as :meth:`embed`."""
        return self.embed(texts)
