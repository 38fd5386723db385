"""Deliberate ways around the network guard, each closed: loopback names that would go to
the resolver, the C socket module called directly, addresses that lie about their value, raw
and packet sockets, and a reloaded socket module.

Every target is a listener on 127.0.0.1 (or a name the safety net answers), so a call that
got through reaches nothing but the test itself.
"""

from __future__ import annotations

import _socket
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from offline_helpers import Listener, Net

from evalmark.errors import NetworkBlockedError
from evalmark.offline import _policy, offline

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- *.localhost names


def test_localhost_names_are_answered_without_the_resolver(no_escape: Net) -> None:
    with offline():
        infos = socket.getaddrinfo("secret-abc.localhost", 80, type=socket.SOCK_STREAM)
        v4 = socket.getaddrinfo("Data.Secret-Abc.LOCALHOST.", 80, socket.AF_INET)
        by_name = socket.gethostbyname("secret-abc.localhost")
        by_name_ex = socket.gethostbyname_ex("x.localhost")
    assert {info[4][0] for info in infos} == {"127.0.0.1", "::1"}
    assert infos[0][4][0] == "127.0.0.1"
    assert {info[4][0] for info in v4} == {"127.0.0.1"}
    assert by_name == "127.0.0.1"
    assert by_name_ex == ("x.localhost", [], ["127.0.0.1"])
    asked = [str(host) for _, host in no_escape.calls]
    assert not [host for host in asked if "localhost" in host.lower()]


def test_a_connect_by_a_localhost_name_goes_to_loopback_without_a_lookup(
    no_escape: Net, listener: Listener
) -> None:
    with offline(), socket.socket() as conn:
        conn.settimeout(5)
        conn.connect(("secret-abc.localhost", listener.port))
        conn.sendall(b"via name")
    listener.settle(handled=1)
    assert bytes(listener.received) == b"via name"
    assert no_escape.calls == [("connect", ("127.0.0.1", listener.port))]


