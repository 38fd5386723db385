"""The pieces of the JSON report's column writer: the separators of one layout, values
encoded by msgspec a whole column at a time, and :class:`Template`, the text they are written
into. Everything is UTF-8 bytes until :meth:`Template.render` decodes the whole text once.

* texts are escaped by msgspec (``"``, ``\\`` and U+0000-U+001F), their quotes left to the
  templates; a lone surrogate, which msgspec refuses, gives None, so the caller takes the
  reference path and fails the same way;
* numbers are encoded by msgspec itself, one call per column.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import chain
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from evalmark._files.text import without_surrogates

__all__ = ["Layout", "Template", "layout_for", "numbers", "texts", "three_decimals"]

_encode = msgspec.json.encode


class Layout:
    """The separators of one JSON layout: ``indent`` spaces per level, or compact (None)."""

    __slots__ = ("colon", "indent")

    def __init__(self, indent: int | None) -> None:
        self.indent = indent
        self.colon = b": " if indent else b":"

    def pad(self, depth: int) -> bytes:
        """The line break and indentation before a value at ``depth`` (empty when compact)."""
        return b"\n" + b" " * (self.indent * depth) if self.indent else b""

    def open(self, bracket: bytes, depth: int) -> bytes:
        """The opening bracket of a non-empty container at ``depth``, up to its first item."""
        return bracket + self.pad(depth + 1)

    def sep(self, depth: int) -> bytes:
        """Between two items of a container at ``depth``."""
        return b"," + self.pad(depth + 1)

    def close(self, bracket: bytes, depth: int) -> bytes:
        """After the last item of a non-empty container at ``depth``."""
        return self.pad(depth) + bracket

    def value(self, value: Any, depth: int) -> bytes:
        """Any plain value encoded by msgspec as the reference does, laid out at ``depth`` (a
        lone surrogate, in a judge's prompt kept in a result's metadata say, written as the six
        characters ``\\udcff``, as the reference writes it)."""
        try:
            encoded = _encode(value)
        except UnicodeEncodeError:
            encoded = _encode(without_surrogates(value))
        if self.indent:
            # A JSON text holds no raw line break inside a string: indent each to ``depth``.
            return msgspec.json.format(encoded, indent=self.indent).replace(b"\n", self.pad(depth))
        return encoded

    def array(self, values: Sequence[bytes], depth: int) -> bytes:
        """An array at ``depth`` from encoded values."""
        if not values:
            return b"[]"
        return self.open(b"[", depth) + self.sep(depth).join(values) + self.close(b"]", depth)


def layout_for(indent: object) -> Layout | None:
    """The layout ``dumps`` writes for ``indent`` (0 and None: compact), or None for an
    indent only the reference path takes (negative, or not an int)."""
    if indent is None or (type(indent) is int and indent == 0):
        return Layout(None)
    if type(indent) is int and indent > 0:
        return Layout(indent)
    return None


class Template:
    """A JSON text to write with one ``%`` formatting: templates (fixed text, ``%`` doubled,
    and slots) and the values of their slots, in order. One formatting call and one decode
    for the whole text: the fixed text is copied by ``memcpy``, and no text of a row or a
    value is made twice."""

    __slots__ = ("_parts", "_values")

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._values: list[Iterable[Any]] = []

    def text(self, fixed: bytes) -> None:
        """Append fixed text."""
        self._parts.append(fixed.replace(b"%", b"%%"))

    def slots(self, templates: Iterable[bytes], values: Iterable[Any]) -> None:
        """Append ``templates`` and the values of their slots, in order."""
        self._parts.extend(templates)
        self._values.append(values)

    def extend(self, other: Template) -> None:
        """Append ``other``."""
        self._parts.extend(other._parts)
        self._values.extend(other._values)

    def render(self) -> str:
        """The text (once: the values may be read as they are written)."""
        return (b"".join(self._parts) % tuple(chain.from_iterable(self._values))).decode("utf-8")


def numbers(values: list[Any]) -> list[bytes]:
    """Numbers as msgspec spells them (shortest round trip, NaN and infinities as null)."""
    if not values:
        return []
    # No encoded number holds a comma: split msgspec's array.
    return _encode(values)[1:-1].split(b",")


def three_decimals(values: npt.NDArray[np.float64]) -> list[bytes]:
    """Each value as ``"%.3f"`` writes it: looked up for the values in [0, 1] (the least
    value written as each next thousandth found once, by ``"%.3f"`` itself), formatted for
    the rest (NaN, infinities, -0.0, out of range)."""
    odd = ~((values >= 0.0) & (values <= 1.0)) | np.signbit(values)
    plain = np.where(odd, 0.0, values)
    least = _thousandths()
    # 1000 * value is within a thousandth of the one written: correct by a step either way.
    found = np.clip(np.rint(plain * 1000.0).astype(np.int64), 1, 999)
    found -= plain < least[found - 1]
    found += plain >= least[found]
    written: list[bytes] = _THOUSANDTHS[found].tolist()
    for index in np.flatnonzero(odd).tolist():
        written[index] = b"%.3f" % values[index]
    return written


_THOUSANDTHS = np.array([b"%.3f" % (m / 1000) for m in range(1001)], dtype=object)


@cache
def _thousandths() -> npt.NDArray[np.float64]:
    # The m-th entry is the least float "%.3f" writes as (m + 1) / 1000: "%.3f" rounds the
    # exact binary value, so it is the float next to (2m + 1) / 2000, found by stepping.
    least = []
    for m, text in enumerate(_THOUSANDTHS[1:].tolist()):
        value = (2 * m + 1) / 2000
        while b"%.3f" % value == text:
            value = math.nextafter(value, 0.0)
        while b"%.3f" % value != text:
            value = math.nextafter(value, 1.0)
        least.append(value)
    return np.array(least, dtype=np.float64)


def texts(values: list[Any], *, checked: bool = False) -> list[bytes] | None:
    """Each text of ``values`` as msgspec encodes it, without its quotes; None when one is
    not a str (unless ``checked``: the caller knows they all are) or msgspec refuses one (a
    lone surrogate): the reference path then writes it, or fails as it fails."""
    if not values:
        return []
    if not checked and set(map(type, values)) != {str}:
        return None
    try:
        encoded = _encode(values)
    except (TypeError, UnicodeEncodeError):
        return None
    # Inside an encoded text every quote follows a backslash, so each '","' of the array
    # separates two texts: split it.
    parts = encoded[2:-2].split(b'","')
    if len(parts) == len(values):
        return parts
    return [_encode(v)[1:-1] for v in values]  # pragma: no cover - the split cannot miss
