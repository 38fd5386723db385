"""Fixtures for the code-evaluator tests: the sandboxes, and a wall-clock bound on every test.

The bwrap tests skip, with the reason (the namespace the machine refuses), only where
bubblewrap cannot run. Under ``CI=true`` they never skip: CI installs bubblewrap, and a machine
that refuses the namespaces there fails the run with the reason instead.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest
from code_sandbox_helpers import Listener, require_bwrap

from evalmark.code._sandbox import BwrapSandbox, LocalSandbox, Sandbox

TEST_SECONDS = 120  # no test of this folder may run longer


@pytest.fixture(autouse=True)
def _bounded_in_time() -> Iterator[None]:
    """Fail a test that runs longer than TEST_SECONDS (SIGALRM in the main thread)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"the test ran longer than {TEST_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TEST_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def bwrap() -> BwrapSandbox:
    """The bwrap sandbox (skips loudly where namespaces are refused)."""
    return require_bwrap()


@pytest.fixture(params=["local", "bwrap"])
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    """Each sandbox in turn."""
    if request.param == "bwrap":
        return require_bwrap()
    return LocalSandbox()


@pytest.fixture
def listener() -> Iterator[Listener]:
    """A listener on 127.0.0.1, closed after the test."""
    server = Listener()
    try:
        yield server
    finally:
        server.close()
