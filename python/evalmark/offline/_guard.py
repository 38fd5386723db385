"""The network guard: the stack of open guards and the checks every guarded call makes.

While at least one guard is open, the socket calls of :mod:`evalmark.offline._socket_calls`
(connects and sends) and :mod:`evalmark.offline._lookups` (name lookups) check their target
against the innermost open guard's policy and raise
:class:`~evalmark.errors.NetworkBlockedError` before the call reaches the operating system;
:mod:`evalmark.offline._audit` catches what reaches the C socket module without them, and
:mod:`evalmark.offline._open_sockets` looks at the sockets that were open before. When the
last guard closes the original functions are put back, so a process without an open guard
runs the standard library untouched (the audit hook stays, and does nothing).

The guard is process-wide: the innermost open guard decides for every thread.
"""

from __future__ import annotations

import socket
import sys
import threading
from dataclasses import dataclass

from evalmark.errors import NetworkBlockedError
from evalmark.offline._callsite import caller_location
from evalmark.offline._policy import Policy, parse_ip, unix_path

__all__ = [
    "LOCK",
    "SPECIAL_HOSTS",
    "BlockedAttempt",
    "Entry",
    "active_entry",
    "attempts",
    "check_address",
    "check_name",
    "check_reverse",
    "closed",
    "family_name",
    "is_open",
    "opened",
    "refuse",
]

_MAX_ATTEMPTS = 1000
SPECIAL_HOSTS = {"": "0.0.0.0", "<broadcast>": "255.255.255.255"}  # how connect() reads them


@dataclass(frozen=True, slots=True)
class Entry:
    """One open guard: its policy, why it is open, and how to record instead."""

    policy: Policy
    reason: str
    hint: str


@dataclass(frozen=True, slots=True)
class BlockedAttempt:
    """A call the guard refused (kept so a run can report calls its application swallowed)."""

    operation: str
    host: str
    port: int | None
    location: str
    thread: str
    what: str  # as NetworkBlockedError.what: "connection to host:443 from app.py:12 (f)"

    @property
    def target(self) -> str:
        """``host:port`` (``[v6]:port`` for IPv6), or the host alone."""
        return NetworkBlockedError.format_target(self.host, self.port)


LOCK = threading.RLock()  # guards the stack; held while the patches go in and out
_stack: list[tuple[object, Entry]] = []
_current: Entry | None = None  # the innermost open guard; read without the lock by the checks
_attempts: list[BlockedAttempt] = []


# --------------------------------------------------------------------------- the stack


def opened(token: object, entry: Entry) -> bool:
    """Put ``entry`` on the stack as the innermost guard; True when it is the first. The caller
    holds :data:`LOCK` (:mod:`evalmark.offline._opening` installs the patches first)."""
    global _current
    first = not _stack
    _stack.append((token, entry))
    _current = entry
    return first


def closed(token: object) -> bool:
    """Take the guard opened with ``token`` off the stack (guards may close in any order); True
    when no guard is left open. The caller holds :data:`LOCK`."""
    global _current
    for index in range(len(_stack) - 1, -1, -1):
        if _stack[index][0] is token:
            del _stack[index]
            break
    else:
        return False
    _current = _stack[-1][1] if _stack else None
    return not _stack


def is_open() -> bool:
    """True while a guard is open."""
    return bool(_stack)


def active_entry() -> Entry | None:
    """The innermost open guard, or None."""
    return _current


def attempts(*, clear: bool = False) -> list[BlockedAttempt]:
    """The calls refused since the process started (or since ``attempts(clear=True)``), oldest
    first; at most the first 1000 are kept. With ``clear``, they are forgotten once returned."""
    with LOCK:
        found = list(_attempts)
        if clear:
            _attempts.clear()
        return found


# --------------------------------------------------------------------------- refusing a call


def refuse(entry: Entry, operation: str, host: str, port: int | None) -> NetworkBlockedError:
    """The error for a refused call (and the call kept in :func:`attempts`)."""
    location = caller_location(sys._getframe(1))
    error = NetworkBlockedError(
        host=host,
        port=port,
        operation=operation,
        location=location,
        reason=entry.reason,
        hint=entry.hint,
    )
    thread = threading.current_thread().name
    attempt = BlockedAttempt(operation, host, port, location, thread, error.what)
    with LOCK:
        if len(_attempts) < _MAX_ATTEMPTS:
            _attempts.append(attempt)
    return error


def _port(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str | bytes) and value.isdigit():
        return int(value)
    return None


def check_address(entry: Entry, family: int, address: object, operation: str) -> None:
    """Refuse ``address`` (plain values, see :func:`~evalmark.offline._addresses.plain_address`)
    for a socket of ``family`` when the policy does not allow it."""
    policy = entry.policy
    if policy.allow_all:
        return
    if family in (socket.AF_INET, socket.AF_INET6):
        if not isinstance(address, tuple) or len(address) < 2:
            return  # the socket call itself raises on a malformed address
        host = address[0]
        if not isinstance(host, str):
            return
        port = _port(address[1])
        target = SPECIAL_HOSTS.get(host, host)
        if not policy.allows_host(target):
            raise refuse(entry, operation, host or "0.0.0.0", port)
        return
    if family == getattr(socket, "AF_UNIX", None):
        path = unix_path(address)
        if not policy.allows_unix(path):
            shown = "@" + path[1:] if path.startswith("\0") else path
            raise refuse(entry, operation, f"unix:{shown}", None)
        return
    if family == getattr(socket, "AF_NETLINK", None) and policy.loopback:
        return
    raise refuse(entry, operation, f"{family_name(family)} {address!r}", None)


def family_name(family: int) -> str:
    """``AF_INET`` for 2, ``family 99`` for an unknown number."""
    try:
        return socket.AddressFamily(family).name
    except ValueError:
        return f"family {family}"


def check_name(entry: Entry, host: str | None, port: object = None, flags: object = 0) -> bool:
    """Refuse a lookup of ``host`` (a plain str) the policy does not allow. True when the name
    is allowed by a host-name entry, so the addresses it resolves to are remembered as allowed.

    An address (no lookup) is checked as the connection it prepares, unless ``AI_PASSIVE``
    asks for an address to bind: refusing it here, in the caller's own thread or task, names
    the caller even when the connect would run in a helper task (anyio's happy eyeballs)."""
    policy = entry.policy
    if policy.allow_all or not host:
        return False  # None or "": the local host, no lookup
    address = parse_ip(host)
    if address is not None:
        passive = isinstance(flags, int) and flags & socket.AI_PASSIVE
        if not passive and not policy.allows_address(address):
            raise refuse(entry, "connect", host, _port(port))
        return False
    if not policy.allows_name(host):
        raise refuse(entry, "resolve", host, _port(port))
    return policy.names_entry(host)


def check_reverse(entry: Entry, host: str | None, port: int | None) -> None:
    """Refuse a reverse lookup of ``host`` the policy does not allow."""
    if entry.policy.allow_all or not host:
        return
    if not entry.policy.allows_host(host):
        raise refuse(entry, "resolve", host, port)
