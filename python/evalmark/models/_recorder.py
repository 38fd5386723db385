"""``record_replay``: wrap a chat or embedding model so its calls are recorded and replayed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, overload

from evalmark.models._modes import BeyondRecorded, RecordMode
from evalmark.models._protocols import ChatModel, EmbeddingModel
from evalmark.models._recorded_chat import RecordedChat
from evalmark.models._recorded_embedding import RecordedEmbedding, decode_vector, encode_vector
from evalmark.models._secrets import Redactor
from evalmark.models._store import USAGE_ENV, CassetteUsage, append_usage

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
    secrets: Sequence[str] = (),
    beyond_recorded: str | BeyondRecorded = BeyondRecorded.REPEAT,
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
    secrets: Sequence[str] = (),
    beyond_recorded: str | BeyondRecorded = BeyondRecorded.REPEAT,
) -> RecordedEmbedding: ...


def record_replay(
    model: ChatModel | EmbeddingModel,
    cassette: str | os.PathLike[str],
    mode: str | RecordMode | None = None,
    *,
    model_id: str | None = None,
    redact: Sequence[Redactor] = (),
    secret_patterns: Sequence[str] = (),
    secrets: Sequence[str] = (),
    beyond_recorded: str | BeyondRecorded = BeyondRecorded.REPEAT,
) -> RecordedChat | RecordedEmbedding:
    """Wrap ``model`` so its calls are replayed from (and, by mode, recorded into) ``cassette``.

    ``mode``: ``replay``, ``record-missing``, ``rewrite`` or ``off``; when None, ``replay`` if
    ``CI`` is set, else ``$EVALMARK_RECORD_MODE``, else ``replay``. ``model_id`` overrides the
    model's own id in keys.

    A call is identified by its request and the ``repeat`` of its
    :func:`~evalmark.models.call_context` (0 when unset): the same call replays the same
    recording however often and in whatever order it is made. ``beyond_recorded`` says what
    replay does for a repeat that was not recorded: ``"repeat"`` the last recorded one
    (default), ``"cycle"`` through them, ``"error"`` raise ``CassetteMiss``.

    Secrets never reach the file: values under credential names (``api_key``, ``Authorization``
    ...), the model's own configured key and credential headers, the values in ``secrets``, and
    text matching the built-in credential formats or ``secret_patterns`` (regular expressions)
    are replaced by ``[REDACTED]`` before the request is hashed and the entry written; the entry
    lists where. ``redact``: functions applied to the canonical request before that.
    The file is read on the first call, not here.
    """
    options: dict[str, Any] = {
        "model_id": model_id,
        "redact": redact,
        "secret_patterns": secret_patterns,
        "secrets": secrets,
        "beyond_recorded": beyond_recorded,
    }
    if callable(getattr(model, "chat", None)):
        return RecordedChat(model, cassette, mode, **options)
    if callable(getattr(model, "embed", None)):
        return RecordedEmbedding(model, cassette, mode, **options)
    raise TypeError(
        f"record_replay needs a chat model (with .chat) or an embedding model (with .embed), "
        f"got {type(model).__name__}; wrap a function with chat_from_callable or "
        "embedding_model"
    )
