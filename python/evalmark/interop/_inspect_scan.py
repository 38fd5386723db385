"""A common inspect_ai ``.json`` log read in one pass by the Rust core
(``evalmark._core.inspect_scan``): the columns a re-score reads and the log's own fields,
with nothing built for the rest of each sample (messages, usage, ...). A ``.eval`` log (a
zip) is read the same way (``evalmark._core.inspect_eval_scan``, :func:`scan_eval`): its
members inflated and each sample member scanned by the same sample reader.

It accepts only logs :func:`evalmark.interop._inspect_common.read_common` accepts, and reads
the same values from them. A few of those it leaves to that reading (None): a key repeated in
an object it reads (msgspec keeps the last), nesting deeper than 64 levels, an integer id or
epoch outside int64, and an integer outside int64 in a recorded score's value that is not a
text. :func:`scan_common` also leaves a log to it when a sample has no text value for one of
the scorers named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from evalmark.interop._inspect_log import HEADER as _HEADER
from evalmark.metrics._native import core as _core

if TYPE_CHECKING:
    from evalmark._core import _InspectColumns

__all__ = ["Scanned", "scan_common", "scan_eval", "scan_log"]

_ANY = msgspec.json.Decoder()


class Scanned(NamedTuple):
    """A common log's columns: ``header``, its own fields present (decoded), then one item
    per sample in the log's order: ``ids``, ``epochs`` (None for a sample without one),
    ``targets`` (``""`` for a sample without one), ``completions`` (``output.completion``)
    and ``scores``, per scorer any sample names, the recorded ``scores[name].value`` when a
    text (None: another value, or no score of it); ``values``, the columns of the scorers
    asked for (:func:`scan_common`), in the order asked."""

    header: dict[str, Any]
    ids: list[int | str]
    epochs: list[int | None]
    targets: list[str]
    completions: list[str]
    scores: dict[str, list[str | None]]
    values: list[list[str]]

    def texts_of(self, scorers: tuple[str, ...]) -> list[list[str]] | None:
        """The recorded values of ``scorers``, a column each, when every sample has a text
        value for each; else None."""
        none: list[str | None] | None = None if self.ids else []  # no sample: an empty column
        columns = [self.scores.get(name, none) for name in scorers]
        if any(column is None or None in column for column in columns):
            return None
        return columns  # type: ignore[return-value]  # no None left in them


def scan_log(data: bytes) -> Scanned | None:
    """The columns of the common inspect_ai ``.json`` log whose bytes are ``data`` (no
    ``values`` asked for); None for any other log (and the few common ones the module's
    docstring lists), which the general reading then reads."""
    return _scanned(_core.inspect_scan(data, _HEADER), _HEADER)


def scan_eval(data: bytes) -> Scanned | None:
    """The columns of the common inspect_ai ``.eval`` log (a zip) whose bytes are ``data``,
    as :func:`scan_log` reads a ``.json`` log's, the header holding every field of its
    ``header.json`` (as the general reading keeps them); None for any other log."""
    found = _core.inspect_eval_scan(data)
    return _scanned(found, tuple(found[0]) if found is not None else ())


def _scanned(found: _InspectColumns | None, names: tuple[str, ...]) -> Scanned | None:
    """The scan's columns ``found``, the header fields ``names`` decoded from their JSON text
    (as the general reading decodes them: a number out of range is refused, then None)."""
    if found is None:
        return None
    texts, ids, epochs, targets, completions, scores = found
    try:
        header = {name: _ANY.decode(texts[name]) for name in names if name in texts}
    except msgspec.DecodeError:
        return None
    return Scanned(header, ids, epochs, targets, completions, scores, [])


def scan_common(data: bytes, scorers: tuple[str, ...]) -> Scanned | None:
    """:func:`scan_log` with the recorded values of ``scorers`` as ``values``; None also when
    a sample has no text value for one of them."""
    found = scan_log(data)
    values = found.texts_of(scorers) if found is not None else None
    if found is None or values is None:
        return None
    return found._replace(values=values)
