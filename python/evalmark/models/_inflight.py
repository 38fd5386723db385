"""Single-flight recording: while one caller asks the live model for a missing recording, other
callers of the same (key, sample index) wait for it and replay it instead of calling too.

A :class:`Flight` can be waited for from a thread (:meth:`Flight.wait`) and from a coroutine
(:meth:`Flight.wait_async`), whichever kind of caller leads it, so threads and event loops share
one live call per recording. The one wait that cannot work, a blocking call inside the event
loop whose task leads the flight, is refused rather than left to hang.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Generic, TypeVar

E = TypeVar("E")


class Flight:
    """One live call in progress for a recording; :meth:`land` wakes everyone waiting."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop  # the event loop of a leading task; None when a thread leads
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

    def wait(self) -> bool:
        """Block this thread until the flight lands; True then. False at once when this
        thread runs the event loop of the leading task: blocking would stop the leader, so the
        caller calls the model itself instead."""
        if self.loop is not None and self.loop is _running_loop():
            return False
        self._landed.wait()
        return True

    async def wait_async(self) -> None:
        """Wait, without blocking the event loop, until the flight lands."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._landed.is_set():
                return
            self._futures.append((loop, future))
        await future


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class SingleFlight(Generic[E]):
    """The single-flight part of a cassette store: which recordings are being made, by whom.
    The store provides its lock, its entries by (key, sample index) and its usage counts."""

    lock: threading.Lock
    entries: dict[tuple[str, int], E]
    flights: dict[tuple[str, int], Flight]
    used: set[tuple[str, int]]
    replayed: int

    def turn(
        self, key: str, index: int, loop: asyncio.AbstractEventLoop | None = None
    ) -> E | Flight | None:
        """Single flight for a missed call: the recording if it has landed meanwhile (marked
        used), the :class:`Flight` to wait for if another caller is recording it, or None: the
        caller leads (a task of ``loop``, or a thread), calls the live model and must call
        :meth:`landed` when done."""
        slot = (key, index)
        with self.lock:
            entry = self.entries.get(slot)
            if entry is not None:
                self.used.add(slot)
                self.replayed += 1
                return entry
            flight = self.flights.get(slot)
            if flight is None:
                self.flights[slot] = Flight(loop)
            return flight

    def landed(self, key: str, index: int) -> None:
        """The leader of (key, index) is done: wake the callers waiting for its recording."""
        with self.lock:
            flight = self.flights.pop((key, index))
        flight.land()
