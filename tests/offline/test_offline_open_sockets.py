"""Sockets connected before the guard opened: their sends are refused, and opening the guard
warns about those it cannot stop."""

from __future__ import annotations

import os
import socket
import sys

import pytest
from offline_helpers import Listener

from evalmark.errors import NetworkBlockedError
from evalmark.offline import offline
from evalmark.offline._guard import active_entry

LINUX = sys.platform.startswith("linux")


def _tcp_pair() -> tuple[socket.socket, socket.socket]:
    """A connected TCP pair on 127.0.0.1: (client, the server's end)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(30)
        client = socket.create_connection(server.getsockname(), timeout=30)
        accepted, _ = server.accept()
    accepted.settimeout(30)
    return client, accepted


def test_a_socket_connected_before_the_guard_cannot_send() -> None:
    conn, far_end = _tcp_pair()
    try:
        # no warning: a Python object holds it, and it leads to this machine
        with offline(allow=[]), conn.makefile("wb", buffering=0) as stream:
            for send in (
                lambda: conn.send(b"x"),
                lambda: conn.sendall(b"x"),
                lambda: conn.sendmsg([b"x"]),
                lambda: stream.write(b"x"),
            ):
                with pytest.raises(NetworkBlockedError) as caught:
                    send()
                assert (caught.value.operation, caught.value.host) == ("send", "127.0.0.1")
        conn.sendall(b"after")
        conn.close()
        received = b""
        while chunk := far_end.recv(4096):
            received += chunk
        assert received == b"after"
    finally:
        conn.close()
        far_end.close()


def test_a_connected_datagram_socket_cannot_send(udp_listener: Listener) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.connect(udp_listener.address)
        with offline(allow=[]):
            with pytest.raises(NetworkBlockedError):
                sock.send(b"x")
            with pytest.raises(NetworkBlockedError):
                sock.sendto(b"x", udp_listener.address)
    finally:
        sock.close()
    udp_listener.settle()
    assert udp_listener.accepted == 0


def test_allowed_peers_and_socketpairs_still_send(listener: Listener) -> None:
    left, right = socket.socketpair()
    conn = socket.create_connection(listener.address, timeout=5)
    try:
        with offline():  # loopback allowed: no warning (warnings are errors in this suite)
            conn.sendall(b"ok")
        conn.close()
        listener.settle(0, handled=1)  # the listener's end closed too
        with offline(allow=[]):
            left.sendall(b"pair")  # an unnamed unix peer within this process
            assert right.recv(4) == b"pair"
    finally:
        conn.close()
        left.close()
        right.close()
    assert bytes(listener.received) == b"ok"


@pytest.mark.skipif(not LINUX, reason="the open sockets are listed from /proc")
def test_the_warning_names_sockets_no_python_object_holds() -> None:
    from evalmark.offline._open_sockets import open_peers, warn_open_sockets
    from evalmark.offline._policy import parse_allow

    held, held_far = _tcp_pair()
    loose_socket, loose_far = _tcp_pair()
    loose_fd = loose_socket.detach()  # a bare descriptor, as a C extension would hold one
    try:
        peers = {peer.fd: peer for peer in open_peers()}
        held_port, loose_port = held_far.getsockname()[1], loose_far.getsockname()[1]
        assert peers[held.fileno()].target == f"127.0.0.1:{held_port}"
        assert peers[loose_fd].target == f"127.0.0.1:{loose_port}"
        with pytest.warns(RuntimeWarning) as caught:
            blocked = warn_open_sockets(parse_allow([]))
        assert {peer.fd for peer in blocked} >= {held.fileno(), loose_fd}
        text = str(caught[0].message)
        assert f"fd {held.fileno()} to 127.0.0.1:{held_port}" in text
        assert "their sends through Python are refused" in text
        assert f"fd {loose_fd} to 127.0.0.1:{loose_port}: held by no Python socket" in text
        assert "--isolate-network" in text
    finally:
        for sock in (held, held_far, loose_far):
            sock.close()
        os.close(loose_fd)


@pytest.mark.skipif(not LINUX, reason="the open sockets are listed from /proc")
def test_opening_the_first_guard_warns() -> None:
    if active_entry() is not None:
        pytest.skip("a guard is already open (the session guard under CI): no first guard here")
    conn, far_end = _tcp_pair()
    fd = conn.detach()
    try:
        with pytest.warns(RuntimeWarning, match=f"fd {fd} to 127.0.0.1"), offline(allow=[]):
            pass
    finally:
        os.close(fd)
        far_end.close()
    assert active_entry() is None
