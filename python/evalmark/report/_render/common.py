"""Small pieces the renderers share: safe HTML text and table cells, percentages, numbers,
timestamps (counted words and gate conditions: :mod:`evalmark.report._wording`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from html import escape
from itertools import repeat

__all__ = [
    "cell",
    "cells",
    "html_text",
    "html_texts",
    "markdown_table",
    "number",
    "percent",
    "stamp",
    "visible",
]

_SPACE = re.compile(r"\s+")
# Control characters other than tab, line feed and carriage return (C0, DEL and C1): HTML
# calls them parse errors, and in a terminal or a pull-request page they recolour or hide text.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# The bulk forms below join their texts with this character, which no rule here changes (a
# printable character: not whitespace, not a control, nothing escaped); texts that hold it go
# one at a time.
_JOIN = "\u2e3b"
# The runs of whitespace that ``_SPACE.sub(" ", ...)`` changes: all but a lone space.
_SPACE_RUNS = re.compile(r"\s{2,}|[^\S ]")
_SPACES = repeat(" ")


def visible(text: str) -> str:
    """``text`` with each control character but tab, line feed and carriage return shown as
    U+FFFD (the replacement character), so that the reader sees something was there."""
    if text.isprintable():  # no control character (nor any whitespace but the space)
        return text
    return _CONTROLS.sub("\ufffd", text)


def html_text(value: object) -> str:
    """``value`` as text safe inside an HTML element or a quoted attribute."""
    return escape(visible(str(value)), quote=True)


def html_texts(values: Sequence[object]) -> list[str]:
    """``[html_text(v) for v in values]``, escaped in one pass over the joined texts."""
    texts = [v if type(v) is str else str(v) for v in values]
    return _by_width(texts, _html_joined) or list(map(html_text, texts))


def _html_joined(texts: list[str], sep: str) -> list[str] | None:
    joined = sep.join(texts)
    if joined.count(sep) != len(texts) - 1:
        return None
    return html_text(joined).split(sep)


# Separators for ASCII texts, which no rule here changes (printable, not whitespace, nothing
# escaped): ASCII texts joined by one stay one byte a character, so each pass over them is a
# quarter of a pass over the same texts joined with others that need four.
_ASCII_JOINS = "`^~#@"
# Below this many texts of a kind, the texts go in one joined run.
_APART = 64


def _by_width(
    texts: list[str], run: Callable[[list[str], str], list[str] | None]
) -> list[str] | None:
    """``run(texts, sep)``: the texts joined by ``sep`` and treated in passes over the joined
    text, the ASCII texts and the others apart when both are many. None when no separator
    fits (a text holds each)."""
    if not texts:
        return []
    flags = list(map(str.isascii, texts))
    plain = sum(flags)
    if plain == len(texts):
        return _ascii_run(texts, run)
    if plain < _APART or len(texts) - plain < _APART:
        return run(texts, _JOIN)
    other = run([t for t, a in zip(texts, flags, strict=True) if not a], _JOIN)
    simple = _ascii_run([t for t, a in zip(texts, flags, strict=True) if a], run)
    if other is None or simple is None:
        return run(texts, _JOIN)
    rest, first = iter(other), iter(simple)
    return [next(first) if a else next(rest) for a in flags]


def _ascii_run(
    texts: list[str], run: Callable[[list[str], str], list[str] | None]
) -> list[str] | None:
    """``run`` over ASCII texts, with the first ASCII separator none of them holds."""
    for sep in _ASCII_JOINS:
        found = run(texts, sep)
        if found is not None:
            return found
    return run(texts, _JOIN)


def cell(text: object, limit: int = 300) -> str:
    """``text`` made safe for one Markdown table cell: one line, pipes and HTML escaped, cut at
    ``limit`` characters."""
    value = visible(_SPACE.sub(" ", str(text)).strip())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return _table_safe(value)


def _table_safe(value: str) -> str:
    """The escaping of a Markdown table cell: HTML's three characters and the pipe."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def cells(texts: Sequence[object], limit: int = 300) -> list[str]:
    """``[cell(t, limit) for t in texts]``, made in a few passes over the joined texts."""
    values = [t if type(t) is str else str(t) for t in texts]
    found = _by_width(values, lambda part, sep: _cells_joined(part, limit, sep))
    return [cell(t, limit) for t in values] if found is None else found


def _cells_joined(values: list[str], limit: int, sep: str) -> list[str] | None:
    joined = sep.join(values)
    if joined.count(sep) != len(values) - 1:
        return None
    printable = joined.isprintable()  # printable: no control, no whitespace but spaces
    if "  " in joined or not printable:
        joined = _SPACE_RUNS.sub(" ", joined)  # each run one space, then a text's ends trimmed:
        joined = joined.replace(" " + sep, sep).replace(sep + " ", sep)
    elif any(map(str.startswith, values, _SPACES)) or any(map(str.endswith, values, _SPACES)):
        joined = joined.replace(" " + sep, sep).replace(sep + " ", sep)
    joined = joined.strip()
    if not printable:
        joined = visible(joined)
    if max(map(len, values)) > limit:  # no text grows: only then can a cut be due
        parts = joined.split(sep)
        if max(map(len, parts)) > limit:
            parts = [v if len(v) <= limit else v[: limit - 1] + "…" for v in parts]
            joined = sep.join(parts)
    return _table_safe(joined).split(sep)


def percent(value: float | None) -> str:
    """``value`` (0–100) with one decimal and a percent sign; an em dash for None."""
    return "—" if value is None else f"{value:.1f}%"


def number(value: float | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; an em dash for None."""
    return "—" if value is None else f"{value:.{digits}f}"


def markdown_table(
    header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]
) -> list[str]:
    """The lines of a Markdown table (cells already made safe with :func:`cell`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def stamp(timestamp: bool | str) -> str | None:
    """The timestamp a formatter prints: None when not asked (the default, so the same run
    gives the same bytes), the current UTC time for True, or the given text."""
    if timestamp is True:
        from datetime import UTC, datetime

        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return timestamp or None
