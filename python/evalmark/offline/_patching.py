"""Swapping standard-library attributes for the guard's checked versions, and back.

:func:`install` replaces each ``(owner, name)`` with its replacement and keeps the original;
:func:`uninstall` puts the original back, unless someone patched the attribute after us;
:func:`original` is what a replacement calls to reach the real function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Patch", "install", "original", "originals", "uninstall"]

Patch = tuple[object, str, Callable[..., Any]]

originals: dict[tuple[object, str], Any] = {}  # (owner, name) -> the attribute we replaced
_inherited: dict[tuple[object, str], bool] = {}
_MISSING = object()


def original(owner: object, name: str) -> Any:
    """The attribute ``owner.name`` had before :func:`install` (the current one when none)."""
    value = originals.get((owner, name), _MISSING)
    if value is _MISSING:  # a call that started just before the guard closed
        return getattr(owner, name)
    return value


def install(patches: Iterable[Patch]) -> None:
    """Put each replacement in place, keeping the original (an installed one is skipped)."""
    for owner, name, replacement in patches:
        key = (owner, name)
        if key in originals:
            continue
        originals[key] = getattr(owner, name)
        # A class attribute inherited from the C socket type is deleted again on uninstall.
        _inherited[key] = isinstance(owner, type) and name not in vars(owner)
        setattr(owner, name, replacement)


def uninstall(patches: Iterable[Patch]) -> None:
    """Put the originals back where the replacement is still in place."""
    for owner, name, replacement in patches:
        key = (owner, name)
        if key not in originals:
            continue
        inherited = _inherited.pop(key)
        if getattr(owner, name) is replacement:  # leave alone what someone patched after us
            if inherited:
                delattr(owner, name)
            else:
                setattr(owner, name, originals[key])
        del originals[key]
