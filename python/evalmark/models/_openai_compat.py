"""Adapters for OpenAI-compatible clients (``openai.OpenAI`` / ``AsyncOpenAI`` or look-alikes).

Any object with ``chat.completions.create`` (chat) or ``embeddings.create`` (embeddings) works,
so a local server reached through the ``openai`` package is recorded the same way as a provider.
evalmark does not import ``openai`` itself; you pass the client.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evalmark.models._protocols import FloatArray, as_embedding_rows
from evalmark.models._secrets import sensitive_values
from evalmark.models._values import ChatReply, ChatToolCall, MessageLike, Usage, message_dicts


def _field(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def reply_from_completion(completion: Any) -> ChatReply:
    """A ``ChatReply`` from a chat completion response (SDK object or plain dict)."""
    choices = _field(completion, "choices") or []
    if not choices:
        raise ValueError("the chat completion has no choices")
    choice = choices[0]
    message = _field(choice, "message")
    calls = _field(message, "tool_calls") or []
    tool_calls = tuple(
        ChatToolCall(
            id=str(_field(call, "id") or ""),
            name=str(_field(_field(call, "function"), "name") or ""),
            arguments=str(_field(_field(call, "function"), "arguments") or ""),
        )
        for call in calls
    )
    usage = _field(completion, "usage")
    return ChatReply(
        text=_field(message, "content") or "",
        tool_calls=tool_calls or None,
        usage=None
        if usage is None
        else Usage(
            prompt_tokens=int(_field(usage, "prompt_tokens") or 0),
            completion_tokens=int(_field(usage, "completion_tokens") or 0),
            total_tokens=int(_field(usage, "total_tokens") or 0),
        ),
        finish_reason=_field(choice, "finish_reason"),
        refusal=_field(message, "refusal"),
    )


def rows_from_embeddings(response: Any, count: int, source: str) -> FloatArray:
    """The (count, dim) float32 rows of an embeddings response, in input order."""
    data = sorted(_field(response, "data") or [], key=lambda item: int(_field(item, "index") or 0))
    vectors = [_field(item, "embedding") for item in data]
    if any(isinstance(vector, str) for vector in vectors):
        raise ValueError(
            f"{source}: the server answered base64 embeddings; leave encoding_format unset"
        )
    return as_embedding_rows(np.array(vectors, dtype=np.float32), count, source=source)


def client_secrets(client: Any) -> tuple[str, ...]:
    """The credentials an OpenAI-style client was configured with: its ``api_key`` and the
    values of its credential headers (``Authorization``, ``api-key``, ...)."""
    found: list[str] = []
    for name in ("api_key", "default_headers", "_custom_headers", "auth_headers"):
        try:
            value = getattr(client, name, None)
        except Exception:  # a property of a third-party client: whatever it raises, skip it
            continue
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, Mapping):
            found.extend(sensitive_values(value))
    return tuple(dict.fromkeys(found))


def _is_async(function: Any) -> bool:
    # The openai package wraps its async create methods in a plain decorator: look through it.
    return inspect.iscoroutinefunction(inspect.unwrap(function))


def _call_sync(create: Any, arguments: dict[str, Any]) -> Any:
    result = create(**arguments)
    return _run(result) if inspect.isawaitable(result) else result


async def _call_async(create: Any, arguments: dict[str, Any]) -> Any:
    if _is_async(create):
        return await create(**arguments)
    result = await asyncio.to_thread(create, **arguments)
    return await result if inspect.isawaitable(result) else result


def _run(coroutine: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise RuntimeError("this adapter wraps an async client; inside an event loop, await achat")


class OpenAIChat:
    """A chat model calling ``client.chat.completions.create(model=..., messages=..., ...)``.

    ``secret_values`` holds the client's API key and credential headers, so a cassette redacts
    them wherever they reappear."""

    def __init__(self, client: Any, model: str, **default_params: Any) -> None:
        create = getattr(
            getattr(getattr(client, "chat", None), "completions", None), "create", None
        )
        if not callable(create):
            raise TypeError("openai_chat needs a client with chat.completions.create")
        if default_params.get("stream"):
            raise ValueError("openai_chat does not support stream=True; leave it unset")
        self._create = create
        self.model_id = model
        self._defaults = dict(default_params)
        self.secret_values = client_secrets(client)

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Parameters sent with every request (call parameters override them)."""
        return dict(self._defaults)

    def _arguments(self, messages: Sequence[MessageLike], params: Mapping[str, Any]) -> Any:
        merged = {**self._defaults, **params}
        if merged.get("n", 1) != 1:
            raise ValueError("openai_chat supports n=1 only; call repeatedly for more samples")
        if merged.get("stream"):
            raise ValueError("openai_chat does not support stream=True")
        return {"model": self.model_id, "messages": message_dicts(messages), **merged}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Send one chat completion request and return its first choice."""
        return reply_from_completion(_call_sync(self._create, self._arguments(messages, params)))

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Async :meth:`chat` (awaits an async client; runs a sync one in a worker thread)."""
        arguments = self._arguments(messages, params)
        return reply_from_completion(await _call_async(self._create, arguments))


class OpenAIEmbedding:
    """An embedding model calling ``client.embeddings.create(model=..., input=[...], ...)``.

    Vectors come back as float32, whether live or replayed.
    """

    def __init__(self, client: Any, model: str, **default_params: Any) -> None:
        create = getattr(getattr(client, "embeddings", None), "create", None)
        if not callable(create):
            raise TypeError("openai_embedding needs a client with embeddings.create")
        self._create = create
        self.model_id = model
        self._defaults = dict(default_params)
        self.secret_values = client_secrets(client)

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Parameters sent with every request (for example ``dimensions``)."""
        return dict(self._defaults)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Embed ``texts`` in one request."""
        batch = list(texts)
        if not batch:
            return np.zeros((0, 0), dtype=np.float32)
        arguments = {"model": self.model_id, "input": batch, **self._defaults}
        return rows_from_embeddings(_call_sync(self._create, arguments), len(batch), self.model_id)

    async def aembed(self, texts: Sequence[str]) -> FloatArray:
        """Async :meth:`embed`."""
        batch = list(texts)
        if not batch:
            return np.zeros((0, 0), dtype=np.float32)
        arguments = {"model": self.model_id, "input": batch, **self._defaults}
        response = await _call_async(self._create, arguments)
        return rows_from_embeddings(response, len(batch), self.model_id)


def openai_chat(client: Any, model: str, **default_params: Any) -> OpenAIChat:
    """A chat model over an OpenAI-compatible ``client`` for ``model``; ``default_params`` (for
    example ``temperature=0``) go with every request and into cassette keys."""
    return OpenAIChat(client, model, **default_params)


def openai_embedding(client: Any, model: str, **default_params: Any) -> OpenAIEmbedding:
    """An embedding model over an OpenAI-compatible ``client`` for ``model``."""
    return OpenAIEmbedding(client, model, **default_params)
