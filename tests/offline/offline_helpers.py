"""Helpers of the network guard tests: a loopback listener that counts what reaches it, and
a safety net under the guard so that no test can send traffic off the machine."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from evalmark.offline import _patching as patching


class Escaped(AssertionError):
    """A call got past the guard (the safety net stopped it before the operating system)."""


@dataclass
class Listener:
    """A TCP (or UDP) server on 127.0.0.1 that records every connection and every byte."""

    kind: int = socket.SOCK_STREAM
    accepted: int = 0
    handled: int = 0  # connections read to their end, and datagrams
    received: bytearray = field(default_factory=bytearray)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Listener:
        self.sock = socket.socket(socket.AF_INET, self.kind)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        if self.kind == socket.SOCK_STREAM:
            self.sock.listen()
        self.port: int = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        return self

    @property
    def address(self) -> tuple[str, int]:
        return ("127.0.0.1", self.port)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                if self.kind == socket.SOCK_STREAM:
                    conn, _ = self.sock.accept()
                    self.accepted += 1
                    conn.settimeout(1.0)
                    try:
                        while chunk := conn.recv(4096):
                            self.received += chunk
                    except OSError:
                        pass
                    conn.close()
                    self.handled += 1
                else:
                    data, _ = self.sock.recvfrom(4096)
                    self.accepted += 1
                    self.received += data
                    self.handled += 1
            except (TimeoutError, OSError):
                continue

    def settle(self, seconds: float = 0.3, handled: int = 0) -> None:
        """Wait until ``handled`` connections or datagrams have been taken in full (at most a
        minute, however busy the machine), then give anything else in flight ``seconds``."""
        deadline = time.monotonic() + 60
        while self.handled < handled and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(seconds)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@dataclass
class Net:
    """What reached the safety net under the guard."""

    calls: list[tuple[str, Any]] = field(default_factory=list)
    answers: dict[str, list[Any]] = field(default_factory=dict)


def install_safety_net(monkeypatch: pytest.MonkeyPatch) -> Net:
    """Replace the socket calls the guard wraps with fakes that record the call and send
    nothing: a connect to a non-loopback address raises :class:`Escaped`, a lookup answers
    from ``net.answers`` (a documentation address by default) or raises :class:`Escaped`.
    Install it before opening a guard, so the guard wraps the fakes."""
    net = Net()
    real_connect = patching.original(socket.socket, "connect")
    real_getaddrinfo = patching.original(socket, "getaddrinfo")

    def local(host: object) -> bool:
        return isinstance(host, str) and (host.startswith("127.") or host in ("::1", "localhost"))

    def connect(self: socket.socket, address: Any) -> None:
        net.calls.append(("connect", address))
        if self.family == socket.AF_UNIX or local(address[0]):
            real_connect(self, address)
            return
        self.close()
        raise Escaped(f"connect to {address!r} got past the guard")

    def connect_ex(self: socket.socket, address: Any) -> int:
        net.calls.append(("connect_ex", address))
        self.close()
        raise Escaped(f"connect_ex to {address!r} got past the guard")

    def sendto(self: socket.socket, data: Any, *rest: Any) -> int:
        net.calls.append(("sendto", rest[-1]))
        raise Escaped(f"sendto {rest[-1]!r} got past the guard")

    def numeric(host: object) -> bool:
        try:
            ipaddress.ip_address(host)  # type: ignore[arg-type]
        except ValueError:
            return False
        return True

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        net.calls.append(("getaddrinfo", host))
        if host is None or local(host) or numeric(host):  # no query leaves the machine
            return real_getaddrinfo(host, port, *args, **kwargs)
        if host in net.answers:
            return net.answers[host]
        raise Escaped(f"lookup of {host!r} got past the guard")

    def by_name(host: Any) -> Any:
        net.calls.append(("gethostbyname", host))
        raise Escaped(f"lookup of {host!r} got past the guard")

    def by_addr(host: Any) -> Any:
        net.calls.append(("gethostbyaddr", host))
        raise Escaped(f"reverse lookup of {host!r} got past the guard")

    def name_info(sockaddr: Any, flags: int) -> Any:
        net.calls.append(("getnameinfo", sockaddr))
        return (str(sockaddr[0]), str(sockaddr[1]))

    fakes: list[tuple[object, str, Any]] = [
        (socket.socket, "connect", connect),
        (socket.socket, "connect_ex", connect_ex),
        (socket.socket, "sendto", sendto),
        (socket, "getaddrinfo", getaddrinfo),
        (socket, "gethostbyname", by_name),
        (socket, "gethostbyname_ex", by_name),
        (socket, "gethostbyaddr", by_addr),
        (socket, "getnameinfo", name_info),
    ]
    for owner, name, fake in fakes:
        if (owner, name) in patching.originals:
            # A guard is already installed (the session guard under CI): put the fake under it.
            monkeypatch.setitem(patching.originals, (owner, name), fake)
        else:
            monkeypatch.setattr(owner, name, fake)
    return net
