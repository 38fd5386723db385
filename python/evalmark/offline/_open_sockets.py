"""Sockets that were connected before the guard opened.

A guard checks connections as they are made; a socket connected earlier has no connect left
to refuse. Its sends through Python are checked against its peer
(:func:`evalmark.offline._socket_calls.check_peer`), and when the first guard opens,
:func:`warn_open_sockets` lists the process's connected internet sockets (``/proc/self/fd``
and ``/proc/self/net/{tcp,tcp6,udp,udp6}``, Linux only) whose peer the guard does not allow,
and warns (``RuntimeWarning``) when one of them is held by no Python socket object (a C
extension's, or a descriptor used through ``os.write``: the guard cannot stop it) or leads off
the machine. Those held by a Python socket object are refused at their next send.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
import sys
import time
import warnings
from dataclasses import dataclass

from evalmark.errors import NetworkBlockedError
from evalmark.offline._policy import Policy

__all__ = ["OpenPeer", "open_peers", "warn_open_sockets"]

_TABLES = (("tcp", False), ("tcp6", True), ("udp", False), ("udp6", True))
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


def _socket_inodes() -> dict[int, int]:
    """The socket inodes of this process's descriptors: inode -> descriptor."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return {}
    found: dict[int, int] = {}
    for name in names:
        try:
            link = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if link.startswith("socket:[") and link.endswith("]"):
            found[int(link[8:-1])] = int(name)
    return found


def _address(text: str, v6: bool) -> str:
    raw = bytes.fromhex(text)
    # The kernel prints each 32-bit word in the machine's byte order.
    if sys.byteorder == "little":
        raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    address = ipaddress.IPv6Address(raw) if v6 else ipaddress.IPv4Address(raw)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def open_peers() -> list[OpenPeer]:
    """This process's connected internet sockets (empty where ``/proc`` does not tell)."""
    inodes = _socket_inodes()
    if not inodes:
        return []
    peers: list[OpenPeer] = []
    for table, v6 in _TABLES:
        try:
            with open(f"/proc/self/net/{table}", encoding="ascii") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or not fields[9].isdigit() or int(fields[9]) not in inodes:
                continue
            host_hex, _, port_hex = fields[2].partition(":")
            port = int(port_hex, 16)
            if port == 0:
                continue  # listening, or not connected
            peers.append(OpenPeer(inodes[int(fields[9])], _address(host_hex, v6), port))
    return sorted(peers, key=lambda peer: peer.fd)


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
