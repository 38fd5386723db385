"""Small readers shared by the attribute conventions: JSON text decoded, values as text,
indexed attributes (``prefix.N.rest``) gathered, tool arguments as a mapping."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = ["arguments_of", "encode", "indexed", "parsed", "text_of"]

_INDEXED = re.compile(r"^(\d+)\.(.+)$")
_decode = msgspec.json.decode
_ENCODER = msgspec.json.Encoder(order="sorted")
encode = _ENCODER.encode  # compact JSON, keys sorted: what text_of gives of a JSON-like value


def parsed(value: Any) -> Any:
    """A JSON text decoded (other values, and text that is not JSON, as they are)."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return _decode(value)
        except msgspec.DecodeError:
            return value
    return value


def text_of(value: Any) -> str:
    """A value as text: a string itself, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return encode(value).decode("utf-8")
    except (TypeError, ValueError):  # not JSON-like: the standard encoder's fallback
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def indexed(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``prefix.N.rest = v`` attributes as a list (by N) of ``{rest: v}`` mappings."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        if key.startswith(prefix):
            m = _INDEXED.match(key[len(prefix) :])
            if m:
                found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return [found[i] for i in sorted(found)]


def arguments_of(value: Any) -> dict[str, Any]:
    """Tool arguments as a mapping: JSON text decoded; a value that is not a mapping as
    ``{"input": value}``."""
    value = parsed(value)
    if value is None:
        return {}
    return value if isinstance(value, dict) else {"input": value}
