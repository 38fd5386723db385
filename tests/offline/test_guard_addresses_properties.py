"""Properties of the offline guard over generated addresses: the default allowlist refuses every
address outside this machine (in every spelling: bracketed, with a zone, IPv4-mapped) and allows
every loopback one; an empty allowlist allows nothing and ``*`` everything; a refused connection
or lookup raises ``NetworkBlockedError`` naming the host and port before anything is sent; a bad
entry is refused naming it; unix paths match their glob."""

from __future__ import annotations

import fnmatch
import ipaddress
import socket

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import NetworkBlockedError
from evalmark.offline import offline
from evalmark.offline._addresses import plain_address
from evalmark.offline._policy import parse_allow

LOCAL = [ipaddress.ip_network(n) for n in ("127.0.0.0/8", "::1/128", "0.0.0.0/32", "::/128")]


def is_local(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in n for n in LOCAL)


REMOTE = st.ip_addresses().filter(lambda a: not is_local(a))
LOOPBACK = st.one_of(
    st.ip_addresses(network="127.0.0.0/8"),
    st.just(ipaddress.IPv6Address("::1")),
)
PORTS = st.integers(1, 65535)


def spellings(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[str]:
    """The ways a program may write ``address`` as a host."""
    text = str(address)
    if isinstance(address, ipaddress.IPv4Address):
        return [text, f"::ffff:{text}", f"[::ffff:{text}]"]
    return [text, f"[{text}]", f"{text}%1", address.exploded]


@settings(max_examples=examples(200), deadline=None)
@given(REMOTE)
def test_the_default_allowlist_refuses_every_address_off_this_machine_in_every_spelling(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    policy = parse_allow(None)
    for host in spellings(address):
        assert not policy.allows_host(host), host


@settings(max_examples=examples(100), deadline=None)
@given(LOOPBACK)
def test_the_default_allowlist_allows_every_loopback_address_in_every_spelling(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    policy = parse_allow(None)
    for host in spellings(address):
        assert policy.allows_host(host), host
    assert not parse_allow([]).allows_host(str(address))


@settings(max_examples=examples(100), deadline=None)
@given(st.ip_addresses(), st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5}){0,2}", fullmatch=True))
def test_an_empty_allowlist_allows_nothing_and_a_star_everything(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, name: str
) -> None:
    empty, everything = parse_allow([]), parse_allow(["*"])
    assert not empty.allows_host(str(address)) and not empty.allows_name(name)
    assert not empty.allows_unix("/tmp/x.sock")
    assert everything.allows_host(str(address)) and everything.allows_name(name)


@settings(max_examples=examples(60), deadline=None)
@given(REMOTE, PORTS)
def test_a_connection_off_this_machine_is_blocked_naming_host_and_port(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int
) -> None:
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with offline(), socket.socket(family, socket.SOCK_STREAM) as raw:
        raw.settimeout(0.2)
        with pytest.raises(NetworkBlockedError) as blocked:
            raw.connect((str(address), port))
    assert str(address) in str(blocked.value) and str(port) in str(blocked.value)


@settings(max_examples=examples(40), deadline=None)
@given(st.ip_addresses(network="127.0.0.0/8"))
def test_a_connection_to_a_loopback_address_is_let_through(address: ipaddress.IPv4Address) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        try:
            server.bind((str(address), 0))
        except OSError:
            assume(False)  # this machine does not route that loopback address
        server.listen(1)
        port = server.getsockname()[1]
        with offline():
            try:
                socket.create_connection((str(address), port), timeout=10).close()
            except NetworkBlockedError:
                raise
            except OSError:  # e.g. 127.255.255.255 binds but does not connect: not the guard
                pass


@settings(max_examples=examples(60), deadline=None)
@given(st.from_regex(r"[a-z][a-z0-9]{0,8}\.(com|net|org|example)", fullmatch=True), PORTS)
def test_a_lookup_of_a_name_not_allowed_is_blocked_before_any_resolver_is_asked(
    name: str, port: int
) -> None:
    with offline(), pytest.raises(NetworkBlockedError) as blocked:
        socket.getaddrinfo(name, port)
    assert name in str(blocked.value)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.text(min_size=1, max_size=12).filter(
        lambda t: (
            t.strip().lower() not in ("*", "loopback", "localhost", "unix")
            and not t.strip().lower().startswith("unix:")
            and any(c in t.strip() for c in " /\\@!?#$%&()+,;<=>[]^`{|}~\"'")
        )
    )
)
def test_an_entry_that_is_no_name_address_or_keyword_is_refused_naming_it(entry: str) -> None:
    try:
        ipaddress.ip_network(entry.strip().strip("[]"), strict=False)
    except ValueError:
        pass
    else:
        assume(False)  # a network is a good entry
    with pytest.raises(ValueError) as caught:
        parse_allow([entry])
    assert repr(entry) in str(caught.value)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.from_regex(r"/[a-z]{1,5}(/[a-z*?]{1,5}){0,2}\.sock", fullmatch=True),
    st.from_regex(r"/[a-z]{1,5}(/[a-z]{1,5}){0,2}\.sock", fullmatch=True),
)
def test_a_unix_entry_allows_exactly_the_paths_its_glob_matches(pattern: str, path: str) -> None:
    policy = parse_allow([f"unix:{pattern}"])
    assert policy.allows_unix(path) == fnmatch.fnmatchcase(path, pattern)
    assert policy.allows_unix(pattern.replace("*", "x").replace("?", "y")) or "[" in pattern


