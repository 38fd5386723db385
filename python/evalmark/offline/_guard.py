"""The network guard: socket-level patches and the stack of open guards.

While at least one guard is open, ``socket.socket.connect``, ``connect_ex``, ``sendto`` and
``sendmsg``, the module functions ``getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``,
``gethostbyaddr`` and ``getnameinfo``, and asyncio's ``BaseEventLoop.getaddrinfo`` and
``getnameinfo`` check their target against the innermost open guard's policy and raise
:class:`~evalmark.errors.NetworkBlockedError` before the call reaches the operating system.
``socket.create_connection``, ``http.client``, urllib3, httpx/httpcore, anyio, asyncio's
``create_connection`` and ``sock_connect`` and ``ssl`` all end in those calls. When the last
guard closes the original functions are put back, so a process without an open guard runs the
standard library untouched.

The guard is process-wide: the innermost open guard decides for every thread.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from evalmark.errors import NetworkBlockedError
from evalmark.offline._callsite import caller_location
from evalmark.offline._patching import Patch, install, original, uninstall
from evalmark.offline._policy import Policy, parse_ip, unix_path

__all__ = [
    "BlockedAttempt",
    "Entry",
    "active_entry",
    "attempts",
    "clear_attempts",
    "pop",
    "push",
]

_MAX_ATTEMPTS = 1000
_SPECIAL_HOSTS = {"": "0.0.0.0", "<broadcast>": "255.255.255.255"}  # how connect() reads them


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


_lock = threading.RLock()
_stack: list[tuple[object, Entry]] = []
_current: Entry | None = None  # the innermost open guard; read without the lock by the checks
_attempts: list[BlockedAttempt] = []


# --------------------------------------------------------------------------- the stack


def push(entry: Entry) -> object:
    """Open a guard; the token it returns closes it (:func:`pop`)."""
    global _current
    token = object()
    with _lock:
        if not _stack:
            install(_patches())
        _stack.append((token, entry))
        _current = entry
    return token


def pop(token: object) -> None:
    """Close the guard opened with ``token`` (guards may close in any order)."""
    global _current
    with _lock:
        for index in range(len(_stack) - 1, -1, -1):
            if _stack[index][0] is token:
                del _stack[index]
                break
        else:
            return
        _current = _stack[-1][1] if _stack else None
        if not _stack:
            uninstall(_patches())


def active_entry() -> Entry | None:
    """The innermost open guard, or None."""
    return _current


def attempts() -> list[BlockedAttempt]:
    """The calls refused since the process started (or :func:`clear_attempts`), oldest first;
    at most the first 1000 are kept."""
    with _lock:
        return list(_attempts)


def clear_attempts() -> None:
    """Forget the refused calls."""
    with _lock:
        _attempts.clear()


# --------------------------------------------------------------------------- refusing a call


def _refuse(entry: Entry, operation: str, host: str, port: int | None) -> NetworkBlockedError:
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
    with _lock:
        if len(_attempts) < _MAX_ATTEMPTS:
            _attempts.append(attempt)
    return error


def _port(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str | bytes) and value.isdigit():
        return int(value)
    return None


def _host_text(host: object) -> str | None:
    if isinstance(host, bytes | bytearray):
        return bytes(host).decode("ascii", "replace")
    return host if isinstance(host, str) else None


def _check_address(family: int, address: object, operation: str) -> None:
    entry = _current
    if entry is None or entry.policy.allow_all:
        return
    policy = entry.policy
    if family in (socket.AF_INET, socket.AF_INET6):
        if not isinstance(address, tuple) or len(address) < 2:
            return  # the socket call itself raises on a malformed address
        host = _host_text(address[0])
        if host is None:
            return
        port = _port(address[1])
        target = _SPECIAL_HOSTS.get(host, host)
        if not policy.allows_host(target):
            raise _refuse(entry, operation, host or "0.0.0.0", port)
        return
    if family == getattr(socket, "AF_UNIX", None):
        path = unix_path(address)
        if not policy.allows_unix(path):
            shown = "@" + path[1:] if path.startswith("\0") else path
            raise _refuse(entry, operation, f"unix:{shown}", None)
        return
    if family == getattr(socket, "AF_NETLINK", None) and policy.loopback:
        return
    raise _refuse(entry, operation, f"{_family_name(family)} {address!r}", None)


def _family_name(family: int) -> str:
    try:
        return socket.AddressFamily(family).name
    except ValueError:
        return f"family {family}"


def _check_name(host: object, port: object = None, flags: object = 0) -> bool:
    """Refuse a lookup the policy does not allow. True when the name is allowed by a host-name
    entry, so the addresses it resolves to are remembered as allowed.

    An address (no lookup) is checked as the connection it prepares, unless ``AI_PASSIVE``
    asks for an address to bind: refusing it here, in the caller's own thread or task, names
    the caller even when the connect would run in a helper task (anyio's happy eyeballs)."""
    entry = _current
    if entry is None or entry.policy.allow_all:
        return False
    text = _host_text(host)
    if not text:
        return False  # None or "": the local host, no lookup
    policy = entry.policy
    address = parse_ip(text)
    if address is not None:
        passive = isinstance(flags, int) and flags & socket.AI_PASSIVE
        if not passive and not policy.allows_address(address):
            raise _refuse(entry, "connect", text, _port(port))
        return False
    if not policy.allows_name(text):
        raise _refuse(entry, "resolve", text, _port(port))
    return policy.names_entry(text)


def _flags(args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
    # getaddrinfo(host, port, family=0, type=0, proto=0, flags=0)
    return args[3] if len(args) >= 4 else kwargs.get("flags", 0)


def _remember(addresses: list[str]) -> None:
    entry = _current
    if entry is not None:
        entry.policy.remember(addresses)


# --------------------------------------------------------------------------- the patched calls


def _check_connect(sock: socket.socket, address: Any) -> None:
    try:
        _check_address(sock.family, address, "connect")
    except NetworkBlockedError:
        # Closed here: socket.create_connection and urllib3 close a socket whose connect
        # failed only on OSError, and the refused socket is of no further use.
        sock.close()
        raise


def _connect(self: socket.socket, address: Any) -> None:
    """``socket.connect``, refused (and the socket closed) when ``address`` is not allowed."""
    if _current is not None:
        _check_connect(self, address)
    original(socket.socket, "connect")(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    """``socket.connect_ex``, refused (and the socket closed) when ``address`` is not allowed."""
    if _current is not None:
        _check_connect(self, address)
    result: int = original(socket.socket, "connect_ex")(self, address)
    return result


def _sendto(self: socket.socket, data: Any, *rest: Any) -> int:
    """``socket.sendto``, refused when the guard does not allow the destination."""
    if _current is not None and rest:
        _check_address(self.family, rest[-1], "send")
    result: int = original(socket.socket, "sendto")(self, data, *rest)
    return result


def _sendmsg(self: socket.socket, *args: Any) -> int:
    """``socket.sendmsg``, refused when the guard does not allow the destination."""
    if _current is not None and len(args) >= 4 and args[3] is not None:
        _check_address(self.family, args[3], "send")
    result: int = original(socket.socket, "sendmsg")(self, *args)
    return result


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    """``socket.getaddrinfo``, refused for a name the guard does not allow."""
    explicit = _check_name(host, port, _flags(args, kwargs)) if _current is not None else False
    result = original(socket, "getaddrinfo")(host, port, *args, **kwargs)
    if explicit:
        _remember([str(info[4][0]) for info in result])
    return result


def _gethostbyname(host: Any) -> str:
    """``socket.gethostbyname``, refused for a name the guard does not allow."""
    explicit = _check_name(host) if _current is not None else False
    result: str = original(socket, "gethostbyname")(host)
    if explicit:
        _remember([result])
    return result


def _gethostbyname_ex(host: Any) -> tuple[str, list[str], list[str]]:
    """``socket.gethostbyname_ex``, refused for a name the guard does not allow."""
    explicit = _check_name(host) if _current is not None else False
    result: tuple[str, list[str], list[str]] = original(socket, "gethostbyname_ex")(host)
    if explicit:
        _remember(list(result[2]))
    return result


def _gethostbyaddr(host: Any) -> tuple[str, list[str], list[str]]:
    """``socket.gethostbyaddr`` (a reverse lookup), refused for a host not allowed."""
    if _current is not None:
        _check_reverse(host, None)
    result: tuple[str, list[str], list[str]] = original(socket, "gethostbyaddr")(host)
    return result


def _getnameinfo(sockaddr: Any, flags: int) -> tuple[str, str]:
    """``socket.getnameinfo``, refused when it would look up a host not allowed."""
    if _current is not None:
        _check_sockaddr_lookup(sockaddr, flags)
    result: tuple[str, str] = original(socket, "getnameinfo")(sockaddr, flags)
    return result


def _check_sockaddr_lookup(sockaddr: Any, flags: object) -> None:
    numeric = isinstance(flags, int) and flags & socket.NI_NUMERICHOST
    if not numeric and isinstance(sockaddr, tuple) and sockaddr:
        _check_reverse(sockaddr[0], _port(sockaddr[1]) if len(sockaddr) > 1 else None)


def _check_reverse(host: object, port: int | None) -> None:
    entry = _current
    text = _host_text(host)
    if entry is None or entry.policy.allow_all or not text:
        return
    if not entry.policy.allows_host(text):
        raise _refuse(entry, "resolve", text, port)


async def _loop_getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    """asyncio's ``loop.getaddrinfo``: checked in the calling task, where the application's
    frames are, before the lookup moves to an executor thread."""
    if _current is not None:
        _check_name(host, port, _flags(args, kwargs))
    return await original(_base_loop(), "getaddrinfo")(self, host, port, *args, **kwargs)


async def _loop_getnameinfo(self: Any, sockaddr: Any, flags: int = 0) -> Any:
    """asyncio's ``loop.getnameinfo``, checked in the calling task."""
    if _current is not None:
        _check_sockaddr_lookup(sockaddr, flags)
    return await original(_base_loop(), "getnameinfo")(self, sockaddr, flags)


def _base_loop() -> type:
    import asyncio.base_events

    return asyncio.base_events.BaseEventLoop


def _patches() -> Iterator[Patch]:
    yield socket.socket, "connect", _connect
    yield socket.socket, "connect_ex", _connect_ex
    yield socket.socket, "sendto", _sendto
    if hasattr(socket.socket, "sendmsg"):
        yield socket.socket, "sendmsg", _sendmsg
    yield socket, "getaddrinfo", _getaddrinfo
    yield socket, "gethostbyname", _gethostbyname
    yield socket, "gethostbyname_ex", _gethostbyname_ex
    yield socket, "gethostbyaddr", _gethostbyaddr
    yield socket, "getnameinfo", _getnameinfo
    loop = _base_loop()
    yield loop, "getaddrinfo", _loop_getaddrinfo
    yield loop, "getnameinfo", _loop_getnameinfo
