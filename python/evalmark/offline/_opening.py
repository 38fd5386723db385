"""Opening and closing guards. The first guard to open installs the checked socket calls
(:mod:`evalmark.offline._socket_calls`, :mod:`evalmark.offline._lookups`) and the audit hook
(:mod:`evalmark.offline._audit`), then looks at the sockets that were already open
(:mod:`evalmark.offline._open_sockets`); the last guard to close puts the original functions
back. The stack itself and the checks are in :mod:`evalmark.offline._guard`."""

from __future__ import annotations

from evalmark.offline._audit import install_hook
from evalmark.offline._guard import LOCK, Entry, closed, is_open, opened
from evalmark.offline._open_sockets import warn_open_sockets
from evalmark.offline._patching import Patch, install, uninstall
from evalmark.offline._socket_calls import patches

__all__ = ["pop", "push"]

_installed: list[Patch] = []  # what the first open guard patched, undone by the last


def push(entry: Entry) -> object:
    """Open a guard; the token it returns closes it (:func:`pop`)."""
    token = object()
    with LOCK:
        first = not is_open()
        if first:
            _installed[:] = patches()
            install(_installed)
            install_hook()
        opened(token, entry)
    if first:
        try:
            warn_open_sockets(entry.policy)
        except BaseException:  # the warning made an error (-W error): the guard did not open
            pop(token)
            raise
    return token


def pop(token: object) -> None:
    """Close the guard opened with ``token`` (guards may close in any order)."""
    with LOCK:
        if closed(token):
            uninstall(_installed)
            _installed.clear()
