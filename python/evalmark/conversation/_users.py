"""Simulated users: who writes the user's side of a conversation.

``SimulatedUser.scripted([...])`` says a fixed list of messages, one per turn, and ends the
conversation when the list runs out. ``SimulatedUser.model(persona, chat_model)`` has a chat
model play the user: it sees the persona as its system prompt and the conversation so far with
the roles swapped (the assistant's replies are its "user" messages), and ends the conversation
by answering with the end token. Wrap the chat model in
:func:`~evalmark.models.record_replay` and a recorded simulation replays offline, call for call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalmark.models._values import ChatReply

__all__ = ["END_TOKEN", "Message", "ScriptedTurn", "SimulatedUser"]

END_TOKEN = "[END]"
Message = dict[str, Any]  # {"role": "user" | "assistant", "content": str, ...}

_MODEL_INSTRUCTIONS = (
    "You play the user in a conversation with an assistant; the assistant's messages reach you "
    "as user messages. Stay in character, write one short message at a time, and never play "
    "the assistant. When your goal is met, or you give up, answer exactly {end}."
)
_OPENING = "(The conversation begins. Write your first message to the assistant.)"


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """One scripted user message, with what the assistant's reply to it should hold (used by
    per-turn checks: ``expected_output``, ``expected_facts``, ``context``)."""

    text: str
    expected_output: str | None = None
    expected_facts: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)


class SimulatedUser:
    """The user's side of a simulated conversation; build one with :meth:`scripted` or
    :meth:`model`.

    ``await user.areply(messages, turn)`` is the user's message for ``turn`` (1-based) given
    the conversation so far, or None when the user ends the conversation.
    """

    def __init__(
        self,
        *,
        script: Sequence[ScriptedTurn] | None = None,
        persona: str | None = None,
        chat_model: Any = None,
        opening: str | None = None,
        end_token: str = END_TOKEN,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        if (script is None) == (chat_model is None):
            raise TypeError(
                "a simulated user is scripted or played by a model: use SimulatedUser.scripted"
                "([...]) or SimulatedUser.model(persona, chat_model)"
            )
        self.script = tuple(script) if script is not None else None
        self.persona = persona
        self.chat_model = chat_model
        self.opening = opening
        self.end_token = end_token
        self.params = dict(params or {})

    @classmethod
    def scripted(cls, turns: Sequence[str | ScriptedTurn]) -> SimulatedUser:
        """A user who says ``turns`` in order, one per turn, then ends the conversation."""
        if isinstance(turns, str) or not isinstance(turns, Sequence):
            raise TypeError(
                f"SimulatedUser.scripted takes a list of messages, got {type(turns).__name__}"
            )
        script = []
        for number, turn in enumerate(turns, 1):
            if isinstance(turn, str):
                turn = ScriptedTurn(turn)
            if not isinstance(turn, ScriptedTurn):
                raise TypeError(
                    f"scripted turn {number} must be a string or a ScriptedTurn, got "
                    f"{type(turn).__name__}"
                )
            script.append(turn)
        return cls(script=script)

    @classmethod
    def model(
        cls,
        persona: str,
        chat_model: Any,
        *,
        opening: str | None = None,
        end_token: str = END_TOKEN,
        params: Mapping[str, Any] | None = None,
    ) -> SimulatedUser:
        """A user played by ``chat_model`` (anything with ``chat(messages)``) as ``persona``.

        ``opening`` fixes the first message instead of asking the model for it; the user ends
        the conversation by answering ``end_token``; ``params`` go to every ``chat`` call.
        """
        if not isinstance(persona, str) or not persona.strip():
            raise TypeError("SimulatedUser.model needs a persona: who the user is, what they want")
        if not callable(getattr(chat_model, "chat", None)):
            raise TypeError(
                f"SimulatedUser.model needs a chat model with chat(messages), got {chat_model!r}"
            )
        return cls(
            persona=persona,
            chat_model=chat_model,
            opening=opening,
            end_token=end_token,
            params=params,
        )

    @property
    def kind(self) -> str:
        """``scripted`` or ``model``."""
        return "scripted" if self.script is not None else "model"

    def planned(self, turn: int) -> ScriptedTurn | None:
        """The scripted turn ``turn`` (1-based) with its expectations, or None."""
        if self.script is None or not 1 <= turn <= len(self.script):
            return None
        return self.script[turn - 1]

    def prompt(self, messages: Sequence[Message]) -> list[dict[str, str]]:
        """The chat request of a model-played user: the persona, then the conversation with the
        roles swapped."""
        system = f"{self.persona}\n\n{_MODEL_INSTRUCTIONS.format(end=self.end_token)}"
        out = [{"role": "system", "content": system}]
        if not messages:
            out.append({"role": "user", "content": _OPENING})
        for message in messages:
            role = "assistant" if message["role"] == "user" else "user"
            out.append({"role": role, "content": str(message.get("content") or "")})
        return out

    async def areply(self, messages: Sequence[Message], turn: int) -> str | None:
        """The user's message for ``turn`` given the conversation so far; None ends it."""
        if self.script is not None:
            planned = self.planned(turn)
            return None if planned is None else planned.text
        if turn == 1 and self.opening is not None:
            return self.opening
        request = self.prompt(messages)
        achat = getattr(self.chat_model, "achat", None)
        if achat is not None and inspect.iscoroutinefunction(achat):
            reply = await achat(request, **self.params)
        else:
            reply = await asyncio.to_thread(self.chat_model.chat, request, **self.params)
        text = reply.text if isinstance(reply, ChatReply) else str(getattr(reply, "text", reply))
        if text.strip() == self.end_token or text.strip().endswith(self.end_token):
            return None
        return text

    def __repr__(self) -> str:
        if self.script is not None:
            return f"SimulatedUser.scripted({len(self.script)} turns)"
        return f"SimulatedUser.model({self.persona!r:.40}, {self.chat_model!r})"
