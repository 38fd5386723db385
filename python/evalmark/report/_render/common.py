"""Small pieces the renderers share: safe HTML text and table cells, percentages, numbers,
timestamps (counted words and gate conditions: :mod:`evalmark.report._wording`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
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
    joined = _JOIN.join(texts)
    if not texts or joined.count(_JOIN) != len(texts) - 1:
        return list(map(html_text, texts))
    return html_text(joined).split(_JOIN)


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
    joined = _JOIN.join(values)
    if not values or joined.count(_JOIN) != len(values) - 1:
        return [cell(t, limit) for t in values]
    printable = joined.isprintable()  # printable: no control, no whitespace but spaces
    if "  " in joined or not printable:
        joined = _SPACE_RUNS.sub(" ", joined)  # each run one space, then a text's ends trimmed:
        joined = joined.replace(" " + _JOIN, _JOIN).replace(_JOIN + " ", _JOIN)
    elif any(map(str.startswith, values, _SPACES)) or any(map(str.endswith, values, _SPACES)):
        joined = joined.replace(" " + _JOIN, _JOIN).replace(_JOIN + " ", _JOIN)
    joined = joined.strip()
    if not printable:
        joined = visible(joined)
    if max(map(len, values)) > limit:  # no text grows: only then can a cut be due
        parts = joined.split(_JOIN)
        if max(map(len, parts)) > limit:
            parts = [v if len(v) <= limit else v[: limit - 1] + "…" for v in parts]
            joined = _JOIN.join(parts)
    return _table_safe(joined).split(_JOIN)


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
