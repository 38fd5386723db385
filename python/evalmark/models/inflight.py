"""Single-flight recording: while one caller asks the live model for a missing recording, other
callers of the same (key, sample index) wait for it and replay it instead of calling too.

A :class:`Flight` can be waited for from a thread (:meth:`Flight.wait`) and from a coroutine
(:meth:`Flight.wait_async`), whichever kind of caller leads it, so threads and event loops share
one live call per recording.
"""

from __future__ import annotations

import asyncio
import threading


class Flight:
    """One live call in progress for a recording; :meth:`land` wakes everyone waiting."""

    def __init__(self) -> None:
        self._landed = threading.Event()
        self._lock = threading.Lock()
        self._futures: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def land(self) -> None:
        """The leader is done (recorded, failed or refused): wake the threads and coroutines
        waiting for it."""
        with self._lock:
            self._landed.set()
            futures, self._futures = self._futures, []
        for loop, future in futures:
            loop.call_soon_threadsafe(_resolve, future)

    def wait(self) -> None:
        """Block this thread until the flight lands."""
        self._landed.wait()

    async def wait_async(self) -> None:
        """Wait, without blocking the event loop, until the flight lands."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._landed.is_set():
                return
            self._futures.append((loop, future))
        await future


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
