"""The guard's audit hook: the calls that reach the C socket module without the patched ones.

The patched functions of :mod:`evalmark.offline._socket_calls` and
:mod:`evalmark.offline._lookups` can be stepped around from Python: the C type's own method
(``_socket.socket().connect``, ``_socket.socket.connect(sock, ...)``), the C module's
functions (``_socket.getaddrinfo``), a reference kept from before the guard opened, or
``importlib.reload(socket)``, which puts the unpatched functions back. Each of these still
raises an audit event inside the C code (PEP 578) before the operating system is asked:
``socket.connect``, ``socket.sendto``, ``socket.sendmsg``, ``socket.getaddrinfo``,
``socket.gethostbyname``, ``socket.gethostbyaddr``, ``socket.getnameinfo`` and
``socket.__new__`` (``send`` and ``sendall`` raise none: the C type's own ``send`` on a socket
connected before the guard opened is not seen). The hook checks those with the innermost open
guard's policy and raises :class:`~evalmark.errors.NetworkBlockedError`, which aborts the
call.

A call that went through a patched function was checked there (:func:`vetted` marks it) and
passes. With no information about what the patched function would have done instead, the hook
is stricter: it refuses a connect or a lookup of a ``*.localhost`` name (the C code would ask
the system resolver) and any reverse lookup of an address that is not allowed.

The hook also refuses to open packet sockets (``AF_PACKET``) and raw internet sockets
(``SOCK_RAW``), whatever the guard allows but ``*``: they send frames and packets no address
check can follow. An audit hook cannot be removed: it is added when the first guard opens and
does nothing while no guard is open.
"""

from __future__ import annotations

import _socket
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from evalmark.offline._addresses import UnplainAddress, plain_address, plain_host
from evalmark.offline._guard import (
    SPECIAL_HOSTS,
    Entry,
    active_entry,
    check_address,
    check_reverse,
    family_name,
    refuse,
)
from evalmark.offline._policy import parse_ip

__all__ = ["check_peer", "install_hook", "socket_family", "vetted"]

_T = TypeVar("_T")
_local = threading.local()
_hooked = False
_hook_lock = threading.Lock()
_INET = (socket.AF_INET, socket.AF_INET6)
_SOCK_PACKET = getattr(socket, "SOCK_PACKET", 10)
_TYPE_FLAGS = getattr(socket, "SOCK_NONBLOCK", 0) | getattr(socket, "SOCK_CLOEXEC", 0)
_C_FAMILY = _socket.socket.__dict__["family"]  # the C type's stored family
_C_PEER = _socket.socket.getpeername


def socket_family(sock: object) -> int:
    """The family a socket object really has (its C field, not a property a subclass
    overrides)."""
    family: int = _C_FAMILY.__get__(sock)
    return family


def check_peer(sock: Any, entry: Entry) -> None:
    """Refuse to send on ``sock`` when the guard does not allow its peer (nothing to check
    when it has none: the operating system refuses the send itself)."""
    if entry.policy.allow_all:
        return
    try:
        peer = _C_PEER(sock)
    except OSError:
        return
    family = socket_family(sock)
    if family == getattr(socket, "AF_UNIX", None) and not peer:
        return  # an unnamed peer: a socketpair within this process
    check_address(entry, family, peer, "send")


def vetted(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """Call ``function``, a socket call the guard has checked, with the audit hook stepping
    aside for it (in this thread)."""
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    try:
        return function(*args, **kwargs)
    finally:
        _local.depth = depth


def install_hook() -> None:
    """Add the audit hook (once per process)."""
    global _hooked
    with _hook_lock:
        if not _hooked:
            sys.addaudithook(_hook)
            _hooked = True


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not event.startswith("socket."):
        return
    entry = active_entry()
    if entry is None or entry.policy.allow_all:
        return
    depth: int = getattr(_local, "depth", 0)
    if depth:
        return  # a call the patched functions checked
    handler = _HANDLERS.get(event)
    if handler is not None:
        vetted(handler, entry, args)


def _new(entry: Entry, args: tuple[Any, ...]) -> None:
    # socket.__new__: (socket, family, type, proto); -1 where the caller gave none.
    family = args[1] if args[1] != -1 else socket.AF_INET
    kind = (args[2] if args[2] != -1 else socket.SOCK_STREAM) & ~_TYPE_FLAGS
    packet = family == getattr(socket, "AF_PACKET", -2) or kind == _SOCK_PACKET
    raw_inet = kind == socket.SOCK_RAW and family in _INET
    if packet or raw_inet:
        raise refuse(entry, "socket", f"{family_name(family)} {_kind_name(kind)}", None)


def _kind_name(kind: int) -> str:
    try:
        return socket.SocketKind(kind).name
    except ValueError:
        return f"type {kind}"


def _destination(entry: Entry, args: tuple[Any, ...], operation: str) -> None:
    # socket.connect / sendto / sendmsg: (socket, address); sendmsg's address may be None.
    sock, address = args[0], args[1]
    if address is None:  # sendmsg on a connected socket: its peer
        check_peer(sock, entry)
        return
    family = socket_family(sock)
    try:
        plain = plain_address(family, address)
    except UnplainAddress as exc:
        raise refuse(entry, operation, str(exc), None) from None
    if family in _INET and isinstance(plain, tuple) and len(plain) >= 2:
        host = plain[0]
        if isinstance(host, str) and host not in SPECIAL_HOSTS and parse_ip(host) is None:
            _check_resolvable(entry, host, operation, plain[1])
    check_address(entry, family, plain, operation)


def _check_resolvable(entry: Entry, host: str, operation: str, port: object) -> None:
    """A name the C code is about to give to the system resolver: refused unless allowed,
    and always for a name below ``localhost`` (the resolver could send it out)."""
    name = host.strip().lower().rstrip(".")
    if name.endswith(".localhost") or not entry.policy.allows_name(host):
        shown_port = port if isinstance(port, int) else None
        raise refuse(entry, "resolve" if operation != "connect" else operation, host, shown_port)


def _lookup(entry: Entry, args: tuple[Any, ...]) -> None:
    # socket.getaddrinfo: (host, port, family, type, proto); socket.gethostbyname: (host,)
    try:
        host = plain_host(args[0])
    except UnplainAddress as exc:
        raise refuse(entry, "resolve", str(exc), None) from None
    if not host:
        return
    address = parse_ip(host)
    if address is not None:
        return  # a numeric address: no lookup (connects to it are checked themselves)
    _check_resolvable(entry, host, "resolve", args[1] if len(args) > 1 else None)


def _reverse(entry: Entry, args: tuple[Any, ...]) -> None:
    # socket.gethostbyaddr: (address,); socket.getnameinfo: (sockaddr,)
    target = args[0]
    if isinstance(target, tuple) and tuple.__len__(target):
        target = tuple.__getitem__(target, 0)
    try:
        host = plain_host(target)
    except UnplainAddress as exc:
        raise refuse(entry, "resolve", str(exc), None) from None
    check_reverse(entry, host, None)


_HANDLERS: dict[str, Callable[[Entry, tuple[Any, ...]], None]] = {
    "socket.__new__": _new,
    "socket.connect": lambda entry, args: _destination(entry, args, "connect"),
    "socket.sendto": lambda entry, args: _destination(entry, args, "send"),
    "socket.sendmsg": lambda entry, args: _destination(entry, args, "send"),
    "socket.getaddrinfo": _lookup,
    "socket.gethostbyname": _lookup,
    "socket.gethostbyaddr": _reverse,
    "socket.getnameinfo": _reverse,
}
