"""The values that flow through chat models: messages in, replies out."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import msgspec

from evalmark.samples._testcase import ToolCall


class Message(msgspec.Struct, frozen=True, omit_defaults=True):
    """One chat message; ``name`` and ``tool_call_id`` are optional and omitted when unset."""

    role: str
    content: str
    name: str | None = None
    tool_call_id: str | None = None


class ChatToolCall(msgspec.Struct, frozen=True):
    """A function call requested by the model; ``arguments`` is the JSON text the model wrote
    (possibly invalid JSON: models make mistakes, and the recording keeps them)."""

    id: str
    name: str
    arguments: str

    def to_tool_call(self) -> ToolCall:
        """This call as an ``evalmark.ToolCall`` of a test case, with its arguments parsed.

        Raises ``ValueError`` naming the tool when the arguments are not a JSON object.
        """
        try:
            arguments = json.loads(self.arguments) if self.arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"tool call {self.name!r} ({self.id}): the model wrote arguments that are not "
                f"valid JSON ({exc}): {self.arguments[:80]!r}"
            ) from None
        if not isinstance(arguments, dict):
            raise ValueError(
                f"tool call {self.name!r} ({self.id}): arguments must be a JSON object, got "
                f"{type(arguments).__name__}"
            )
        return ToolCall(name=self.name, arguments=arguments, id=self.id or None)


class Usage(msgspec.Struct, frozen=True):
    """Token counts reported by the provider."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ChatReply(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a chat model answered.

    ``refusal`` holds the provider's refusal message when it declined to answer (OpenAI's
    ``message.refusal``); refused replies are never recorded in a cassette. ``metadata``
    carries facts about how the reply was produced (for example ``flipped`` from
    :class:`~evalmark.models.NoisyJudge`); treat it as read-only. It is never recorded in a
    cassette.
    """

    text: str
    tool_calls: tuple[ChatToolCall, ...] | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    refusal: str | None = None
    metadata: dict[str, Any] = {}

    @property
    def refused(self) -> bool:
        """True when the provider refused: a ``refusal`` text or a content-filter stop."""
        return self.refusal is not None or self.finish_reason == "content_filter"


MessageLike: TypeAlias = Message | Mapping[str, Any]


def message_dicts(messages: Sequence[MessageLike]) -> list[dict[str, Any]]:
    """Return ``messages`` as plain dicts (``Message`` objects converted, dicts copied).

    Raises ``TypeError`` naming the position of a message that is neither, and ``ValueError``
    for a message without a ``role``.
    """
    if isinstance(messages, str | bytes):
        raise TypeError(
            "messages must be a sequence of {'role', 'content'} dicts or Message objects, "
            'got a string; wrap it: [{"role": "user", "content": text}]'
        )
    out: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        if type(message) is dict and "role" in message:
            out.append(message.copy())
        elif isinstance(message, Message):
            out.append(msgspec.to_builtins(message))
        elif isinstance(message, Mapping):
            if "role" not in message:
                raise ValueError(f"messages[{position}] has no 'role' key: {dict(message)!r}")
            out.append(dict(message))
        else:
            raise TypeError(
                f"messages[{position}] must be a dict or a Message, got {type(message).__name__}"
            )
    return out


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The text content of the last message whose role is ``user``, or None if there is none."""
    for message in reversed(messages):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return None


def content_text(content: object) -> str:
    """The text of a message content: a string as is, or the ``text`` parts of a parts list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        ]
        return "\n".join(parts)
    return str(content)


def reply_from(value: object, *, source: str) -> ChatReply:
    """Coerce a ``str`` or ``ChatReply`` returned by ``source`` into a ``ChatReply``."""
    if isinstance(value, ChatReply):
        return value
    if isinstance(value, str):
        return ChatReply(text=value)
    raise TypeError(f"{source} must return a str or a ChatReply, got {type(value).__name__}")
