"""What evalmark expects of a chat model and of an embedding model."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from evalmark.models._values import ChatReply, MessageLike

FloatArray = npt.NDArray[np.float32]


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: ``chat(messages, **params) -> ChatReply``, and its async twin ``achat``.

    ``model_id`` names the model in cassette keys (for a provider, the model name such as
    ``"gpt-4o-mini"``). ``default_params`` are generation parameters the model adds to every
    call; they take part in cassette keys.
    """

    model_id: str

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Generation parameters applied to every call."""
        ...

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Answer ``messages``."""
        ...

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Answer ``messages`` without blocking the event loop."""
        ...


@runtime_checkable
class EmbeddingModel(Protocol):
    """An embedding model: ``embed(texts)`` returns a float32 array of shape (len(texts), dim)."""

    model_id: str

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Parameters applied to every call (for example ``dimensions``)."""
        ...

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Embed ``texts``, one row per text."""
        ...

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Embed ``texts`` without blocking the event loop."""
        ...


def model_id_of(model: object) -> str:
    """The model's ``model_id`` if it has one, else its class's qualified name."""
    model_id = getattr(model, "model_id", None)
    if isinstance(model_id, str) and model_id:
        return model_id
    cls = type(model)
    return f"{cls.__module__}.{cls.__qualname__}"


def default_params_of(model: object) -> dict[str, Any]:
    """A copy of the model's ``default_params``, or an empty dict."""
    params = getattr(model, "default_params", None)
    return dict(params) if isinstance(params, Mapping) else {}


async def achat_of(model: object, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
    """Call ``model.achat`` if the model has one, else run ``model.chat`` in a worker thread."""
    achat = getattr(model, "achat", None)
    if achat is not None:
        reply: ChatReply = await achat(messages, **params)
        return reply
    chat = model.chat  # type: ignore[attr-defined]
    result: ChatReply = await asyncio.to_thread(chat, messages, **params)
    return result


async def aembed_of(model: object, texts: Sequence[str]) -> FloatArray:
    """Call ``model.aembed`` if the model has one, else run ``model.embed`` in a worker thread."""
    aembed = getattr(model, "aembed", None)
    if aembed is not None:
        rows: FloatArray = await aembed(texts)
        return rows
    embed = model.embed  # type: ignore[attr-defined]
    result: FloatArray = await asyncio.to_thread(embed, texts)
    return result


def as_embedding_rows(value: object, count: int, *, source: str) -> FloatArray:
    """Check and convert what an embedding model returned into a (count, dim) float32 array."""
    try:
        rows = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{source} must return an array-like of numbers: {exc}") from exc
    if count == 0 and rows.size == 0:
        return np.zeros((0, 0), dtype=np.float32)
    if rows.ndim != 2 or rows.shape[0] != count:
        raise ValueError(
            f"{source} returned an array of shape {rows.shape}; expected ({count}, dim), "
            "one row per text"
        )
    if not np.isfinite(rows).all():
        raise ValueError(f"{source} returned NaN or infinity in an embedding")
    return np.ascontiguousarray(rows)
