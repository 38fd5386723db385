"""Tool calls as the trajectory strategies read them: :class:`Call` (a name and arguments),
read from plain lists of calls, OpenAI-style or LangChain-style message lists, and JSON text;
:func:`json_equal`, equality of JSON values by meaning; dotted argument paths."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from evalmark.errors import StrategyError

__all__ = ["Call", "drop_path", "get_path", "json_equal", "read_calls", "read_steps"]


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values by meaning: numbers by exact value (1 == 1.0; True is not 1),
    objects ignoring key order, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float | Decimal) and isinstance(b, int | float | Decimal):
        return _decimal(a) == _decimal(b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def _decimal(value: int | float | Decimal) -> Decimal:
    return (
        value
        if isinstance(value, Decimal)
        else Decimal(repr(value) if isinstance(value, float) else value)
    )


class Call:
    """A tool call reduced to what matching needs: name and arguments."""

    __slots__ = ("arguments", "name")

    def __init__(self, name: str, arguments: Mapping[str, Any]) -> None:
        self.name = name
        self.arguments = dict(arguments)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False, default=str)}"
            for k, v in sorted(self.arguments.items())
        )
        text = f"{self.name}({args})"
        return text if len(text) <= 120 else text[:119] + "…"


def _call(value: object, where: str) -> Call:
    name = getattr(value, "name", None)
    arguments: Any = getattr(value, "arguments", None)
    if isinstance(value, Mapping) and isinstance(value.get("function"), Mapping):
        value = value["function"]  # OpenAI: {"type": "function", "function": {...}}
    if isinstance(value, Mapping):
        name = value.get("name", value.get("tool", value.get("function")))
        arguments = value.get("arguments", value.get("args", value.get("parameters", {})))
    if isinstance(arguments, str):  # a chat reply's tool call carries JSON text
        try:
            arguments = json.loads(arguments, parse_float=Decimal) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise StrategyError(f"{where}: arguments are not valid JSON ({exc})") from None
    if arguments is None:
        arguments = {}
    if not isinstance(name, str) or not name:
        raise StrategyError(f"{where}: a tool call needs a name, got {value!r}")
    if not isinstance(arguments, Mapping):
        raise StrategyError(f"{where}: arguments of {name!r} must be a mapping, got {arguments!r}")
    return Call(name, arguments)


def _field(message: object, key: str) -> Any:
    return message.get(key) if isinstance(message, Mapping) else getattr(message, key, None)


def _is_message(item: object) -> bool:
    role = _field(item, "role")
    kind = _field(item, "type")
    return isinstance(role, str) or (
        isinstance(kind, str) and kind in ("ai", "human", "tool", "system", "AIMessage")
    )


def _steps(value: Sequence[Any], where: str) -> list[list[Call]]:
    """The tool calls of each assistant message that made any, in message order."""
    steps: list[list[Call]] = []
    for i, message in enumerate(value):
        if _field(message, "role") not in ("assistant", "ai") and _field(message, "type") not in (
            "ai",
            "AIMessage",
        ):
            continue
        calls = _field(message, "tool_calls") or []
        if calls:
            steps.append([_call(c, f"{where}[{i}].tool_calls[{k}]") for k, c in enumerate(calls)])
    return steps


def _parsed(value: object, where: str) -> Sequence[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_float=Decimal)
        except json.JSONDecodeError as exc:
            raise StrategyError(f"{where}: not a JSON list of tool calls ({exc})") from None
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise StrategyError(f"{where}: expected a list of tool calls, got {type(value).__name__}")
    return value


def read_steps(value: object, where: str) -> list[list[Call]] | None:
    """The per-message calls when ``value`` is a chat message list, else None."""
    items = _parsed(value, where)
    if items and all(_is_message(m) for m in items):
        return _steps(items, where)
    return None


def read_calls(value: object, where: str) -> list[Call]:
    """The calls of ``value`` (a list of calls, a message list or JSON text), in order."""
    items = _parsed(value, where)
    if items and all(_is_message(m) for m in items):
        return [call for step in _steps(items, where) for call in step]
    return [_call(item, f"{where}[{i}]") for i, item in enumerate(items)]


def get_path(arguments: Mapping[str, Any], path: str) -> tuple[bool, Any]:
    """(found, value) of the dotted ``path`` (``"time.start"``) in ``arguments``."""
    node: Any = arguments
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def drop_path(arguments: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A copy of ``arguments`` without the dotted ``path``."""
    head, _, rest = path.partition(".")
    out = dict(arguments)
    if head in out:
        if rest and isinstance(out[head], Mapping):
            out[head] = drop_path(out[head], rest)
        elif not rest:
            del out[head]
    return out
