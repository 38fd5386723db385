"""Row forms: a long table written in one call, each row by the form its key picks.

A form is a ``%`` template whose slots read one column each, row by row: ``%s`` a text as it
is, ``%C`` a text as a Markdown table cell (:func:`~evalmark.report._render.common.cell`),
``%H`` a text escaped for HTML (:func:`~evalmark.report._render.common.html_text`), ``%.NR``
``repr`` of a text cut to N characters with an ellipsis, ``%.Nf`` a number with N decimals,
``%.0s`` nothing (the value is not read); ``%%`` is a percent sign.
Every form of a call reads the same columns, the k-th slot the k-th column.

:func:`fill` writes the rows in the native extension, escaping and formatting in one pass; a
table with a text holding a lone surrogate (which the extension does not read) is written by
:func:`python_fill`, the same rules in Python, which is also the reference the native form is
tested against. A text :func:`fill` returns is marked as holding no lone surrogate when the
extension wrote it (:class:`Filled`: it reads the forms, the texts around the rows and every
text written, and reads none holding one), so that the page needs no second scan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from evalmark.metrics._native import core as _core
from evalmark.report._render.common import cells, html_texts

fill_rows = _core.fill_rows  # a module name, so tests can take the Python path

__all__ = ["Filled", "Table", "fill", "fill_lines", "python_fill"]

_SLOT = re.compile(r"%(?:%|s|C|H|\.0s|\.\d+f|\.[1-9]\d*R)")


def _escaping(slot: str) -> Callable[[list[object]], list[str]] | None:
    """How a slot's texts are made before ``%s`` writes them; None for a slot ``%`` reads."""
    if slot == "%C":
        return cells
    if slot == "%H":
        return html_texts
    if slot.endswith("R"):
        limit = int(slot[2:-1])
        return lambda texts: [
            repr(t if len(t) <= limit else t[: limit - 1] + "…") for t in map(str, texts)
        ]
    return None


class Filled(NamedTuple):
    """The rows written (with the texts around them), and whether the whole holds no lone
    surrogate (known when the native extension wrote it: it reads only texts without one)."""

    text: str
    clean: bool


class Table(NamedTuple):
    """A table to write: its row forms, each row's form (a list or an integer array) and the
    columns its slots read."""

    forms: list[str]
    keys: list[int] | npt.NDArray[np.int64]
    columns: list[list[Any]]


def fill_lines(lines: Sequence[str | Table]) -> Filled:
    """``"\\n".join`` of ``lines``, each table written as its rows (rows joined by line feeds):
    the whole in one :func:`fill` call, the lines between tables written as rows of fixed
    text, so the text is made once and no copy of it is joined into a larger one."""
    at = [k for k, line in enumerate(lines) if isinstance(line, Table)]
    if not at:
        return Filled("\n".join(lines), False)  # type: ignore[arg-type]
    width = max(len(lines[k].columns) for k in at)  # type: ignore[union-attr]
    forms: list[str] = []
    keys: list[npt.NDArray[np.int64]] = []  # each table's keys, offset past the forms before
    columns: list[list[Any]] = [[] for _ in range(width)]
    first, last = at[0], at[-1]
    before = "".join(f"{line}\n" for line in lines[:first])
    after = "".join(f"\n{line}" for line in lines[last + 1 :])
    fixed: list[str] = []
    for line in lines[first : last + 1]:
        if not isinstance(line, Table):
            fixed.append(line)
            continue
        if fixed:  # the lines since the last table: one row of fixed text
            keys.append(np.full(1, len(forms), dtype=np.int64))
            forms.append("\n".join(fixed).replace("%", "%%"))
            for column in columns:
                column.append(None)
            fixed = []
        keys.append(np.asarray(line.keys, dtype=np.int64) + len(forms))
        forms += line.forms
        count = len(line.keys)
        for k, column in enumerate(columns):
            if k >= len(line.columns):
                column += [None] * count
            else:  # a column as long as the keys is taken whole, not copied first
                part = line.columns[k]
                column += part if len(part) == count else part[:count]
    all_keys: list[int] = np.concatenate(keys).tolist()
    return fill(forms, all_keys, columns, before, after)


def fill(
    forms: Sequence[str],
    keys: Sequence[int],
    columns: Sequence[list[Any]],
    before: str = "",
    after: str = "",
) -> Filled:
    """Row ``r`` written by ``forms[keys[r]]`` with the values ``columns[k][r]``, rows joined by
    line feeds, the whole between ``before`` and ``after``."""
    try:
        found = fill_rows(list(forms), list(keys), list(columns), before, after)
    except UnicodeEncodeError:  # a lone surrogate in a form or around the rows
        found = None
    if found is not None:
        return Filled(found, True)
    return Filled(python_fill(forms, keys, columns, before, after), False)


def python_fill(
    forms: Sequence[str],
    keys: Sequence[int],
    columns: Sequence[list[Any]],
    before: str = "",
    after: str = "",
) -> str:
    """:func:`fill`'s text, written by Python's ``%`` formatting after escaping the texts of
    the ``%C`` and ``%H`` slots (a text holding a lone surrogate is kept as it is)."""
    count = len(keys)
    if not count:
        return before + after
    kinds = [[m for m in _SLOT.findall(form) if m != "%%"] for form in forms]
    plain = [_SLOT.sub(lambda m: "%s" if _escaping(m.group()) else m.group(), f) for f in forms]
    values: list[list[object]] = []
    for k, column in enumerate(columns):
        found = list(column[:count])
        slots = {kind[k] for kind in kinds if k < len(kind)}
        for slot in slots:
            escape = _escaping(slot)
            rows = [
                r for r, key in enumerate(keys) if k < len(kinds[key]) and kinds[key][k] == slot
            ]
            if escape is not None and rows:
                texts = escape([found[r] for r in rows])
                for r, text in zip(rows, texts, strict=True):
                    found[r] = text
        values.append(found)
    width = max(map(len, kinds), default=0)
    flat: list[object] = [None] * (width * count)
    for k in range(width):
        flat[k::width] = values[k]
    # a form with fewer slots than the widest reads fewer values: fill row by row then
    if any(len(k) != width for k in kinds):
        lines = [
            plain[key] % tuple(values[k][r] for k in range(len(kinds[key])))
            for r, key in enumerate(keys)
        ]
        return before + "\n".join(lines) + after
    return before + "\n".join(map(plain.__getitem__, keys)) % tuple(flat) + after
