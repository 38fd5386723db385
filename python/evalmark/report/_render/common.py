"""Small pieces the renderers share: safe table cells, percentages, numbers, timestamps (counted
words and gate conditions: :mod:`evalmark.report._wording`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["cell", "markdown_table", "number", "percent", "stamp"]

_SPACE = re.compile(r"\s+")


def cell(text: object, limit: int = 300) -> str:
    """``text`` made safe for one Markdown table cell: one line, pipes and HTML escaped, cut at
    ``limit`` characters."""
    value = _SPACE.sub(" ", str(text)).strip()
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


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
