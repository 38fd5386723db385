"""The network guard in pytest sessions: ``--evalmark-offline``, the markers, xdist.

Sessions that reach for hosts off the machine run in a subprocess whose conftest puts a
safety net under the guard (a lookup or connect that gets past it raises ``AssertionError``
"escaped" instead of reaching the operating system)."""

from __future__ import annotations

from importlib import metadata

import pytest

# In-process pytester runs restore sys.modules afterwards; numpy (imported by the engine
# plugin's session report) must already be loaded, since it cannot be loaded twice.
import evalmark.report  # noqa: F401

pytest_plugins = ["pytester"]

_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

SAFETY_NET = """
import ipaddress
import socket

_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect


def _local(host):
    if host in (None, "", "localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _getaddrinfo(host, port, *args, **kwargs):
    if _local(host):
        return _real_getaddrinfo(host, port, *args, **kwargs)
    raise AssertionError(f"escaped: lookup of {host}")


def _connect(self, address):
    if self.family == socket.AF_UNIX or _local(address[0]):
        return _real_connect(self, address)
    self.close()
    raise AssertionError(f"escaped: connect to {address}")


socket.getaddrinfo = _getaddrinfo
socket.socket.connect = _connect
"""

REMOTE_TESTS = """
import socket
import threading

import pytest

import evalmark.offline
from evalmark.errors import NetworkBlockedError


def test_remote_hosts_are_blocked():
    assert evalmark.offline.active()
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("api.example.com", 443)
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("198.51.100.1", 80), timeout=1)


def test_loopback_works():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    with server, socket.create_connection(server.getsockname(), timeout=2):
        pass


@pytest.mark.evalmark_network
def test_the_marker_lets_one_test_out():
    with pytest.raises(AssertionError, match="escaped"):
        socket.getaddrinfo("api.example.com", 443)


@pytest.mark.evalmark_network("api.example.com")
def test_the_marker_with_hosts_lets_those_out():
    with pytest.raises(AssertionError, match="escaped"):
        socket.getaddrinfo("api.example.com", 443)
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("other.example.org", 443)


def test_a_test_that_calls_out_fails_naming_the_host():
    socket.create_connection(("api.example.com", 443), timeout=1)
"""


def test_an_offline_session_blocks_remote_hosts_and_the_markers_lift_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(SAFETY_NET)
    pytester.makepyfile(test_remote=REMOTE_TESTS)
    result = pytester.runpytest_subprocess(
        *PLUGIN, "--evalmark-offline", "-p", "no:cacheprovider", timeout=240
    )
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "evalmark: network blocked (--evalmark-offline was given); allowed: loopback, unix",
            "*NetworkBlockedError: network blocked: name lookup of api.example.com:443 from "
            "test_remote.py:* (test_a_test_that_calls_out_fails_naming_the_host)*"
            "pytest --evalmark-record-mode=record-missing*",
        ]
    )
    assert "escaped" not in result.stdout.str().split("short test summary")[-1]


def test_workers_of_an_xdist_session_are_offline_too(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SAFETY_NET)
    pytester.makepyfile(test_remote=REMOTE_TESTS)
    result = pytester.runpytest_subprocess(
        *PLUGIN,
        "-n",
        "2",
        "--evalmark-offline",
        "--evalmark-allow=10.0.0.0/8",
        "-p",
        "no:cacheprovider",
        timeout=240,
    )
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["*allowed: loopback, unix, 10.0.0.0/8*"])


@pytest.mark.parametrize(
    ("args", "env", "header"),
    [
        ([], {}, None),
        (["--evalmark-record-mode=replay"], {}, "the record mode is replay"),
        (["--evalmark-record-mode=record-missing"], {"EVALMARK_RECORD_MODE": "replay"}, None),
        ([], {"EVALMARK_RECORD_MODE": "replay"}, "EVALMARK_RECORD_MODE is replay"),
        ([], {"CI": "true"}, "CI is set"),
        (["--evalmark-offline=off"], {"CI": "true"}, None),
        ([], {"CI": "true", "EVALMARK_OFFLINE": "0"}, None),
        ([], {"EVALMARK_OFFLINE": "1"}, "EVALMARK_OFFLINE=1"),
    ],
)
def test_auto_guards_the_session_when_the_run_replays(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    header: str | None,
) -> None:
    for name in ("CI", "EVALMARK_OFFLINE", "EVALMARK_OFFLINE_ALLOW", "EVALMARK_RECORD_MODE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest(*PLUGIN, *args, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    lines = [line for line in result.stdout.lines if line.startswith("evalmark: network")]
    if header is None:
        assert lines == []
    else:
        assert lines == [f"evalmark: network blocked ({header}); allowed: loopback, unix"]


LOOPBACK_TESTS = """
import socket
import threading
import time

import pytest

from evalmark.errors import NetworkBlockedError

received = []


@pytest.fixture(scope="module")
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.05)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            received.append(conn.recv(100))
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()
    stop.set()
    thread.join(5)
    server.close()


@pytest.fixture
def connected(listener):
    socket.create_connection(listener, timeout=2).close()


@pytest.mark.evalmark_offline(allow=[])
def test_loopback_blocked_by_the_marker(listener):
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(listener, timeout=2)


@pytest.mark.evalmark_offline(allow=[])
def test_the_marker_covers_fixtures(connected):
    pass


@pytest.mark.evalmark_offline
def test_the_marker_alone_keeps_loopback(listener):
    with socket.create_connection(listener, timeout=2) as conn:
        conn.sendall(b"hello")


def test_nothing_was_received_but_the_allowed_hello():
    time.sleep(0.3)
    assert received == [b"hello"]
"""


def test_the_offline_marker_guards_one_test_and_its_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_loopback=LOOPBACK_TESTS)
    result = pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "E *NetworkBlockedError: network blocked: connection to 127.0.0.1:* from "
            "test_loopback.py:* (connected) (evalmark runs offline: "
            "test_loopback.py::test_the_marker_covers_fixtures is marked evalmark_offline)*",
            "ERROR test_loopback.py::test_the_marker_covers_fixtures - *",
        ]
    )


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('evalmark_network("http://x")', "allowlist entry 'http://x' is not understood"),
        ('evalmark_offline("a.example", allow=[])', "not both"),
        ("evalmark_offline\n@pytest.mark.evalmark_network", "contradict each other"),
    ],
)
def test_a_bad_marker_is_a_usage_error(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    pytester.makepyfile(
        test_bad=f"import pytest\n\n\n@pytest.mark.{marker}\ndef test_one():\n    pass\n"
    )
    result = pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
