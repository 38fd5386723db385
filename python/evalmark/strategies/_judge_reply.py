"""What a judge model handed back, made a reply or refused with a typed error: a model may
return ``None``, a number, a dict or bytes, and a reply may hold a value no check can use
(a 400-digit score); each is a :class:`~evalmark.errors.JudgeReplyError` naming the prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from evalmark.errors import EvalmarkError, JudgeReplyError
from evalmark.models._values import ChatReply

__all__ = ["as_reply", "read_checked"]

T = TypeVar("T")


def as_reply(reply: object, prompt: str) -> ChatReply:
    """``reply`` as a :class:`ChatReply` (a text, or anything with a text ``text``); a
    :class:`JudgeReplyError` (problem ``"type"``) for what a chat model never returns."""
    if isinstance(reply, ChatReply):
        return reply
    text = reply if isinstance(reply, str) else getattr(reply, "text", None)
    if isinstance(text, str):
        return ChatReply(text=text)
    raise JudgeReplyError(
        prompt,
        "type",
        f"the judge model returned {type(reply).__name__}, not a reply; its chat() must "
        "return a ChatReply or a str",
        repr(reply)[:200],
    )


def read_checked(read: Callable[[], T], prompt: str, text: str) -> T:
    """``read()``, an arithmetic, value or type error inside it (a score too large for a
    float, nesting too deep) made a :class:`JudgeReplyError` quoting the reply ``text``."""
    try:
        return read()
    except EvalmarkError:
        raise
    except (ArithmeticError, ValueError, TypeError, RecursionError) as exc:
        raise JudgeReplyError(
            prompt,
            "shape",
            f"a value in the reply cannot be used ({type(exc).__name__}: {exc}); a score "
            "must be a number on the judge's scale",
            text,
        ) from None
