"""Sockets that were connected before the guard opened.

A guard checks connections as they are made; a socket connected earlier has no connect left
to refuse. Its sends through Python are checked against its peer
(:func:`evalmark.offline._socket_calls.check_peer`), and when the first guard opens,
:func:`warn_open_sockets` lists the process's connected internet sockets (its descriptors
from ``/proc/self/fd`` or ``/dev/fd``, each asked for its peer) whose peer the guard does not
allow,
and warns (``RuntimeWarning``) when one of them is held by no Python socket object (a C
extension's, or a descriptor used through ``os.write``: the guard cannot stop it) or leads off
the machine. Those held by a Python socket object are refused at their next send.
"""

from __future__ import annotations

import _socket
import gc
import ipaddress
import os
import socket
import stat
import sys
import time
import warnings
from dataclasses import dataclass

from evalmark.errors import NetworkBlockedError
from evalmark.offline._policy import Policy

__all__ = ["OpenPeer", "open_peers", "warn_open_sockets"]

_C_PEER = _socket.socket.getpeername
_SHOWN = 10


@dataclass(frozen=True, slots=True)
class OpenPeer:
    """A connected internet socket of this process: its descriptor and its peer."""

    fd: int
    host: str
    port: int

    @property
    def target(self) -> str:
        """``host:port`` (``[v6]:port`` for IPv6)."""
        return NetworkBlockedError.format_target(self.host, self.port)


def _descriptors() -> list[int]:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return sorted(int(name) for name in os.listdir(folder) if name.isdigit())
        except OSError:
            continue
    return []


def _peer(fd: int) -> tuple[str, int] | None:
    """The internet peer of descriptor ``fd``, or None (not a connected internet socket)."""
    try:
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return None
        sock = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        peer = _C_PEER(sock)
    except OSError:
        return None  # not connected
    finally:
        sock.detach()  # the descriptor stays open: it belongs to someone else
    host = str(peer[0])
    mapped = ipaddress.ip_address(host.split("%", 1)[0])
    if isinstance(mapped, ipaddress.IPv6Address) and mapped.ipv4_mapped is not None:
        host = str(mapped.ipv4_mapped)
    return host, int(peer[1])


def open_peers() -> list[OpenPeer]:
    """This process's connected internet sockets, by descriptor (empty where the system does
    not list a process's descriptors)."""
    peers = []
    for fd in _descriptors():
        found = _peer(fd)
        if found is not None:
            peers.append(OpenPeer(fd, *found))
    return peers


def _python_descriptors() -> set[int]:
    return {
        sock.fileno()
        for sock in gc.get_objects()
        if isinstance(sock, socket.socket) and sock.fileno() >= 0
    }


def warn_open_sockets(policy: Policy) -> list[OpenPeer]:
    """Warn about the connected sockets whose peer ``policy`` does not allow; returns them."""
    if policy.allow_all:
        return []
    blocked = [peer for peer in open_peers() if not policy.allows_host(peer.host)]
    if not blocked:
        return []
    python = _python_descriptors()
    if any(peer.fd not in python for peer in blocked):
        # Another thread may be between accept() and wrapping the descriptor: let it finish.
        time.sleep(2 * sys.getswitchinterval())
        python = _python_descriptors()
    held = [peer for peer in blocked if peer.fd in python]
    loose = [peer for peer in blocked if peer.fd not in python]
    if not loose and all(_is_loopback(peer.host) for peer in held):
        return blocked  # refused at their next send, and they never left the machine
    parts = []
    if held:
        parts.append(f"{_list(held)}: their sends through Python are refused")
    if loose:
        parts.append(
            f"{_list(loose)}: held by no Python socket object (a C extension's?), which the "
            "guard cannot stop; for a hard guarantee use an isolated network "
            "(evalmark run --isolate-network)"
        )
    warnings.warn(
        f"evalmark.offline: {len(blocked)} socket(s) connected before the guard opened "
        f"lead to hosts it does not allow: {'; '.join(parts)}",
        RuntimeWarning,
        stacklevel=4,
    )
    return blocked


def _is_loopback(host: str) -> bool:
    return ipaddress.ip_address(host).is_loopback


def _list(peers: list[OpenPeer]) -> str:
    shown = ", ".join(f"fd {peer.fd} to {peer.target}" for peer in peers[:_SHOWN])
    more = f" and {len(peers) - _SHOWN} more" if len(peers) > _SHOWN else ""
    return shown + more
