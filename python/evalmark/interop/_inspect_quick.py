"""The import of a common inspect_ai ``.json`` log (:mod:`evalmark.interop._inspect_common`):
its names, expected outputs and answers read from the one decoding that checked the log, its
``match`` and ``includes`` scorers re-scored over the columns. The samples and their tool
calls, which no re-score reads, come from the general reading of the same bytes when they
are first read (it cannot fail on a log this decoding accepts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from evalmark.interop._inspect_columns import by_build, fast_columns
from evalmark.interop._inspect_common import read_common
from evalmark.interop._inspect_header import kept, read_header
from evalmark.interop._inspect_rescore import check_parity
from evalmark.interop._model import Deferred, DeferredMapping, Imported, Losses, hash_later

__all__ = ["quick_import"]

_ANSWER, _SCORES = attrgetter("output.completion"), attrgetter("scores")


def quick_import(
    path: Path, data: bytes, losses: Losses, general: Callable[[Losses], Imported]
) -> Imported | None:
    """The import of the log ``path`` (whose bytes are ``data``) when it is a common one,
    else None; ``general`` imports it the general way (with the losses it is given)."""
    common = read_common(path, data)
    if common is None:
        return None
    header, rows = common
    digest = hash_later([path], {path: data})
    head = read_header(header, losses, str(path))
    fast = fast_columns(rows, head.task, head.model, common=True)
    if fast is None:  # a sample appears twice, or epochs set on some samples only
        return None
    found, epochs = fast
    texts: list[str] = list(map(_ANSWER, found.rows))
    if head.rescored:
        scores = [recorded or {} for recorded in map(_SCORES, found.rows)]
        check_parity(head.rescored, found.names, found.targets, texts, scores, rows.wheres)
    names, targets = found.names, found.targets
    if epochs > 1:  # each sample's first epoch's
        firsts = dict(zip(names, targets, strict=True))  # a later epoch's: the same targets
        names, targets = list(firsts), list(firsts.values())
    expected: list[str | None] = list(map(itemgetter(0), targets))
    whole = cache(lambda: general(Losses(losses.allowed)))
    extra: Mapping[str, Mapping[str, Any]] = (
        DeferredMapping(lambda: dict(whole().extra)) if epochs == 1 else {}
    )
    return Imported(
        format="inspect",
        version="json log v2",
        files=(str(path),),
        sha256=digest(),
        samples=Deferred(lambda: whole().samples, names, expected),
        checks=head.entries,
        outputs=by_build(found.builds, found.names, texts),
        lost=losses.used(),
        kept=kept(header),
        extra=extra,
    )
