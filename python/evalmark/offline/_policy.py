"""What an offline guard lets through: the allowlist, parsed once and matched per call.

Entries (case-insensitive):

``"loopback"`` (alias ``"localhost"``)
    127.0.0.0/8, ::1, 0.0.0.0 and :: (they reach this machine), the names ``localhost``,
    ``*.localhost``, ``localhost.localdomain``, ``ip6-localhost``, ``ip6-loopback`` and this
    machine's own host name, and netlink sockets (the kernel, not a network).
``"unix"``
    every unix-domain socket; ``"unix:/run/app.sock"`` one path, ``"unix:/run/*.sock"`` a
    glob (``fnmatch``); an abstract socket is written ``"unix:@name"``.
``"api.example.com"``, ``"*.example.com"``
    a host name, or every name below a domain (not the domain itself). Addresses that a lookup
    of an allowed name returns are allowed too.
``"10.0.0.0/8"``, ``"192.168.1.20"``, ``"2001:db8::/32"``, ``"[::1]"``
    an address or a network.
``"*"``
    everything: the guard lets every call through (used to lift an outer guard).

The default is ``("loopback", "unix")``; an empty allowlist blocks loopback and unix sockets
too. Ports are not part of an entry.
"""

from __future__ import annotations

import fnmatch
import functools
import ipaddress
import os
import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["DEFAULT_ALLOW", "Policy", "parse_allow"]

DEFAULT_ALLOW: tuple[str, ...] = ("loopback", "unix")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_LOOPBACK_NAMES = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "localhost6"}
)
_LOCAL_ADDRESSES = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1/128"),
    ipaddress.ip_network("0.0.0.0/32"),
    ipaddress.ip_network("::/128"),
)
_NAME = re.compile(
    r"^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$"
)
_MAX_RESOLVED = 4096


def _own_host_names() -> frozenset[str]:
    try:
        name = socket.gethostname().strip().lower().rstrip(".")
    except OSError:  # pragma: no cover - gethostname does not fail on supported systems
        return frozenset()
    return frozenset({name, name.split(".")[0]} - {""})


@functools.lru_cache(maxsize=1024)
def _is_local(address: IPAddress) -> bool:
    return any(address in network for network in _LOCAL_ADDRESSES)


@functools.lru_cache(maxsize=1024)
def parse_ip(host: str) -> IPAddress | None:
    """The address ``host`` spells (IPv4-mapped IPv6 unwrapped, zone dropped), else None."""
    if ":" not in host and not host[:1].isdigit():
        return None  # a name: no address starts with a letter unless it has a colon
    text = host.strip("[]")
    if "%" in text:
        text = text.split("%", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def normalize_name(host: str) -> str:
    """A host name as it is compared: lower case, no trailing dot."""
    return host.strip().lower().rstrip(".")


@dataclass(frozen=True, slots=True, eq=False)
class Policy:
    """A parsed allowlist. ``allow_all`` lets everything through."""

    entries: tuple[str, ...]
    allow_all: bool = False
    loopback: bool = False
    unix_all: bool = False
    unix_patterns: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    networks: tuple[IPNetwork, ...] = ()
    own_names: frozenset[str] = frozenset()
    # Addresses returned by lookups of allowed names (shared by the threads using the policy).
    resolved: set[IPAddress] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------ matching

    def allows_address(self, address: IPAddress) -> bool:
        """True when connecting to ``address`` is allowed."""
        if self.allow_all:
            return True
        if self.loopback and _is_local(address):
            return True
        if any(address in network for network in self.networks):
            return True
        return address in self.resolved

    def allows_name(self, host: str) -> bool:
        """True when looking up (or connecting by) the name ``host`` is allowed."""
        if self.allow_all:
            return True
        name = normalize_name(host)
        if self.loopback and (
            name in _LOOPBACK_NAMES or name.endswith(".localhost") or name in self.own_names
        ):
            return True
        if name in self.names:
            return True
        return any(name.endswith(suffix) for suffix in self.suffixes)

    def names_entry(self, host: str) -> bool:
        """True when a host-name entry (not loopback) allows the name ``host``."""
        name = normalize_name(host)
        return name in self.names or any(name.endswith(suffix) for suffix in self.suffixes)

    def allows_host(self, host: str) -> bool:
        """An address or a name, whichever ``host`` is."""
        address = parse_ip(host)
        return self.allows_address(address) if address is not None else self.allows_name(host)

    def allows_unix(self, path: str) -> bool:
        """True when connecting to the unix socket ``path`` is allowed."""
        if self.allow_all or self.unix_all:
            return True
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.unix_patterns)

    def remember(self, addresses: Iterable[str]) -> None:
        """Allow the addresses a lookup of an allowed (non-loopback) name returned."""
        found = [a for a in (parse_ip(text) for text in addresses) if a is not None]
        if not found:
            return
        with self.lock:
            if len(self.resolved) < _MAX_RESOLVED:
                self.resolved.update(found)

    def extended(self, more: Iterable[str]) -> Policy:
        """This policy with more entries allowed."""
        return parse_allow((*self.entries, *more))

    def describe(self) -> str:
        """The entries as a person would write them."""
        if self.allow_all:
            return "everything"
        return ", ".join(self.entries) if self.entries else "nothing (not even loopback)"


