"""Edits of a JSON text for the tests of the Rust scans against msgspec: the same document
written another way (a key's first character as a ``\\u`` escape), or changed in ways JSON
or the typed readings may refuse (a key repeated, a number replaced, bytes around the text,
the text cut off)."""

from __future__ import annotations


def escaped(key: str) -> bytes:
    """``"key"`` with its first character written as a ``\\u`` escape."""
    return f'"\\u{ord(key[0]):04x}{key[1:]}"'.encode()


def edited(
    data: bytes,
    escape: str | None = None,
    repeat: str | None = None,
    number: tuple[bytes, bytes] | None = None,
    around: bytes = b"",
    cut: float | None = None,
) -> tuple[bytes, bool]:
    """``data`` with every key ``escape`` escaped, the first key ``repeat`` written twice
    (its first value 0), every ``number[0]`` replaced by ``number[1]``, ``around`` before and
    reversed after it, then cut to the share ``cut`` of its length; and whether a key was
    repeated."""
    if escape is not None:
        data = data.replace(f'"{escape}"'.encode(), escaped(escape))
    repeated = repeat is not None and f'"{repeat}": '.encode() in data
    if repeated:
        data = data.replace(f'"{repeat}": '.encode(), f'"{repeat}": 0, "{repeat}": '.encode(), 1)
    if number is not None:
        data = data.replace(*number)
    data = around + data + around[::-1]
    if cut is not None:
        data = data[: int(len(data) * cut)]
    return data, repeated
