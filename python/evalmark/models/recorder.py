"""``record_replay``: wrap a chat or embedding model so its calls are recorded and replayed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, overload

from evalmark.models.modes import RecordMode
from evalmark.models.protocols import ChatModel, EmbeddingModel
from evalmark.models.recorded_chat import RecordedChat
from evalmark.models.recorded_embedding import RecordedEmbedding, decode_vector, encode_vector
from evalmark.models.secrets import Redactor
from evalmark.models.store import USAGE_ENV, CassetteUsage, append_usage

__all__ = [
    "USAGE_ENV",
    "CassetteUsage",
    "RecordedChat",
    "RecordedEmbedding",
    "append_usage",
    "decode_vector",
    "encode_vector",
    "record_replay",
]


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
