"""The network guard blocks every outbound path from Python before anything is sent.

Blocking is shown against loopback only: with ``allow=[]`` the guard blocks 127.0.0.1 too, and
a listener the test started there must receive nothing. Where a test needs a non-loopback
target, the ``no_escape`` fixture sits under the guard and stops anything that gets past it.
"""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import pickle
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from offline_helpers import Escaped, Listener, Net

import evalmark
from evalmark.errors import EvalmarkError, NetworkBlockedError
from evalmark.offline import _guard as guard_module
from evalmark.offline import attempts, find_blocked, offline
from evalmark.offline._run import Guard

HERE = Path(__file__).name


def here() -> int:
    """The line number of the caller's next line."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno + 1


def test_the_error_is_not_a_connection_error_so_clients_do_not_retry_it() -> None:
    assert issubclass(NetworkBlockedError, EvalmarkError)
    assert issubclass(NetworkBlockedError, RuntimeError)
    assert not issubclass(NetworkBlockedError, OSError)  # httpcore/urllib3 would retry those
    error = NetworkBlockedError(
        host="::1", port=443, operation="connect", location="a.py:3 (f)", reason="r", hint="h"
    )
    assert error.target == "[::1]:443"
    assert str(error) == "network blocked: connection to [::1]:443 from a.py:3 (f) " + (
        "(evalmark runs offline: r). h"
    )
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.host, copy.port, copy.location, copy.hint) == ("::1", 443, "a.py:3 (f)", "h")


def test_evalmark_offline_is_callable_as_the_package_and_as_the_function() -> None:
    import evalmark.offline as module

    assert isinstance(evalmark.offline(), Guard)
    assert isinstance(module(allow=[]), Guard)
    assert isinstance(offline(), Guard)


# --------------------------------------------------------------------------- loopback, blocked


def test_loopback_is_allowed_by_default(listener: Listener) -> None:
    with offline(), socket.create_connection(listener.address, timeout=2) as conn:
        conn.sendall(b"ping")
    listener.settle(handled=1)
    assert listener.accepted == 1
    assert bytes(listener.received) == b"ping"


def test_an_empty_allowlist_blocks_loopback_and_nothing_reaches_the_listener(
    listener: Listener,
) -> None:
    with offline(allow=[]), pytest.raises(NetworkBlockedError) as caught:
        line = here()
        socket.create_connection(listener.address, timeout=2)
    error = caught.value
    assert (error.host, error.port, error.operation) == ("127.0.0.1", listener.port, "connect")
    assert error.location == f"{Path(__file__).relative_to(Path.cwd())}:{line} " + (
        "(test_an_empty_allowlist_blocks_loopback_and_nothing_reaches_the_listener)"
    )
    assert "evalmark runs offline: inside evalmark.offline()" in str(error)
    assert "record-missing" in error.hint
    listener.settle()
    assert listener.accepted == 0
    assert listener.received == b""


@pytest.mark.parametrize("how", ["connect", "connect_ex", "ssl"])
def test_every_connect_path_is_blocked(listener: Listener, how: str) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        with offline(allow=[]), pytest.raises(NetworkBlockedError):
            if how == "connect":
                sock.connect(listener.address)
            elif how == "connect_ex":
                sock.connect_ex(listener.address)
            else:
                import ssl

                context = ssl.create_default_context()
                with context.wrap_socket(sock, server_hostname="localhost") as wrapped:
                    wrapped.connect(listener.address)
    finally:
        sock.close()
    listener.settle()
    assert listener.accepted == 0


def test_a_name_lookup_of_localhost_is_blocked_with_an_empty_allowlist(listener: Listener) -> None:
    with offline(allow=[]), pytest.raises(NetworkBlockedError) as caught:
        socket.create_connection(("localhost", listener.port), timeout=2)
    assert (caught.value.operation, caught.value.host) == ("resolve", "localhost")
    assert caught.value.port == listener.port
    listener.settle()
    assert listener.accepted == 0


def test_datagrams_are_blocked_and_the_udp_listener_gets_nothing(udp_listener: Listener) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        with offline():
            sock.sendto(b"allowed", udp_listener.address)
        with offline(allow=[]):
            with pytest.raises(NetworkBlockedError) as caught:
                sock.sendto(b"blocked", udp_listener.address)
            assert caught.value.operation == "send"
            with pytest.raises(NetworkBlockedError):
                sock.sendto(b"blocked", 0, udp_listener.address)
            with pytest.raises(NetworkBlockedError):
                sock.sendmsg([b"blocked"], [], 0, udp_listener.address)
    udp_listener.settle(handled=1)
    assert bytes(udp_listener.received) == b"allowed"


def test_unix_sockets_follow_the_allowlist(tmp_path: Path) -> None:
    path = str(tmp_path / "app.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    try:
        for allow, ok in [
            (None, True),
            ([], False),
            (["unix"], True),
            ([f"unix:{tmp_path}/*.sock"], True),
            (["unix:/elsewhere/*.sock"], False),
            (["loopback"], False),
        ]:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client, offline(allow):
                if ok:
                    client.connect(path)
                else:
                    with pytest.raises(NetworkBlockedError) as caught:
                        client.connect(path)
                    assert caught.value.host == f"unix:{path}"
    finally:
        server.close()


# --------------------------------------------------------------------------- name lookups and hosts


def test_lookups_of_remote_names_never_reach_the_resolver(no_escape: Net) -> None:
    with offline():
        for call in (
            lambda: socket.getaddrinfo("api.example.com", 443),
            lambda: socket.getaddrinfo(b"api.example.com", "https"),
            lambda: socket.gethostbyname("api.example.com"),
            lambda: socket.gethostbyname_ex("api.example.com"),
            lambda: socket.gethostbyaddr("192.0.2.7"),
            lambda: socket.getnameinfo(("192.0.2.7", 80), 0),
            lambda: socket.create_connection(("api.example.com", 443), timeout=1),
            lambda: socket.create_connection(("192.0.2.7", 443), timeout=1),
        ):
            with pytest.raises(NetworkBlockedError):
                call()
        # no lookup: numeric answers only, and addresses to bind
        socket.getnameinfo(("192.0.2.7", 80), socket.NI_NUMERICHOST | socket.NI_NUMERICSERV)
        socket.getaddrinfo("0.0.0.0", 0, flags=socket.AI_PASSIVE)
        socket.getaddrinfo(None, 8080)
        socket.getaddrinfo("localhost", 8080)
    assert no_escape.calls == [
        ("getnameinfo", ("192.0.2.7", 80)),
        ("getaddrinfo", "0.0.0.0"),
        ("getaddrinfo", None),
        ("getaddrinfo", "127.0.0.1"),  # localhost is answered from the loopback addresses
        ("getaddrinfo", "::1"),
    ]


def test_an_allowed_name_allows_the_addresses_it_resolves_to(no_escape: Net) -> None:
    no_escape.answers["api.example.com"] = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("203.0.113.5", 443))
    ]
    with offline(allow=["api.example.com", "*.corp.example"]) as guard:
        socket.getaddrinfo("api.example.com", 443)
        assert guard.policy.allows_address(ipaddress.ip_address("203.0.113.5"))
        with pytest.raises(Escaped):  # allowed by the guard: the safety net stops it
            socket.create_connection(("203.0.113.5", 443), timeout=1)
        with pytest.raises(Escaped):
            socket.getaddrinfo("models.corp.example", 443)
        for blocked in ("203.0.113.6", "corp.example", "example.com"):
            with pytest.raises(NetworkBlockedError):
                socket.create_connection((blocked, 443), timeout=1)


def test_networks_and_addresses_in_the_allowlist(listener: Listener, no_escape: Net) -> None:
    with offline(allow=["127.0.0.0/8", "[2001:db8::1]"]):
        socket.create_connection(listener.address, timeout=2).close()
        with pytest.raises(Escaped):
            socket.create_connection(("2001:db8::1", 443), timeout=1)
        with pytest.raises(NetworkBlockedError):  # loopback names need "loopback"
            socket.getaddrinfo("localhost", listener.port)
    with offline(allow=["10.0.0.0/8"]), pytest.raises(NetworkBlockedError):
        socket.create_connection(listener.address, timeout=2)
    listener.settle(handled=1)
    assert listener.accepted == 1


# --------------------------------------------------------------------------- threads and asyncio


def test_other_threads_are_blocked_too(listener: Listener) -> None:
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            socket.create_connection(listener.address, timeout=2).close()
        except BaseException as exc:
            errors.append(exc)

    with offline(allow=[]):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join(timeout=60)
        with ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(worker) for _ in range(4)]
            for future in futures:
                future.result(timeout=60)
    assert len(errors) == 5
    assert all(isinstance(e, NetworkBlockedError) for e in errors)
    assert all("(worker)" in e.location for e in errors if isinstance(e, NetworkBlockedError))
    listener.settle()
    assert listener.accepted == 0


def test_asyncio_connections_are_blocked_in_the_calling_task(listener: Listener) -> None:
    lines: dict[str, int] = {}

    async def by_address() -> None:
        lines["address"] = here()
        await asyncio.open_connection("127.0.0.1", listener.port)

    async def by_name() -> None:
        lines["name"] = here()
        await asyncio.open_connection("localhost", listener.port)

    async def by_socket() -> None:
        loop = asyncio.get_running_loop()
        with socket.socket() as sock:
            sock.setblocking(False)
            lines["socket"] = here()
            await loop.sock_connect(sock, listener.address)

    async def datagram() -> None:
        loop = asyncio.get_running_loop()
        lines["datagram"] = here()
        await loop.create_datagram_endpoint(asyncio.DatagramProtocol, remote_addr=listener.address)

    with offline(allow=[]):
        for name, function in [
            ("address", by_address),
            ("name", by_name),
            ("socket", by_socket),
            ("datagram", datagram),
        ]:
            with pytest.raises(NetworkBlockedError) as caught:
                asyncio.run(function())
            assert caught.value.location.endswith(f":{lines[name]} ({function.__name__})")
    listener.settle()
    assert listener.accepted == 0


def test_the_loop_lookup_is_checked_before_it_moves_to_a_thread(no_escape: Net) -> None:
    async def lookup() -> None:
        await asyncio.get_running_loop().getaddrinfo("api.example.com", 443)

    with offline(), pytest.raises(NetworkBlockedError) as caught:
        asyncio.run(lookup())
    assert "(lookup)" in caught.value.location
    assert no_escape.calls == []


# --------------------------------------------------------------------------- guards in guards


def test_the_innermost_guard_decides_and_the_outer_one_comes_back(listener: Listener) -> None:
    with offline(allow=[]):
        with offline(allow=["*"]):
            socket.create_connection(listener.address, timeout=2).close()
        with pytest.raises(NetworkBlockedError):
            socket.create_connection(listener.address, timeout=2)
    listener.settle(handled=1)
    assert listener.accepted == 1


def test_the_socket_module_is_untouched_once_the_last_guard_closes() -> None:
    before = {name: getattr(socket, name) for name in ("getaddrinfo", "gethostbyname")}
    own = {name for name in ("connect", "connect_ex", "sendto") if name in vars(socket.socket)}
    guard = offline().install()
    assert socket.getaddrinfo is not before["getaddrinfo"] or guard_module._stack[:-1]
    guard.uninstall()
    guard.uninstall()  # twice is harmless
    if not guard_module._stack:
        assert {n: getattr(socket, n) for n in before} == before
        assert {n for n in ("connect", "connect_ex", "sendto") if n in vars(socket.socket)} == own


def test_guards_closed_in_another_order_and_from_threads(listener: Listener) -> None:
    first = offline(allow=[]).install()
    second = offline(allow=["*"]).install()
    first.uninstall()  # the inner one stays in force
    socket.create_connection(listener.address, timeout=2).close()
    second.uninstall()
    shared = offline(allow=[])
    entered = threading.Barrier(2)
    blocked: list[bool] = []

    def use() -> None:
        with shared:
            entered.wait(timeout=60)
            try:
                socket.create_connection(listener.address, timeout=2).close()
            except NetworkBlockedError:
                blocked.append(True)

    threads = [threading.Thread(target=use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert blocked == [True, True]
    listener.settle(handled=1)
    assert listener.accepted == 1


def test_the_guard_as_a_decorator_of_sync_and_async_functions(listener: Listener) -> None:
    guard = offline(allow=[])

    @guard
    def fetch() -> None:
        socket.create_connection(listener.address, timeout=2)

    @guard
    async def afetch() -> None:
        await asyncio.open_connection(*listener.address)

    with pytest.raises(NetworkBlockedError):
        fetch()
    with pytest.raises(NetworkBlockedError):
        asyncio.run(afetch())
    assert fetch.__name__ == "fetch"
    socket.create_connection(listener.address, timeout=2).close()  # outside the calls: open
    listener.settle(handled=1)
    assert listener.accepted == 1


# --------------------------------------------------------------------------- clients and records


def test_http_clients_fail_on_the_first_try(listener: Listener) -> None:
    import http.client
    import urllib.request

    openai = pytest.importorskip("openai")
    requests = pytest.importorskip("requests")
    attempts(clear=True)
    url = f"http://127.0.0.1:{listener.port}"
    with offline(allow=[]):
        client = openai.OpenAI(api_key="sk-test", base_url=f"{url}/v1", max_retries=2)
        for call in (
            lambda: client.chat.completions.create(model="m", messages=[]),
            lambda: requests.get(url, timeout=2),
            lambda: urllib.request.urlopen(url, timeout=2),
            lambda: http.client.HTTPConnection("127.0.0.1", listener.port).request("GET", "/"),
        ):
            with pytest.raises(NetworkBlockedError) as caught:
                call()
            assert f"{HERE}:" in caught.value.location  # the test's own line, not the client's
    assert len(attempts()) == 4  # one attempt each: no client retried
    listener.settle()
    assert listener.accepted == 0


def test_an_async_client_behind_a_task_group_is_traced_to_the_caller(listener: Listener) -> None:
    openai = pytest.importorskip("openai")

    async def ask() -> None:
        client = openai.AsyncOpenAI(
            api_key="sk-test", base_url=f"http://127.0.0.1:{listener.port}/v1", max_retries=2
        )
        await client.chat.completions.create(model="m", messages=[])

    attempts(clear=True)
    with offline(allow=[]), pytest.raises(Exception) as caught:
        asyncio.run(ask())
    found = find_blocked(caught.value)  # anyio's happy eyeballs wraps it in an ExceptionGroup
    assert found is not None and found.port == listener.port
    assert found.location.endswith("(ask)")
    assert len(attempts()) == 1
    listener.settle()
    assert listener.accepted == 0


def test_find_blocked_looks_through_causes_groups_and_judge_failures() -> None:
    blocked = NetworkBlockedError(
        host="h", port=1, operation="connect", location="x", reason="r", hint="h"
    )
    from evalmark.errors import JudgeFailure

    try:
        try:
            raise blocked
        except NetworkBlockedError as exc:
            raise RuntimeError("wrapped") from exc
    except RuntimeError as wrapped:
        assert find_blocked(wrapped) is blocked
    assert find_blocked(ExceptionGroup("g", [ValueError(), blocked])) is blocked
    assert find_blocked(JudgeFailure("every call failed", blocked)) is blocked
    assert find_blocked(ValueError("no")) is None
    assert find_blocked(None) is None


def test_attempts_clear_returns_the_refused_calls_then_forgets_them() -> None:
    attempts(clear=True)
    with offline(), pytest.raises(NetworkBlockedError):
        socket.create_connection(("192.0.2.1", 9), timeout=1)
    drained = attempts(clear=True)
    assert [a.host for a in drained] == ["192.0.2.1"] and attempts() == []
