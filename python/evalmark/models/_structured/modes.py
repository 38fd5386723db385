"""How the shape reaches the model: ``native`` (an OpenAI-compatible ``response_format`` of
type ``json_schema``), ``prompted`` (the schema written into the prompt) or ``auto`` (native,
then prompted when the server says it does not support it).

In replay, a native request that was never recorded falls back, in ``auto`` mode, to the
prompted request when that one was recorded: the recording run fell back, so the replay does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from evalmark.errors import CassetteMiss, StructuredOutputError
from evalmark.models._protocols import achat_of
from evalmark.models._values import ChatReply

__all__ = ["MODES", "Mode", "StructuredCaller", "rejects_structured_output"]

Mode = Literal["native", "prompted", "auto"]
MODES: tuple[str, ...] = ("native", "prompted", "auto")

_REJECTION_WORDS = ("response_format", "json_schema", "json schema", "structured output")


def _status(exc: BaseException) -> int | None:
    for name in ("status_code", "status"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def rejects_structured_output(exc: BaseException) -> bool:
    """True when ``exc`` is a server saying it does not support ``response_format`` with a
    JSON Schema: an HTTP 400, 404, 415, 422 or 501 whose message mentions ``response_format``,
    ``json_schema`` or structured output."""
    if _status(exc) not in (400, 404, 415, 422, 501):
        return False
    text = str(exc).casefold()
    body = getattr(exc, "body", None)
    if body is not None:
        text += " " + json.dumps(body, default=str).casefold()
    return any(word in text for word in _REJECTION_WORDS)


Messages = list[dict[str, Any]]
_Call = tuple[str, Messages, dict[str, Any]]


def _short(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class StructuredCaller:
    """Asks ``model`` for a structured reply in ``mode``; see the module docstring.

    Once a server has refused native structured output, an ``auto`` caller asks prompted
    straight away. ``label`` names what is asked in errors (the judge prompt)."""

    def __init__(self, model: Any, mode: Mode, *, label: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.model = model
        self.mode: Mode = mode
        self.label = label
        self.native_refused = False

    def plan(
        self,
        messages: Callable[[Mode], Messages],
        response_format: Mapping[str, Any],
        params: Mapping[str, Any],
    ) -> list[_Call]:
        """The calls to try, in order: (mode, messages, parameters)."""
        prompted: _Call = ("prompted", messages("prompted"), dict(params))
        if self.mode == "prompted" or (self.mode == "auto" and self.native_refused):
            return [prompted]
        native: _Call = (
            "native",
            messages("native"),
            {**params, "response_format": dict(response_format)},
        )
        return [native, prompted] if self.mode == "auto" else [native]

    def _falls_back(self, exc: Exception, can: bool) -> bool:
        if rejects_structured_output(exc):
            if self.mode == "native":
                raise StructuredOutputError(
                    f"judge prompt {self.label!r}: the model server rejected structured output "
                    f"(response_format json_schema): {_short(str(exc))}; use mode='auto' or "
                    "mode='prompted'"
                ) from exc
            self.native_refused = True
            return can
        return can and isinstance(exc, CassetteMiss)

    def ask(
        self,
        messages: Callable[[Mode], Messages],
        response_format: Mapping[str, Any],
        params: Mapping[str, Any],
    ) -> tuple[str, ChatReply]:
        """(the mode used, the reply)."""
        (mode, sent, sent_params), *rest = self.plan(messages, response_format, params)
        try:
            return mode, self.model.chat(sent, **sent_params)
        except Exception as exc:
            if not self._falls_back(exc, bool(rest)):
                raise
            first = exc
        mode, sent, sent_params = rest[0]
        try:
            return mode, self.model.chat(sent, **sent_params)
        except CassetteMiss:
            if isinstance(first, CassetteMiss):
                raise first from None
            raise

    async def aask(
        self,
        messages: Callable[[Mode], Messages],
        response_format: Mapping[str, Any],
        params: Mapping[str, Any],
    ) -> tuple[str, ChatReply]:
        """Async :meth:`ask`."""
        (mode, sent, sent_params), *rest = self.plan(messages, response_format, params)
        try:
            return mode, await achat_of(self.model, sent, **sent_params)
        except Exception as exc:
            if not self._falls_back(exc, bool(rest)):
                raise
            first = exc
        mode, sent, sent_params = rest[0]
        try:
            return mode, await achat_of(self.model, sent, **sent_params)
        except CassetteMiss:
            if isinstance(first, CassetteMiss):
                raise first from None
            raise
