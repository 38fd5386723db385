"""The guarded name lookups: ``socket.getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``,
``gethostbyaddr``, ``getnameinfo`` and asyncio's ``loop.getaddrinfo`` / ``loop.getnameinfo``.

Each normalises its arguments to plain values (:mod:`evalmark.offline._addresses`), checks
them against the innermost open guard and hands the plain values on. ``localhost`` and the
``*.localhost`` names are answered with the loopback addresses without asking the resolver.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

from evalmark.offline._addresses import (
    UnplainAddress,
    is_localhost_name,
    loopback_infos,
    plain_host,
    plain_port,
)
from evalmark.offline._audit import vetted
from evalmark.offline._guard import Entry, active_entry, check_name, check_reverse, refuse
from evalmark.offline._patching import Patch, original

__all__ = ["lookup_patches"]

_LOOPBACK_V4 = "127.0.0.1"


def _host(entry: Entry, host: object) -> Any:
    """``host`` as a plain str (bytes decoded), or unchanged when it is neither."""
    try:
        text = plain_host(host)
    except UnplainAddress as exc:
        raise refuse(entry, "resolve", str(exc), None) from None
    if text is None or isinstance(host, str):
        return host if text is None else text
    if isinstance(host, bytes):
        return bytes.__getitem__(host, slice(None))
    assert isinstance(host, bytearray)
    return bytes(bytearray.__getitem__(host, slice(None)))


def _plain_port(port: object) -> object:
    if isinstance(port, str):
        return str.__str__(port)
    if isinstance(port, int) and not isinstance(port, bool):
        return plain_port(port)
    return port


def _name_of(host: object) -> str | None:
    if isinstance(host, str):
        return host
    if isinstance(host, bytes):
        return host.decode("ascii", "replace")
    return None


def _flags(args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
    # getaddrinfo(host, port, family=0, type=0, proto=0, flags=0)
    return args[3] if len(args) >= 4 else kwargs.get("flags", 0)


def _remember(addresses: list[str]) -> None:
    entry = active_entry()
    if entry is not None:
        entry.policy.remember(addresses)


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    """``socket.getaddrinfo``, refused for a name the guard does not allow; ``localhost``
    names answered without a lookup."""
    entry = active_entry()
    real = original(socket, "getaddrinfo")
    if entry is None:
        return real(host, port, *args, **kwargs)
    host, port = _host(entry, host), _plain_port(port)
    name = _name_of(host)
    explicit = check_name(entry, name, port, _flags(args, kwargs))
    if name and not entry.policy.allow_all and is_localhost_name(name):
        return vetted(loopback_infos, real, port, *args, **kwargs)
    result = vetted(real, host, port, *args, **kwargs)
    if explicit:
        _remember([str(info[4][0]) for info in result])
    return result


def _gethostbyname(host: Any) -> str:
    """``socket.gethostbyname``, refused for a name the guard does not allow."""
    entry = active_entry()
    real = original(socket, "gethostbyname")
    if entry is None:
        result: str = real(host)
        return result
    host = _host(entry, host)
    name = _name_of(host)
    explicit = check_name(entry, name)
    if name and not entry.policy.allow_all and is_localhost_name(name):
        return _LOOPBACK_V4
    result = vetted(real, host)
    if explicit:
        _remember([result])
    return result


def _gethostbyname_ex(host: Any) -> tuple[str, list[str], list[str]]:
    """``socket.gethostbyname_ex``, refused for a name the guard does not allow."""
    entry = active_entry()
    real = original(socket, "gethostbyname_ex")
    if entry is None:
        answer: tuple[str, list[str], list[str]] = real(host)
        return answer
    host = _host(entry, host)
    name = _name_of(host)
    explicit = check_name(entry, name)
    if name and not entry.policy.allow_all and is_localhost_name(name):
        return (name, [], [_LOOPBACK_V4])
    result: tuple[str, list[str], list[str]] = vetted(real, host)
    if explicit:
        _remember(list(result[2]))
    return result


def _gethostbyaddr(host: Any) -> tuple[str, list[str], list[str]]:
    """``socket.gethostbyaddr`` (a reverse lookup), refused for a host not allowed."""
    entry = active_entry()
    real = original(socket, "gethostbyaddr")
    if entry is not None:
        host = _host(entry, host)
        check_reverse(entry, _name_of(host), None)
        return vetted(real, host)  # type: ignore[no-any-return]
    result: tuple[str, list[str], list[str]] = real(host)
    return result


def _getnameinfo(sockaddr: Any, flags: int) -> tuple[str, str]:
    """``socket.getnameinfo``, refused when it would look up a host not allowed."""
    entry = active_entry()
    real = original(socket, "getnameinfo")
    if entry is not None:
        sockaddr = _check_sockaddr_lookup(entry, sockaddr, flags)
        return vetted(real, sockaddr, flags)  # type: ignore[no-any-return]
    result: tuple[str, str] = real(sockaddr, flags)
    return result


def _check_sockaddr_lookup(entry: Entry, sockaddr: Any, flags: object) -> Any:
    if not isinstance(sockaddr, tuple) or not tuple.__len__(sockaddr):
        return sockaddr
    items = [tuple.__getitem__(sockaddr, i) for i in range(tuple.__len__(sockaddr))]
    items[0] = _host(entry, items[0])
    if len(items) > 1:
        items[1] = _plain_port(items[1])
    numeric = isinstance(flags, int) and flags & socket.NI_NUMERICHOST
    if not numeric:
        port = items[1] if len(items) > 1 and isinstance(items[1], int) else None
        check_reverse(entry, _name_of(items[0]), port)
    return tuple(items)


async def _loop_getaddrinfo(self: Any, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    """asyncio's ``loop.getaddrinfo``: checked in the calling task, where the application's
    frames are, before the lookup moves to an executor thread."""
    entry = active_entry()
    if entry is not None:
        host, port = _host(entry, host), _plain_port(port)
        check_name(entry, _name_of(host), port, _flags(args, kwargs))
    return await original(base_loop(), "getaddrinfo")(self, host, port, *args, **kwargs)


async def _loop_getnameinfo(self: Any, sockaddr: Any, flags: int = 0) -> Any:
    """asyncio's ``loop.getnameinfo``, checked in the calling task."""
    entry = active_entry()
    if entry is not None:
        sockaddr = _check_sockaddr_lookup(entry, sockaddr, flags)
    return await original(base_loop(), "getnameinfo")(self, sockaddr, flags)


def base_loop() -> type:
    """asyncio's ``BaseEventLoop``."""
    import asyncio.base_events

    return asyncio.base_events.BaseEventLoop


def lookup_patches() -> Iterator[Patch]:
    """The lookup functions the guard replaces while it is open."""
    yield socket, "getaddrinfo", _getaddrinfo
    yield socket, "gethostbyname", _gethostbyname
    yield socket, "gethostbyname_ex", _gethostbyname_ex
    yield socket, "gethostbyaddr", _gethostbyaddr
    yield socket, "getnameinfo", _getnameinfo
    loop = base_loop()
    yield loop, "getaddrinfo", _loop_getaddrinfo
    yield loop, "getnameinfo", _loop_getnameinfo
