"""The pieces of the JSON report's column writer: the separators of one layout, and values
encoded by msgspec a whole column at a time, spelled as the reference path spells them.

* strings are escaped by msgspec, or by :func:`json.encoder.encode_basestring`, which
  escapes exactly the characters msgspec escapes (``"``, ``\\`` and U+0000-U+001F, the same
  spellings); a lone surrogate, which msgspec refuses, gives None, so the caller takes the
  reference path and fails the same way;
* numbers are encoded by msgspec itself, one call per column.
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring
from typing import Any

import msgspec

__all__ = ["Layout", "layout_for", "numbers", "strings"]

_encode = msgspec.json.encode


class Layout:
    """The separators of one JSON layout: ``indent`` spaces per level, or compact (None)."""

    __slots__ = ("colon", "indent")

    def __init__(self, indent: int | None) -> None:
        self.indent = indent
        self.colon = ": " if indent else ":"

    def pad(self, depth: int) -> str:
        """The line break and indentation before a value at ``depth`` (empty when compact)."""
        return "\n" + " " * (self.indent * depth) if self.indent else ""

    def open(self, bracket: str, depth: int) -> str:
        """The opening bracket of a non-empty container at ``depth``, up to its first item."""
        return bracket + self.pad(depth + 1)

    def sep(self, depth: int) -> str:
        """Between two items of a container at ``depth``."""
        return "," + self.pad(depth + 1)

    def close(self, bracket: str, depth: int) -> str:
        """After the last item of a non-empty container at ``depth``."""
        return self.pad(depth) + bracket

    def value(self, value: Any, depth: int) -> str:
        """Any plain value encoded by msgspec as the reference does, laid out at ``depth``."""
        encoded = _encode(value)
        if self.indent:
            encoded = msgspec.json.format(encoded, indent=self.indent)
            return encoded.decode("utf-8").replace("\n", self.pad(depth))
        return encoded.decode("utf-8")

    def array(self, values: Sequence[str], depth: int) -> str:
        """An array at ``depth`` from encoded values."""
        if not values:
            return "[]"
        return self.open("[", depth) + self.sep(depth).join(values) + self.close("]", depth)


def layout_for(indent: object) -> Layout | None:
    """The layout ``dumps`` writes for ``indent`` (0 and None: compact), or None for an
    indent only the reference path takes (negative, or not an int)."""
    if indent is None or (type(indent) is int and indent == 0):
        return Layout(None)
    if type(indent) is int and indent > 0:
        return Layout(indent)
    return None


def numbers(values: list[Any]) -> list[str]:
    """Numbers as msgspec spells them (shortest round trip, NaN and infinities as null)."""
    if not values:
        return []
    # No encoded number holds a comma: split msgspec's array.
    return _encode(values).decode("ascii")[1:-1].split(",")


def strings(values: list[Any], layout: Layout, depth: int) -> list[str] | None:
    """The encoded strings (other values encoded as msgspec spells them, at ``depth``), or
    None when msgspec refuses one (a lone surrogate): the reference path then fails as it
    fails."""
    try:
        encoded = _encode(values)
    except (TypeError, UnicodeEncodeError):
        return None
    if len(values) > 1 and b'\\"' not in encoded and set(map(type, values)) == {str}:
        # No text holds a quote, so every '","' separates two of them: split msgspec's array.
        if encoded.isascii():
            # One decode, each text keeping its quotes (an encoded text holds no raw U+0000).
            parts = encoded[1:-1].decode("ascii").replace('","', '"\0"').split("\0")
        else:  # pieces of a wide str would each be scanned for their width: decode each
            parts = ['"' + text + '"' for text in map(bytes.decode, encoded[2:-2].split(b'","'))]
        if len(parts) == len(values):
            return parts
    try:
        return list(map(encode_basestring, values))
    except TypeError:  # not all str: msgspec spells them
        return [layout.value(v, depth) for v in values]
