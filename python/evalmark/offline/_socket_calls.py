"""The guarded socket calls: connects and sends, and the list of everything the guard patches.

``socket.socket.connect`` and ``connect_ex``, ``sendto`` and ``sendmsg`` (to an address)
copy the address into plain values (:func:`~evalmark.offline._addresses.plain_address`),
check it and hand the copy on. A host *name* is resolved here rather than by the C code:
``localhost`` names become the loopback address without a lookup, other allowed names are
looked up and the address found is checked too, so the check is made on the address the
socket will really connect to. ``send``, ``sendall``, ``sendfile``, ``sendmsg`` without an
address (and ``ssl.SSLSocket``'s ``send``, ``sendall`` and ``write``) check the socket's peer,
which catches a socket connected before the guard opened.
"""

from __future__ import annotations

import _socket
import socket
import sys
from collections.abc import Iterator
from typing import Any

from evalmark.errors import NetworkBlockedError
from evalmark.offline._addresses import (
    UnplainAddress,
    is_localhost_name,
    loopback_address,
    plain_address,
)
from evalmark.offline._audit import check_peer, socket_family, vetted
from evalmark.offline._guard import SPECIAL_HOSTS, Entry, active_entry, check_address, refuse
from evalmark.offline._lookups import lookup_patches
from evalmark.offline._patching import Patch, original
from evalmark.offline._policy import parse_ip

__all__ = ["patches"]

SocketClass = socket.socket  # the class patched, even if socket is reloaded later
_INET = (socket.AF_INET, socket.AF_INET6)
_C_TYPE = _socket.socket.__dict__["type"]


def _target(entry: Entry, sock: Any, address: Any, operation: str) -> Any:
    """The plain address ``sock`` will reach, after checking it (names resolved here)."""
    family = socket_family(sock)
    try:
        plain = plain_address(family, address)
    except UnplainAddress as exc:
        raise refuse(entry, operation, str(exc), None) from None
    if family in _INET and isinstance(plain, tuple) and len(plain) >= 2:
        host = plain[0]
        if isinstance(host, str) and host not in SPECIAL_HOSTS and parse_ip(host) is None:
            return _resolved(entry, sock, family, plain, operation)
    check_address(entry, family, plain, operation)
    return plain


def _resolved(entry: Entry, sock: Any, family: int, plain: tuple[Any, ...], op: str) -> Any:
    host, port = plain[0], plain[1]
    policy = entry.policy
    if not policy.allows_name(host):
        raise refuse(entry, op, host, port)
    if is_localhost_name(host):
        return (loopback_address(family), *plain[1:])
    infos = vetted(original(socket, "getaddrinfo"), host, port, family, _C_TYPE.__get__(sock))
    found = str(infos[0][4][0])
    address = parse_ip(found)
    if policy.names_entry(host):
        policy.remember([found])
    elif address is None or not (policy.allows_address(address) or _on_this_machine(found)):
        raise refuse(entry, op, f"{host} ({found})", port)
    return (found, *plain[1:])


def _on_this_machine(address: str) -> bool:
    """True when ``address`` belongs to this machine (a socket can be bound to it)."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))
    except OSError:
        return False
    return True


def _connect(self: socket.socket, address: Any) -> None:
    """``socket.connect``, refused (and the socket closed) when ``address`` is not allowed."""
    entry = active_entry()
    if entry is not None:
        address = _checked_connect(entry, self, address)
    vetted(original(SocketClass, "connect"), self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    """``socket.connect_ex``, refused (and the socket closed) when ``address`` is not allowed."""
    entry = active_entry()
    if entry is not None:
        address = _checked_connect(entry, self, address)
    result: int = vetted(original(SocketClass, "connect_ex"), self, address)
    return result


def _checked_connect(entry: Entry, sock: socket.socket, address: Any) -> Any:
    try:
        return _target(entry, sock, address, "connect")
    except NetworkBlockedError:
        # Closed here: socket.create_connection and urllib3 close a socket whose connect
        # failed only on OSError, and the refused socket is of no further use.
        sock.close()
        raise


def _sendto(self: socket.socket, data: Any, *rest: Any) -> int:
    """``socket.sendto``, refused when the guard does not allow the destination."""
    entry = active_entry()
    if entry is not None and rest:
        rest = (*rest[:-1], _target(entry, self, rest[-1], "send"))
    result: int = vetted(original(SocketClass, "sendto"), self, data, *rest)
    return result


def _sendmsg(self: socket.socket, *args: Any) -> int:
    """``socket.sendmsg``, refused when the guard does not allow the destination (the
    address given, else the peer)."""
    entry = active_entry()
    if entry is not None:
        if len(args) >= 4 and args[3] is not None:
            args = (*args[:3], _target(entry, self, args[3], "send"), *args[4:])
        else:
            check_peer(self, entry)
    result: int = vetted(original(SocketClass, "sendmsg"), self, *args)
    return result


def _peer_checked(owner: object, name: str) -> Any:
    def send(self: Any, *args: Any, **kwargs: Any) -> Any:
        entry = active_entry()
        if entry is not None:
            check_peer(self, entry)
        return original(owner, name)(self, *args, **kwargs)

    send.__name__ = send.__qualname__ = name
    send.__doc__ = f"``{name}``, refused when the guard does not allow the socket's peer."
    return send


def patches() -> list[Patch]:
    """Everything the guard replaces while it is open."""
    found: list[Patch] = [
        (SocketClass, "connect", _connect),
        (SocketClass, "connect_ex", _connect_ex),
        (SocketClass, "sendto", _sendto),
    ]
    if hasattr(SocketClass, "sendmsg"):
        found.append((SocketClass, "sendmsg", _sendmsg))
    for name in ("send", "sendall", "sendfile"):
        found.append((SocketClass, name, _peer_checked(SocketClass, name)))
    found.extend(_ssl_patches())
    found.extend(lookup_patches())
    return found


def _ssl_patches() -> Iterator[Patch]:
    # Only when ssl is loaded: an SSL socket opened before the guard needs ssl loaded first.
    ssl = sys.modules.get("ssl")
    if ssl is None:
        return
    for name in ("send", "sendall", "write"):
        if hasattr(ssl.SSLSocket, name):
            yield ssl.SSLSocket, name, _peer_checked(ssl.SSLSocket, name)
