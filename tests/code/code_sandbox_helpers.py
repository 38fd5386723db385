"""Helpers for the sandbox tests (a module of its own, so test files can import it)."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from evalmark.code._sandbox import BwrapSandbox, bwrap_unavailable_reason


class Listener:
    """A TCP listener on 127.0.0.1 (outside any sandbox) that records every connection."""

    def __init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.socket.settimeout(0.2)
        self.port: int = self.socket.getsockname()[1]
        self.connections: list[tuple[str, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(peer)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.socket.close()


def require_bwrap() -> BwrapSandbox:
    """A bwrap sandbox, or a loud skip naming why it cannot run (a failure under CI)."""
    reason = bwrap_unavailable_reason()
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI must run the bwrap sandbox tests, but: {reason}")
        pytest.skip(f"BWRAP SANDBOX TESTS SKIPPED: {reason}")
    return BwrapSandbox()
