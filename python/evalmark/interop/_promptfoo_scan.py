"""A common promptfoo results file read in one pass by the Rust core
(``evalmark._core.promptfoo_scan``): each row's sample name, answer and expected output, the
assertion types and the file's own fields, with nothing built for the rest of each row (its
prompt, test case, verdict).

It accepts only files that :mod:`evalmark.interop._promptfoo_results` reads column by column
(typed test cases, one provider, a text answer each), and reads the same values from them. A
few of those it leaves to that reading (None): a key repeated in an object it reads, nesting
deeper than 64 levels, an integer outside int64, an ``equals`` value that is not a text. The
samples, which no re-score reads, come from that reading of the same bytes when they are first
read (it cannot fail on a file the scan accepts).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import msgspec

from evalmark.interop._model import Deferred, Imported, Losses
from evalmark.interop._promptfoo import _CARRIED, _build_name, _imported
from evalmark.interop._promptfoo_reader import Reader
from evalmark.metrics._native import core as _core

__all__ = ["scan_import"]

_ANY = msgspec.json.Decoder()
_TYPES = sorted(_CARRIED)  # the assertion types a common file may hold
# the file's own fields kept, in the typed reading's order: the document's, then its body's
_KEPT = ("evalId", "config", "shareableUrl", "metadata", "timestamp", "prompts", "stats")


def scan_import(
    path: Path,
    data: bytes,
    losses: Losses,
    general: Callable[[Losses], Imported],
    digest: Callable[[], str],
) -> Imported | None:
    """The import of the results file ``path`` (whose bytes are ``data``, hashed by
    ``digest``) when the scan reads it, else None; ``general`` imports it the typed way (with
    the losses it is given), for its samples."""
    found = _core.promptfoo_scan(data, _TYPES)
    if found is None:
        return None
    texts, provider, names, answers, expected, types = found
    try:  # as the typed reading decodes them (a number out of range is refused)
        version = _ANY.decode(texts["version"]) if "version" in texts else None
        kept = {name: _ANY.decode(texts[name]) for name in _KEPT if name in texts}
        ident = None if provider is None else _ANY.decode(provider)
    except msgspec.DecodeError:
        return None
    answered = dict(zip(names, answers, strict=True))
    if version != 3 or len(answered) != len(names):  # another version; a sample in two rows
        return None
    whole = cache(lambda: general(Losses(losses.allowed)))
    samples = Deferred(lambda: whole().samples, names, expected)
    outputs = {_build_name(ident, {}): answered}
    reader = Reader(path, losses, value={})
    return _imported(reader, "results-3", samples, set(types), outputs, kept, digest=digest)
