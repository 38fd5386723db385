"""The inspect importer's checks over whole columns: when every sample of a log has an id,
leaves the refused and unknown fields empty, has no attachments, a text or message list for
input, a text for target, a whole epoch from 1 up, and no sample appears twice, the import's
names, builds and targets are made column by column (each check one pass in C, not a
Python step per row). Any other log takes the per-row path, which finds and words the
first fault in order.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import msgspec

from evalmark.interop._inspect_log import REFUSED, Rows

__all__ = ["Columns", "by_build", "columns_of", "fast_columns"]

_ID, _EPOCH, _INPUT = attrgetter("id"), attrgetter("epoch"), attrgetter("input")
_TARGET, _ATTACHMENTS = attrgetter("target"), attrgetter("attachments")
# what an empty field's text is, as a log writes it
_EMPTY_TEXTS = (b"null", b"[]", b"{}", b'""')
_EMPTY_RAW = tuple(map(msgspec.Raw, _EMPTY_TEXTS))


class Columns:
    """Per sample's epoch, in order: its name, build, targets and row."""

    def __init__(
        self, names: list[str], builds: list[str], targets: list[list[str]], rows: list[Any]
    ) -> None:
        self.names = names
        self.builds = builds
        self.targets = targets
        self.rows = rows


def _empty(column: list[Any]) -> bool:
    """Whether every value of an optional field's column is unset or one empty text."""
    first = column[0] if column else None
    if column.count(first) == len(column):  # the first's everywhere (None: unset)
        return first is None or (type(first) is msgspec.Raw and first in _EMPTY_RAW)
    kinds = set(map(type, column))
    if kinds != {msgspec.Raw}:
        return kinds <= {type(None)}
    text = b"".join(column)  # the fields' JSON texts, one after another
    return any(text == empty * len(column) for empty in _EMPTY_TEXTS)


def _epochs(column: list[Any]) -> int | None:
    """The number of epochs when every sample's is unset (1) or a whole number from 1 up."""
    if column.count(None) == len(column):
        return 1
    if set(map(type, column)) == {int} and min(column) >= 1:
        return int(max(column))
    return None


def _plain(rows: Rows) -> bool:
    """Whether every sample leaves the refused and unknown fields empty, has no attachments
    and a text or message list for input."""
    typed = rows.typed
    for attribute in (*REFUSED, *(name for _, name in rows.extra)):
        value = attrgetter(attribute)  # unset: None; set: JSON text, never empty (true)
        if any(map(value, typed)) and not _empty(list(map(value, typed))):
            return False
    if any(map(_ATTACHMENTS, typed)):
        return False
    return set(map(type, map(_INPUT, typed))) <= {str, list}


def fast_columns(
    rows: Rows, task: str, model: str, common: bool = False
) -> tuple[Columns, int] | None:
    """The columns of the log's samples and its number of epochs, or None when a sample
    needs the per-row checks (``common``: the decoding checked already that every sample
    has an id, a whole epoch, empty refused fields and attachments, and a text target)."""
    typed = rows.typed
    ids = list(map(_ID, typed))
    if not common and msgspec.UNSET in ids:
        return None
    if not common and not _plain(rows):
        return None
    targets = list(map(_TARGET, typed))
    if not common and not set(map(type, targets)) <= {str}:
        return None
    found = columns_of(ids, list(map(_EPOCH, typed)), targets, task, model)
    if found is None:
        return None
    names, builds, firsts, epochs = found
    return Columns(names, builds, [[target] for target in firsts], typed), epochs


def columns_of(
    ids: list[Any], epoch_column: list[Any], targets: list[str], task: str, model: str
) -> tuple[list[str], list[str], list[str], int] | None:
    """The names, builds and targets (a sample's first epoch's) of samples whose ids, epochs
    and (text) targets are given, and the number of epochs; None when a sample appears twice
    or epochs are not whole numbers from 1 up (or unset) on every sample."""
    count = len(ids)
    epochs = _epochs(epoch_column) if count else 1
    if epochs is None:
        return None
    names = list(map(f"{task}-".__add__, map(format, ids)))
    if epochs == 1:
        builds = [model] * count
        if len(set(names)) != count:
            return None
    else:
        builds = [f"{model}-epoch-{epoch}" for epoch in epoch_column]
        if len(set(zip(names, builds, strict=True))) != count:
            return None
        first = dict(zip(reversed(names), reversed(targets), strict=True))
        targets = [first[name] for name in names]  # a sample's first epoch's target
    return names, builds, targets, epochs


def by_build(builds: list[str], names: list[str], texts: list[str]) -> dict[str, dict[str, str]]:
    """The answers ``texts`` by build and sample name (each sample's epoch: its build in
    ``builds``, its name in ``names``)."""
    distinct = set(builds)
    if len(distinct) == 1:
        return {distinct.pop(): dict(zip(names, texts, strict=True))}
    outputs: dict[str, dict[str, str]] = {}
    for build, name, text in zip(builds, names, texts, strict=True):
        outputs.setdefault(build, {})[name] = text
    return outputs
