"""Properties of the network guard over generated allowlists, hosts and addresses: more entries
never block what fewer allowed, names match whatever their case or trailing dot, a wildcard
allows exactly the names under it, a network allows exactly its addresses, and inside a guard
every connection to a host it does not allow raises ``NetworkBlockedError`` before anything
leaves the machine."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import NetworkBlockedError
from evalmark.offline import offline
from evalmark.offline._policy import parse_allow

LABELS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=8).filter(
    lambda s: not s.startswith("-") and not s.endswith("-")
)
NAMES = st.lists(LABELS, min_size=1, max_size=3).map(".".join)
# Documentation networks: nothing there answers, even if the guard let a connection through.
DOC_NETWORKS = ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"]
ADDRESSES = st.one_of(st.ip_addresses(network=net) for net in DOC_NETWORKS).map(str)
NETWORKS = st.sampled_from(
    ["192.0.2.0/25", "192.0.2.128/25", "198.51.100.0/24", "2001:db8::/48", "203.0.113.7"]
)
ENTRIES = st.lists(
    st.one_of(
        NAMES,
        NAMES.map(lambda n: "*." + n),
        NETWORKS,
        st.sampled_from(["loopback", "unix", "unix:/tmp/*.sock"]),
    ),
    max_size=4,
)
HOSTS = st.one_of(NAMES, ADDRESSES, st.sampled_from(["localhost", "127.0.0.1", "::1"]))


@settings(max_examples=examples(100), deadline=None)
@given(ENTRIES, ENTRIES, HOSTS)
def test_more_entries_never_block_what_fewer_allowed(
    entries: list[str], more: list[str], host: str
) -> None:
    policy = parse_allow(entries)
    if policy.allows_host(host):
        assert policy.extended(more).allows_host(host)
        assert parse_allow([*more, *entries]).allows_host(host), "the order of entries matters"


@settings(max_examples=examples(100), deadline=None)
@given(ENTRIES, NAMES)
def test_a_name_matches_whatever_its_case_or_trailing_dot(entries: list[str], name: str) -> None:
    policy = parse_allow(entries)
    verdict = policy.allows_name(name)
    assert policy.allows_name(name.upper()) == verdict
    assert policy.allows_name(name + ".") == verdict
    assert parse_allow([e.upper() for e in entries]).allows_name(name) == verdict


@settings(max_examples=examples(200), deadline=None)
@given(NAMES, LABELS, NAMES)
def test_a_wildcard_allows_exactly_the_names_under_it(domain: str, label: str, other: str) -> None:
    policy = parse_allow([f"*.{domain}"])
    assert policy.allows_name(f"{label}.{domain}")
    assert not policy.allows_name(f"{label}{domain}") or f"{label}{domain}".endswith(f".{domain}")
    assert policy.allows_name(other) == other.endswith(f".{domain}")


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(NETWORKS, max_size=3), ADDRESSES)
def test_a_network_allows_exactly_its_addresses(networks: list[str], address: str) -> None:
    policy = parse_allow(networks)
    inside = any(
        ipaddress.ip_address(address) in ipaddress.ip_network(n, strict=False) for n in networks
    )
    assert policy.allows_host(address) == inside


@settings(max_examples=examples(40), deadline=None)
@given(ADDRESSES, st.integers(1, 65535), st.lists(NAMES, max_size=2))
def test_inside_a_guard_a_connection_it_does_not_allow_is_blocked(
    address: str, port: int, names: list[str]
) -> None:
    with offline(allow=["loopback", *names]), pytest.raises(NetworkBlockedError) as blocked:
        socket.create_connection((address, port), timeout=0.2)
    assert str(port) in str(blocked.value)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with offline(allow=names), socket.socket(family, socket.SOCK_STREAM) as raw:
        raw.settimeout(0.2)
        with pytest.raises(NetworkBlockedError):
            raw.connect((address, port))
