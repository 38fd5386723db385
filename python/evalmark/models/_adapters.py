"""Adapters that turn plain Python callables into evalmark models."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalmark.models._protocols import FloatArray, as_embedding_rows
from evalmark.models._values import ChatReply, MessageLike, message_dicts, reply_from


def _callable_id(fn: Callable[..., object]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{name}"


def _run_sync(coroutine: Any, what: str) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise RuntimeError(
        f"{what} wraps an async function and was called from a running event loop; "
        "await the async method instead"
    )


class CallableChat:
    """A chat model backed by ``fn(messages, **params)`` returning a ``str`` or ``ChatReply``.

    ``fn`` may be a coroutine function; then ``achat`` awaits it and ``chat`` runs it to
    completion (outside an event loop only). Messages reach ``fn`` as plain dicts.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        model_id: str | None = None,
        default_params: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"chat_from_callable needs a callable, got {type(fn).__name__}")
        self._fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)
        self.model_id = model_id or _callable_id(fn)
        self._defaults = dict(default_params or {})

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Parameters passed to ``fn`` on every call (call parameters override them)."""
        return dict(self._defaults)

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Call ``fn`` and return its answer as a ``ChatReply``."""
        merged = {**self._defaults, **params}
        if self._is_async:
            value = _run_sync(self._fn(message_dicts(messages), **merged), self.model_id)
        else:
            value = self._fn(message_dicts(messages), **merged)
        return reply_from(value, source=self.model_id)

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Await ``fn`` (or run a plain ``fn`` in a worker thread)."""
        merged = {**self._defaults, **params}
        if self._is_async:
            value = await self._fn(message_dicts(messages), **merged)
        else:
            value = await asyncio.to_thread(self._fn, message_dicts(messages), **merged)
        return reply_from(value, source=self.model_id)


class CallableEmbedding:
    """An embedding model backed by ``fn(texts)`` returning an array-like of shape (n, dim)."""

    def __init__(
        self,
        fn: Callable[[list[str]], Any],
        *,
        model_id: str | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"embedding_from_callable needs a callable, got {type(fn).__name__}")
        self._fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)
        self.model_id = model_id or _callable_id(fn)

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No parameters: ``fn`` receives only the texts."""
        return {}

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Call ``fn`` and return its rows as float32."""
        batch = list(texts)
        value = _run_sync(self._fn(batch), self.model_id) if self._is_async else self._fn(batch)
        return as_embedding_rows(value, len(batch), source=self.model_id)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Await ``fn`` (or run a plain ``fn`` in a worker thread)."""
        batch = list(texts)
        if self._is_async:
            value = await self._fn(batch)
        else:
            value = await asyncio.to_thread(self._fn, batch)
        return as_embedding_rows(value, len(batch), source=self.model_id)


def chat_from_callable(
    fn: Callable[..., Any],
    *,
    model_id: str | None = None,
    default_params: Mapping[str, Any] | None = None,
) -> CallableChat:
    """Wrap ``fn(messages, **params) -> str | ChatReply`` (sync or async) as a chat model.

    ``model_id`` defaults to ``fn``'s module and qualified name; it is part of cassette keys, so
    give a stable one if you rename functions.
    """
    return CallableChat(fn, model_id=model_id, default_params=default_params)


def embedding_from_callable(
    fn: Callable[[list[str]], Any], *, model_id: str | None = None
) -> CallableEmbedding:
    """Wrap ``fn(texts) -> array-like (n, dim)`` (sync or async) as an embedding model."""
    return CallableEmbedding(fn, model_id=model_id)
