"""Fixtures of the network guard tests (the helpers are in offline_helpers.py)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from offline_helpers import Listener, Net, install_safety_net


@pytest.fixture
def listener() -> Iterator[Listener]:
    """A TCP listener on 127.0.0.1, stopped after the test."""
    server = Listener().start()
    yield server
    server.stop()


@pytest.fixture
def udp_listener() -> Iterator[Listener]:
    """A UDP listener on 127.0.0.1, stopped after the test."""
    server = Listener(kind=socket.SOCK_DGRAM).start()
    yield server
    server.stop()


@pytest.fixture
def no_escape(monkeypatch: pytest.MonkeyPatch) -> Net:
    """The socket calls under the guard replaced by fakes that send nothing (see
    :func:`offline_helpers.install_safety_net`); request it before opening a guard."""
    return install_safety_net(monkeypatch)
