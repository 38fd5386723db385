"""Finding the processes a test's child started, and waiting (bounded) until they are gone."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["alive", "descendants", "wait_gone", "wait_until"]


def _parents() -> dict[int, int]:
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        found[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def descendants(pid: int) -> set[int]:
    """Every live process under ``pid`` (children, their children...)."""
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path("/proc", str(pid), "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_until(check: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``check()`` every 20 ms until it is true; ``TimeoutError`` naming ``what``."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{what} within {timeout} s")
        time.sleep(0.02)


def wait_gone(pids: set[int], timeout: float = 30.0) -> set[int]:
    """The processes of ``pids`` still alive after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    left = {pid for pid in pids if alive(pid)}
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = {pid for pid in left if alive(pid)}
    return left