def test_a_name_of_this_machine_is_checked_by_the_address_it_resolves_to(
    no_escape: Net, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The machine's own host name is allowed as loopback; the address it resolves to must be
    # this machine too, not whatever a resolver answers.
    monkeypatch.setattr(_policy, "_own_host_names", lambda: frozenset({"myhost"}))
    no_escape.answers["myhost"] = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.0.2.9", 80))]
    with offline(), socket.socket() as conn, pytest.raises(NetworkBlockedError) as caught:
        conn.connect(("myhost", 80))
    assert caught.value.host == "myhost (192.0.2.9)"
    assert [call for call in no_escape.calls if call[0] == "connect"] == []


# --------------------------------------------------------------------------- the C module


def test_the_c_socket_type_and_the_base_class_connect_are_checked(listener: Listener) -> None:
    with offline(allow=[]):
        raw = _socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            with pytest.raises(NetworkBlockedError):
                raw.connect(listener.address)
            with pytest.raises(NetworkBlockedError):
                raw.connect_ex(listener.address)
        finally:
            raw.close()
        with socket.socket() as wrapped, pytest.raises(NetworkBlockedError):
            _socket.socket.connect(wrapped, listener.address)
        with socket.socket() as wrapped, pytest.raises(NetworkBlockedError):
            socket.socket.__mro__[-2].connect(wrapped, listener.address)  # type: ignore[attr-defined]
    listener.settle()
    assert listener.accepted == 0


def test_the_c_module_sends_and_lookups_are_checked(udp_listener: Listener) -> None:
    with offline(allow=[]):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            with pytest.raises(NetworkBlockedError):
                _socket.socket.sendto(sock, b"x", udp_listener.address)
            with pytest.raises(NetworkBlockedError):
                _socket.socket.sendmsg(sock, [b"x"], [], 0, udp_listener.address)
        with pytest.raises(NetworkBlockedError):
            _socket.getaddrinfo("localhost", 80)  # /etc/hosts: nothing leaves the machine
        with pytest.raises(NetworkBlockedError):
            _socket.gethostbyname("localhost")
    udp_listener.settle()
    assert udp_listener.accepted == 0


# --------------------------------------------------------------------------- lying values


class LyingTuple(tuple):  # type: ignore[type-arg]
    """Holds one address and shows another to Python code."""

    shown: tuple[str, int] = ("127.0.0.2", 0)

    def __getitem__(self, index: object) -> object:
        return self.shown[index]  # type: ignore[index]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.shown)

    def __len__(self) -> int:
        return len(self.shown)


class LyingStr(str):
    """Holds 127.0.0.1 and claims, to every method the guard might call, to be a name."""

    __slots__ = ()

    def __getitem__(self, index: object) -> str:
        return "allowed.test"[index]  # type: ignore[index]

    def strip(self, *args: object) -> str:
        return "allowed.test"

    def lower(self) -> str:
        return "allowed.test"

    def __eq__(self, other: object) -> bool:
        return other == "allowed.test"

    def __hash__(self) -> int:
        return hash("allowed.test")


def test_a_tuple_subclass_cannot_show_the_guard_another_address(listener: Listener) -> None:
    lying = LyingTuple(("127.0.0.1", listener.port))
    lying.shown = ("127.0.0.2", listener.port)
    with offline(allow=["127.0.0.2"]), socket.socket() as conn:
        conn.settimeout(5)
        with pytest.raises(NetworkBlockedError) as caught:
            conn.connect(lying)
    assert caught.value.host == "127.0.0.1"
    listener.settle()
    assert listener.accepted == 0


def test_a_str_subclass_cannot_show_the_guard_another_host(listener: Listener) -> None:
    with offline(allow=["allowed.test"]):
        for call in (
            lambda conn: conn.connect((LyingStr("127.0.0.1"), listener.port)),
            lambda conn: _socket.socket.connect(conn, (LyingStr("127.0.0.1"), listener.port)),
        ):
            with socket.socket() as conn, pytest.raises(NetworkBlockedError):
                conn.settimeout(5)
                call(conn)
    listener.settle()
    assert listener.accepted == 0


def test_the_checked_address_is_the_one_handed_on(no_escape: Net, listener: Listener) -> None:
    class Port(int):
        calls = 0

        def __index__(self) -> int:  # a different answer each time it is read
            Port.calls += 1
            return listener.port if Port.calls == 1 else 9

    with offline(), socket.socket() as conn:
        conn.settimeout(5)
        conn.connect((LyingStr("127.0.0.1"), Port(listener.port)))
    connects = [call for call in no_escape.calls if call[0] == "connect"]
    assert connects == [("connect", ("127.0.0.1", listener.port))]
    ((_, handed),) = connects
    assert type(handed) is tuple and type(handed[0]) is str and type(handed[1]) is int


# --------------------------------------------------------------------------- raw and packet


@pytest.mark.skipif(not hasattr(socket, "AF_PACKET"), reason="AF_PACKET is Linux only")
def test_packet_and_raw_sockets_cannot_be_opened() -> None:
    with offline():
        for family, kind, proto in (
            (socket.AF_PACKET, socket.SOCK_RAW, 0),
            (socket.AF_PACKET, socket.SOCK_DGRAM, 0),
            (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
            (socket.AF_INET6, socket.SOCK_RAW | socket.SOCK_CLOEXEC, socket.IPPROTO_UDP),
        ):
            with pytest.raises(NetworkBlockedError) as caught:
                _socket.socket(family, kind, proto).close()
            assert caught.value.operation == "socket"
            assert caught.value.what.startswith("opening a raw socket: AF_")
            with pytest.raises(NetworkBlockedError):
                socket.socket(family, kind, proto).close()
    with offline(allow=["*"]), socket.socket(socket.AF_INET, socket.SOCK_DGRAM):
        pass  # plain sockets still open


# --------------------------------------------------------------------------- reload


def test_reloading_the_socket_module_does_not_lift_the_guard() -> None:
    # In a child process: a reloaded socket module stays reloaded for the whole process.
    script = textwrap.dedent(
        """
        import importlib, socket
        from evalmark.errors import NetworkBlockedError
        from evalmark.offline import offline

        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        address = server.getsockname()
        results = []
        with offline(allow=[]):
            importlib.reload(socket)
            for attempt in (
                lambda: socket.create_connection(address, timeout=2),
                lambda: socket.socket().connect(address),
                lambda: socket.getaddrinfo("localhost", 80),
            ):
                try:
                    attempt()
                    results.append("through")
                except NetworkBlockedError:
                    results.append("blocked")
        try:
            server.accept()
            results.append("accepted")
        except TimeoutError:
            pass
        print(" ".join(results))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["blocked", "blocked", "blocked"]


def test_the_c_sendmsg_on_a_connected_socket_checks_its_peer(udp_listener: Listener) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect(udp_listener.address)
        with offline(allow=[]), pytest.raises(NetworkBlockedError):
            _socket.socket.sendmsg(sock, [b"x"])
    udp_listener.settle()
    assert udp_listener.accepted == 0


def test_asyncio_lookups_of_localhost_names_stay_local(no_escape: Net) -> None:
    import asyncio

    async def lookup() -> list[str]:
        infos = await asyncio.get_running_loop().getaddrinfo("api.localhost", 80)
        return sorted({str(info[4][0]) for info in infos})

    with offline():
        assert asyncio.run(lookup()) == ["127.0.0.1", "::1"]
    assert not [call for call in no_escape.calls if "localhost" in str(call[1])]
