"""Entry points: how evalmark finds what other installed packages add (report formats,
strategy kinds, sample loaders). One loader for every group, so each reports a broken plug-in
the same way."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from evalmark.errors import PluginError

__all__ = ["load_entry_points"]


def load_entry_points(
    entries: Iterable[Any], what: str, *, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[str, Any]]:
    """``(name, loaded object)`` for each of ``entries`` (``importlib.metadata.entry_points(
    group=...)``) not named in ``skip``, sorted by name. One that fails to load raises
    :class:`~evalmark.errors.PluginError` naming ``what`` it is, the entry point and the fix."""
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.name in skip:
            continue
        try:
            loaded = entry.load()
        except Exception as exc:
            raise PluginError(
                f"the {what} entry point {entry.name!r} ({entry.value}) failed to load: {exc}; "
                "fix or uninstall the package that provides it"
            ) from exc
        yield entry.name, loaded
