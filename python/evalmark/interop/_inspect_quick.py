"""The import of a common inspect_ai ``.json`` log (:mod:`evalmark.interop._inspect_common`)
or ``.eval`` log (a zip): its names, expected outputs and answers read from the one pass that
checked the log (the Rust scan, :mod:`evalmark.interop._inspect_scan`, else, for a ``.json``
log only, the typed decoding of a common log),
its ``match`` and ``includes`` scorers re-scored over the columns. The samples and their tool
calls, which no re-score reads, come from the general reading of the same bytes when they
are first read (it cannot fail on a log this decoding accepts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from evalmark.interop._inspect_columns import by_build, columns_of, fast_columns
from evalmark.interop._inspect_common import read_common
from evalmark.interop._inspect_header import Header, kept, read_header
from evalmark.interop._inspect_rescore import check_parity
from evalmark.interop._inspect_scan import scan_eval, scan_log
from evalmark.interop._model import Deferred, DeferredMapping, Imported, Losses
from evalmark.strategies._inspect import inspect_match_pairs

__all__ = ["quick_import"]

_ANSWER, _SCORES = attrgetter("output.completion"), attrgetter("scores")
_VERDICTS = {"C": True, "I": False}
_ZIP = b"PK\x03\x04"  # a zip's first local header: an ``.eval`` log


def quick_import(
    path: Path,
    data: bytes,
    losses: Losses,
    general: Callable[[Losses], Imported],
    digest: Callable[[], str],
) -> Imported | None:
    """The import of the log ``path`` (whose bytes are ``data``, hashed by ``digest``) when
    it is a common one, else None; ``general`` imports it the general way (with the losses
    it is given)."""
    zipped = data[:4] == _ZIP
    found = _scanned(path, data, losses, zipped) or (None if zipped else _typed(path, data, losses))
    if found is None:
        return None
    header, head, columns, texts = found
    names, builds, targets, epochs = columns
    samples, expected = names, list[str | None](targets)
    if epochs > 1:  # each sample's first epoch's (the targets are its, at every epoch)
        firsts = dict(zip(names, targets, strict=True))
        samples, expected = list(firsts), list(firsts.values())
    whole = cache(lambda: general(Losses(losses.allowed)))
    extra: Mapping[str, Mapping[str, Any]] = (
        DeferredMapping(lambda: dict(whole().extra)) if epochs == 1 else {}
    )
    return Imported(
        format="inspect",
        version="eval log v2" if zipped else "json log v2",
        files=(str(path),),
        sha256=digest(),
        samples=Deferred(lambda: whole().samples, samples, expected),
        checks=head.entries,
        outputs=by_build(builds, names, texts),
        lost=losses.used(),
        kept=kept(header),
        extra=extra,
    )


# the log's own fields, what the import reads of them, the columns (names, builds, targets,
# epochs) and the answers
_Found = tuple[Mapping[str, Any], Header, tuple[list[str], list[str], list[str], int], list[str]]


def _scanned(path: Path, data: bytes, losses: Losses, zipped: bool) -> _Found | None:
    """The log read by the Rust scan (of an ``.eval`` log when ``zipped``), when it reads it
    and every recorded score the import re-scores agrees with the re-score (else None: the
    typed decoding or the general reading reads it, and words any disagreement)."""
    scanned = scan_eval(data) if zipped else scan_log(data)
    if scanned is None:
        return None
    head = read_header(scanned.header, losses, str(path))
    values = scanned.texts_of(tuple(name for name, *_ in head.rescored))
    columns = columns_of(scanned.ids, scanned.epochs, scanned.targets, head.task, head.model)
    if values is None or columns is None:
        return None
    texts = scanned.completions
    for (_, kind, location, ignore_case), recorded in zip(head.rescored, values, strict=True):
        verdicts = inspect_match_pairs(texts, columns[2], kind, location, ignore_case)
        if list(map(_VERDICTS.get, recorded)) != verdicts:
            return None
    return scanned.header, head, columns, texts


def _typed(path: Path, data: bytes, losses: Losses) -> _Found | None:
    """The log read by the typed decoding of a common log, its recorded scores re-scored
    (the first that disagrees refused); None when it is not a common one."""
    common = read_common(path, data)
    if common is None:
        return None
    header, rows = common
    head = read_header(header, losses, str(path))
    fast = fast_columns(rows, head.task, head.model, common=True)
    if fast is None:  # a sample appears twice, or epochs set on some samples only
        return None
    found, epochs = fast
    texts: list[str] = list(map(_ANSWER, found.rows))
    if head.rescored:
        scores = [recorded or {} for recorded in map(_SCORES, found.rows)]
        check_parity(head.rescored, found.names, found.targets, texts, scores, rows.wheres)
    targets = list(map(itemgetter(0), found.targets))
    return header, head, (found.names, found.builds, targets, epochs), texts