class Host(str):
    """A str subclass that lies about itself."""

    def __str__(self) -> str:
        return "example.com"


class Port(int):
    def __index__(self) -> int:
        return 1


@settings(max_examples=examples(60), deadline=None)
@given(st.ip_addresses(v=4).map(str), PORTS)
def test_plain_addresses_copy_the_stored_values_whatever_a_subclass_says(
    host: str, port: int
) -> None:
    assert plain_address(socket.AF_INET, (Host(host), Port(port))) == (host, port)
    plain = plain_address(socket.AF_INET, (Host(host), Port(port)))
    assert type(plain[0]) is str and type(plain[1]) is int  # type: ignore[index]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(REMOTE, PORTS), min_size=1, max_size=5))
def test_every_refused_call_is_kept_once_as_an_attempt_in_order(
    calls: list[tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]],
) -> None:
    from evalmark.offline import attempts

    attempts(clear=True)
    with offline():
        for address, port in calls:
            family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
            with (
                socket.socket(family, socket.SOCK_STREAM) as raw,
                pytest.raises(NetworkBlockedError),
            ):
                raw.connect((str(address), port))
    kept = attempts()
    attempts(clear=True)
    assert [(a.host, a.port) for a in kept] == [(str(a), p) for a, p in calls]
    assert all(a.operation == "connect" for a in kept)
    assert attempts() == []


@settings(max_examples=examples(100), deadline=None)
@given(
    st.ip_addresses(v=4),
    st.lists(
        st.sampled_from(["10.0.0.0/8", "192.0.2.0/24", "127.0.0.0/8", "0.0.0.0/0"]), max_size=2
    ),
)
def test_an_ipv4_mapped_ipv6_address_is_judged_as_its_ipv4_address(
    address: ipaddress.IPv4Address, networks: list[str]
) -> None:
    for entries in (networks, [*networks, "loopback"], []):
        policy = parse_allow(entries)
        verdict = policy.allows_host(str(address))
        assert policy.allows_host(f"::ffff:{address}") == verdict
        assert policy.allows_host(f"[::ffff:{address}]") == verdict


@settings(max_examples=examples(100), deadline=None)
@given(st.ip_addresses(v=4).map(str), PORTS)
def test_a_host_given_as_bytes_is_read_as_its_ascii_text(host: str, port: int) -> None:
    assert plain_address(socket.AF_INET, (host.encode(), port)) == (host, port)
    assert plain_address(socket.AF_INET, (bytearray(host.encode()), port)) == (host, port)
