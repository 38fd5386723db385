"""Addresses as the operating system will read them, and loopback names answered without DNS.

A socket address may arrive as a subclass of ``tuple``, ``str``, ``bytes`` or ``int`` whose
methods say something else than what it holds: the C socket code reads the stored value,
not ``__getitem__``, ``lower()`` or ``__eq__``. :func:`plain_address` copies an address into
plain built-in values, read the way C reads them, so the guard checks exactly what will be
used and hands that same copy on.

``localhost`` and every ``*.localhost`` name are loopback by definition (RFC 6761): the guard
answers them itself (:func:`loopback_infos`) and never asks the system resolver, which could
send the name, and whatever data it carries, to a DNS server.
"""

from __future__ import annotations

import operator
import socket
from typing import Any

__all__ = [
    "UnplainAddress",
    "is_localhost_name",
    "loopback_address",
    "loopback_infos",
    "plain_address",
    "plain_host",
    "plain_port",
]

_INET = (socket.AF_INET, socket.AF_INET6)


class UnplainAddress(ValueError):
    """An address that cannot be read the way the operating system reads it."""


def plain_host(host: object) -> str | None:
    """``host`` as a plain ``str`` (bytes decoded as ASCII), or None when it is neither."""
    if isinstance(host, str):
        text = str.__str__(host)  # the stored text, whatever the subclass says
        if type(host) is not str and not text.isascii():
            # C passes a non-ASCII str subclass to the idna codec, which calls its methods.
            raise UnplainAddress("a host name given as a str subclass holding non-ASCII text")
        return text
    if isinstance(host, bytes):
        return bytes.decode(host, "ascii", "replace")
    if isinstance(host, bytearray):
        return bytearray.decode(host, "ascii", "replace")
    return None


def plain_port(port: object) -> int | None:
    """``port`` as a plain ``int`` (read once), or None when it is not an integer."""
    if isinstance(port, bool):
        return None
    if isinstance(port, int):
        return int.__index__(port)
    try:
        return operator.index(port)  # type: ignore[arg-type]
    except TypeError:
        return None


def plain_address(family: int, address: object) -> object:
    """``address`` copied into plain built-in values for a socket of ``family``.

    Internet addresses become ``(str, int, ...)`` tuples (the host as stored, bytes decoded),
    unix socket paths a plain ``str`` or ``bytes``; anything else is returned unchanged (the
    socket call rejects what it cannot read). Raises :class:`UnplainAddress` for a value the
    C code would read through methods the subclass overrides."""
    if family in _INET:
        if type(address) is tuple and len(address) == 2:
            host, port = address
            if type(host) is str and type(port) is int:
                return address  # plain already: the common case, kept fast
        if not isinstance(address, tuple):
            return address
        items = [tuple.__getitem__(address, i) for i in range(tuple.__len__(address))]
        if len(items) < 2:
            return tuple(items)
        host = plain_host(items[0])
        port = plain_port(items[1])
        if host is None or port is None:
            return tuple(items)
        rest = [plain_port(item) for item in items[2:]]  # IPv6 flow info and scope id
        return (
            host,
            port,
            *(r if r is not None else i for r, i in zip(rest, items[2:], strict=True)),
        )
    if family == getattr(socket, "AF_UNIX", None):
        if isinstance(address, str):
            return str.__str__(address)
        if isinstance(address, bytes):
            return bytes.__getitem__(address, slice(None))
        if isinstance(address, bytearray):
            return bytes(bytearray.__getitem__(address, slice(None)))
    return address


def is_localhost_name(host: str) -> bool:
    """True for ``localhost`` and every name below it (``api.localhost``), any case."""
    name = host.strip().lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def loopback_address(family: int) -> str:
    """The loopback address of an address family (``::1`` for IPv6, else ``127.0.0.1``)."""
    return "::1" if family == socket.AF_INET6 else "127.0.0.1"


def loopback_infos(
    resolver: Any,
    port: Any,
    family: int = 0,
    type: int = 0,  # getaddrinfo's own keyword
    proto: int = 0,
    flags: int = 0,
) -> list[Any]:
    """What ``getaddrinfo`` answers for a loopback name, built from the numeric loopback
    addresses (127.0.0.1 first, then ::1), so no resolver is asked. ``resolver`` is the real
    ``getaddrinfo``; the family, type, protocol and flags are applied as it applies them."""
    flags = (flags or 0) | socket.AI_NUMERICHOST
    flags &= ~getattr(socket, "AI_CANONNAME", 0)
    families = [f for f in (socket.AF_INET, socket.AF_INET6) if family in (0, f)]
    if not families:
        raise socket.gaierror(socket.EAI_FAMILY, "ai_family not supported")
    found: list[Any] = []
    for each in families:
        try:
            found.extend(resolver(loopback_address(each), port, each, type, proto, flags))
        except socket.gaierror:
            if len(families) == 1:
                raise
    if not found:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return found
