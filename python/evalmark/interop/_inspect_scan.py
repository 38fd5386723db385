"""A common inspect_ai ``.json`` log read in one pass by the Rust core
(``evalmark._core.inspect_scan``): the columns a re-score reads and the log's own fields,
with nothing built for the rest of each sample (messages, usage, ...).

It accepts only logs :func:`evalmark.interop._inspect_common.read_common` accepts, and reads
the same values from them. A few of those it leaves to that reading (None): a key repeated in
an object it reads (msgspec keeps the last), nesting deeper than 64 levels, an integer id or
epoch outside int64, an integer outside int64 in the value of a scorer not named, and a
sample without a text value for each scorer named.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgspec

from evalmark.metrics._native import core as _core

__all__ = ["Scanned", "scan_common"]

# the log's own fields, in the order read_common gives them
_HEADER = (
    "version",
    "status",
    "eval",
    "plan",
    "results",
    "stats",
    "reductions",
    "tags",
    "metadata",
    "invalidated",
)
_ANY = msgspec.json.Decoder()


class Scanned(NamedTuple):
    """A common log's columns: ``header``, its own fields present (decoded), then one item
    per sample in the log's order: ``ids``, ``epochs`` (None for a sample without one),
    ``targets`` (``""`` for a sample without one), ``completions`` (``output.completion``)
    and ``values``, a column per scorer named (in the order named) of the recorded
    ``scores[name].value``."""

    header: dict[str, Any]
    ids: list[int | str]
    epochs: list[int | None]
    targets: list[str]
    completions: list[str]
    values: list[list[str]]


def scan_common(data: bytes, scorers: tuple[str, ...]) -> Scanned | None:
    """The columns of the common inspect_ai ``.json`` log whose bytes are ``data``, with the
    recorded values of ``scorers``; None for any other log (and the few common ones the
    module's docstring lists), which the general reading then reads."""
    found = _core.inspect_scan(data, scorers)
    if found is None:
        return None
    texts, ids, epochs, targets, completions, values = found
    try:  # as read_common decodes them (a number out of range is refused)
        header = {name: _ANY.decode(texts[name]) for name in _HEADER if name in texts}
    except msgspec.DecodeError:
        return None
    return Scanned(header, ids, epochs, targets, completions, values)
