"""Stopping every sandbox of a batch at once (Ctrl-C in ``evalmark code run``).

:func:`stop_scope` opens a scope; every process :func:`run_process
<evalmark.code._sandbox.process.run_process>` starts inside it (in this thread, or in a worker
that runs in a copy of this context) is registered there. :meth:`StopScope.stop` kills the
process group of each at once and makes further runs in the scope raise
``KeyboardInterrupt`` instead of starting.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextvars import ContextVar

__all__ = ["StopScope", "current_scope", "stop_scope"]


class StopScope:
    """The live sandbox processes of one batch, and whether it was stopped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._stopped = False

    @property
    def stopped(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stopped

    def add(self, proc: subprocess.Popen[bytes]) -> bool:
        """Register a process that leads its own group; False (and nothing registered) when
        the scope is already stopped."""
        with self._lock:
            if self._stopped:
                return False
            self._live.add(proc)
            return True

    def discard(self, proc: subprocess.Popen[bytes]) -> None:
        """Forget a process; call it before reaping the process, so its group id is never
        killed after it could have been reused."""
        with self._lock:
            self._live.discard(proc)

    def stop(self) -> None:
        """Kill the process group of every live run, and refuse new runs."""
        with self._lock:
            self._stopped = True
            for proc in self._live:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)


_SCOPE: ContextVar[StopScope | None] = ContextVar("evalmark_sandbox_stop_scope", default=None)


def current_scope() -> StopScope | None:
    """The scope runs started here belong to, if any."""
    return _SCOPE.get()


@contextlib.contextmanager
def stop_scope() -> Iterator[StopScope]:
    """A new scope for the runs started in this block (and in copies of its context)."""
    scope = StopScope()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)
