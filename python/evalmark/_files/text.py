"""Text that every writer can keep: lone surrogates written as ``\\udcff``.

Python text may hold a lone surrogate (``b"\\xff".decode("utf-8", "surrogateescape")``, half
of an emoji cut from a model's reply); UTF-8 cannot encode one, so a file, a database row or a
JSON text refuses it. evalmark keeps such text by writing each lone surrogate as the six
characters ``\\udcff`` (``backslashreplace``), in every report, the history and the cassette:
nothing is lost, nothing fails, and every reader sees the same text.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["escape_surrogates", "has_surrogates", "to_utf8", "without_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (which UTF-8 cannot encode)."""
    if text.isascii():  # a flag of the string: no scan
        return False
    try:  # the encoder scans several times faster than a search for a character class
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def escape_surrogates(text: str) -> str:
    """``text`` with every lone surrogate written as ``\\udcff`` (the text itself when it holds
    none)."""
    if not has_surrogates(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def without_surrogates(value: Any) -> Any:
    """``value`` with :func:`escape_surrogates` applied to every text inside it (dict keys and
    values, list and tuple items); other values are returned as they are."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(map(without_surrogates, value))
    if isinstance(value, list):
        return list(map(without_surrogates, value))
    return value


def to_utf8(text: str) -> bytes:
    """``text`` as UTF-8 bytes, a lone surrogate written as ``\\udcff``."""
    return text.encode("utf-8", "backslashreplace")
