"""A common promptfoo results file read in one pass by the Rust core
(``evalmark._core.promptfoo_scan``): the samples' names and expected outputs, each row's
answer by build, the assertion types and the file's own fields, with nothing built for the
rest of each row (its prompt, test case, verdict).

It accepts only files that :mod:`evalmark.interop._promptfoo_results` reads through typed
test cases without refusing one (text answers, a sample's prompt the same in each of its rows,
no build answering a sample twice), and reads the same values from them. A few of those it
leaves to that reading (None): a key repeated in an object it reads, nesting deeper than 64
levels, an integer outside int64, an ``equals`` value that is not a text. The samples, which
no re-score reads, come from that reading of the same bytes when they are first read (it
cannot fail on a file the scan accepts).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import repeat
from pathlib import Path

import msgspec

from evalmark.interop._model import Deferred, Imported, Losses
from evalmark.interop._promptfoo import _CARRIED, _build_name, _imported
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_rows import _Assert, _Body, _Case, _Document, _Row
from evalmark.metrics._native import core as _core

__all__ = ["scan_import"]

_ANY = msgspec.json.Decoder()


def _keys(struct: type[msgspec.Struct]) -> list[str]:
    """The fields of ``struct``, by their names in the file."""
    return [field.encode_name for field in msgspec.structs.fields(struct)]


# the typed reading's structs: the keys each object may hold; the assertion types carried
_SHAPE = (_keys(_Document), _keys(_Body), _keys(_Row), _keys(_Case), _keys(_Assert))
_SHAPE_CARRIED = (*_SHAPE, sorted(_CARRIED))
# the file's own fields kept, in the typed reading's order: the document's, then its body's
_KEPT = [key for key in (*_SHAPE[0], *_SHAPE[1]) if key not in ("results", "version")]


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
    found = _core.promptfoo_scan(data, _SHAPE_CARRIED)
    if found is None:
        return None
    texts, names, expected, types, providers, samples, builds, answers = found
    try:  # as the typed reading decodes them (a number out of range is refused)
        version = _ANY.decode(texts["version"]) if "version" in texts else None
        kept = {name: _ANY.decode(texts[name]) for name in _KEPT if name in texts}
        idents = [None if text is None else _ANY.decode(text) for text in providers]
    except msgspec.DecodeError:
        return None
    taken: dict[str, str] = {}
    named = [_build_name(ident, taken) for ident in idents]  # in the order first seen
    outputs = _outputs(names, named, samples, builds, answers)
    if version != 3 or outputs is None:
        return None
    whole = cache(lambda: general(Losses(losses.allowed)))
    deferred = Deferred(lambda: whole().samples, names, expected)
    reader = Reader(path, losses, value={})
    return _imported(reader, "results-3", deferred, set(types), outputs, kept, digest=digest)


def _outputs(
    names: list[str],
    builds: list[str],
    samples: list[int] | None,
    providers: list[int] | None,
    answers: list[str],
) -> dict[str, dict[str, str]] | None:
    """The answers by build (each row's sample and provider as indexes into ``names`` and
    ``builds``; None: row ``i`` answers sample ``i``, one provider), or None when a build
    answers a sample twice (refused by the typed reading)."""
    if samples is None and len(set(builds)) == 1:  # one answer per sample: by column
        return {builds[0]: dict(zip(names, answers, strict=True))}
    outputs: dict[str, dict[str, str]] = {}
    rows = zip(samples or range(len(answers)), providers or repeat(0), answers, strict=False)
    for sample, provider, answer in rows:
        answered = outputs.setdefault(builds[provider], {})
        name = names[sample]
        if name in answered:
            return None
        answered[name] = answer
    return outputs
