"""Properties of the guard's public records over generated allowlists and addresses: a
``Policy`` extended with more entries allows everything it allowed and everything those
entries allow, and describes its entries in order; a refused call the application swallowed is
kept as a ``BlockedAttempt`` saying what the raised error said, from the thread that asked."""

from __future__ import annotations

import ipaddress
import socket
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import NetworkBlockedError
from evalmark.offline import BlockedAttempt, Policy, attempts, offline
from evalmark.offline._policy import parse_allow

ENTRIES = st.lists(
    st.sampled_from(
        [
            "loopback",
            "unix",
            "10.0.0.0/8",
            "192.0.2.0/24",
            "2001:db8::/32",
            "example.com",
            "*.example.org",
            "api.test",
            "unix:/tmp/*.sock",
        ]
    ),
    max_size=4,
    unique=True,
)
HOSTS = st.one_of(
    st.ip_addresses().map(str),
    st.sampled_from(["localhost", "example.com", "a.example.org", "api.test", "other.net"]),
)
UNIX = st.sampled_from(["/tmp/a.sock", "/run/x.sock", "/tmp/b.txt"])


@settings(max_examples=examples(150), deadline=None)
@given(ENTRIES, ENTRIES, st.lists(HOSTS, min_size=1, max_size=6), UNIX)
def test_an_extended_policy_allows_what_both_parts_allow(
    first: list[str], more: list[str], hosts: list[str], path: str
) -> None:
    policy = parse_allow(first)
    wider = policy.extended(more)
    alone = parse_allow(more)
    assert isinstance(policy, Policy) and isinstance(wider, Policy)
    for host in hosts:
        assert wider.allows_host(host) is (policy.allows_host(host) or alone.allows_host(host))
    assert wider.allows_unix(path) is (policy.allows_unix(path) or alone.allows_unix(path))
    assert policy.describe() == (", ".join(first) or "nothing (not even loopback)")


REMOTE = st.ip_addresses(v=4, network="192.0.2.0/24") | st.ip_addresses(network="2001:db8::/32")


@settings(max_examples=examples(40), deadline=None)
@given(REMOTE, st.integers(1, 65535))
def test_a_swallowed_refusal_is_kept_as_an_attempt_saying_what_the_error_said(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int
) -> None:
    attempts(clear=True)
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    raised: NetworkBlockedError | None = None
    with offline(), socket.socket(family, socket.SOCK_STREAM) as raw:
        try:
            raw.connect((str(address), port))
        except NetworkBlockedError as error:  # the application swallows it
            raised = error
    (kept,) = attempts(clear=True)
    assert raised is not None and isinstance(kept, BlockedAttempt)
    assert (kept.operation, kept.host, kept.port) == ("connect", str(address), port)
    assert kept.target == raised.target
    assert kept.what == raised.what
    assert kept.thread == threading.current_thread().name