def _unix_pattern(text: str) -> str:
    path = text[len("unix:") :]
    if not path:
        raise ValueError("allowlist entry 'unix:' names no path; write 'unix' for every socket")
    return "\0" + path[1:] if path.startswith("@") else path


def parse_allow(entries: Iterable[str] | None) -> Policy:
    """Parse an allowlist (None: the default, loopback and unix sockets). A bad entry raises
    ``ValueError`` naming it and the forms that are accepted."""
    given = DEFAULT_ALLOW if entries is None else entries
    if isinstance(given, str):
        raise TypeError(
            f"allow takes a list of entries, got the string {given!r}; write allow=[{given!r}]"
        )
    kept: list[str] = []
    loopback = unix_all = allow_all = False
    unix: list[str] = []
    names: set[str] = set()
    suffixes: list[str] = []
    networks: list[IPNetwork] = []
    for raw in given:
        if not isinstance(raw, str):
            raise TypeError(f"allowlist entries are strings, got {type(raw).__name__}: {raw!r}")
        text = raw.strip()
        lower = text.lower()
        kept.append(text)
        if lower == "*":
            allow_all = True
        elif lower in ("loopback", "localhost"):
            loopback = True
        elif lower == "unix":
            unix_all = True
        elif lower.startswith("unix:"):
            unix.append(_unix_pattern(text))
        elif (network := _network(text)) is not None:
            networks.append(network)
        elif _NAME.match(normalize_name(lower)):
            name = normalize_name(lower)
            if name.startswith("*."):
                suffixes.append(name[1:])
            else:
                names.add(name)
        else:
            raise ValueError(
                f"allowlist entry {raw!r} is not understood: give a host name "
                "('api.example.com', '*.example.com'), an address or network ('10.0.0.0/8', "
                "'::1'), 'loopback', 'unix', 'unix:/path/to.sock' or '*' (ports are not "
                "part of an entry)"
            )
    return Policy(
        entries=tuple(kept),
        allow_all=allow_all,
        loopback=loopback,
        unix_all=unix_all,
        unix_patterns=tuple(unix),
        names=frozenset(names),
        suffixes=tuple(suffixes),
        networks=tuple(networks),
        own_names=_own_host_names() if loopback else frozenset(),
    )


def _network(text: str) -> IPNetwork | None:
    try:
        return ipaddress.ip_network(text.strip("[]"), strict=False)
    except ValueError:
        return None


def unix_path(address: object) -> str:
    """The path of a unix socket address as text (abstract names start with NUL)."""
    if isinstance(address, bytes | bytearray):
        return os.fsdecode(bytes(address))
    return os.fspath(address) if isinstance(address, os.PathLike) else str(address)
