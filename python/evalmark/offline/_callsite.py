"""Where a refused network call came from: the first frame of the application's own code.

The socket call that the guard refuses sits under layers of plumbing (the standard library's
socket, ssl and asyncio modules, HTTP clients, evalmark itself). :func:`caller_location` walks
past them, inside an asyncio task and across to the task that started an anyio helper task,
and names the frame that asked: ``file:line (function)``.
"""

from __future__ import annotations

import os
import sys
import threading
from types import FrameType
from typing import Any

__all__ = ["caller_location"]

# Modules whose frames are plumbing between the application and the socket call.
_INTERNAL = frozenset(
    {
        "socket",
        "ssl",
        "selectors",
        "asyncio",
        "concurrent",
        "threading",
        "contextlib",
        "functools",
        "http",
        "urllib",
        "smtplib",
        "ftplib",
        "poplib",
        "imaplib",
        "xmlrpc",
        "evalmark",
        "httpx",
        "httpx2",
        "httpcore",
        "httpcore2",
        "anyio",
        "sniffio",
        "urllib3",
        "requests",
        "aiohttp",
        "aiohappyeyeballs",
        "h11",
        "h2",
        "trio",
        "openai",
        "anthropic",
        "websockets",
        "dns",
    }
)


def _is_internal(frame: FrameType) -> bool:
    module = frame.f_globals.get("__name__")
    if not isinstance(module, str):
        return False
    return module.partition(".")[0] in _INTERNAL


def _short(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative.startswith("..") else relative


def _describe(frame: FrameType) -> str:
    code = frame.f_code
    return f"{_short(code.co_filename)}:{frame.f_lineno} ({code.co_name})"


def _is_loop_runner(frame: FrameType) -> bool:
    # asyncio's Handle._run: the frames beyond it drive the event loop, they did not ask.
    return frame.f_code.co_name == "_run" and frame.f_globals.get("__name__") == "asyncio.events"


def caller_location(frame: FrameType | None = None) -> str:
    """``file:line (function)`` of the first frame outside evalmark, the standard library's
    socket and asyncio layers and the common HTTP clients, or ``"<unknown>"``.

    In an asyncio task the search stays within the task; a helper task that anyio started
    (its happy-eyeballs connect) is traced to the task that started it; only then do the
    frames that run the event loop count."""
    probe: FrameType | None = frame if frame is not None else sys._getframe(1)
    driver: FrameType | None = None
    while probe is not None:
        if _is_loop_runner(probe):
            driver = probe.f_back
            break
        if not _is_internal(probe):
            return _describe(probe)
        probe = probe.f_back
    if driver is not None:
        found = _parent_task_location()
        if found is not None:
            return found
        while driver is not None:
            if not _is_internal(driver):
                return _describe(driver)
            driver = driver.f_back
    return f"<unknown> (thread {threading.current_thread().name})"


def _parent_task_location() -> str | None:
    """The innermost application frame of the task that started the current anyio task."""
    states = getattr(sys.modules.get("anyio._backends._asyncio"), "_task_states", None)
    asyncio = sys.modules.get("asyncio")
    if states is None or asyncio is None:
        return None
    try:
        task = asyncio.current_task()
        state = states.get(task) if task is not None else None
        parent_id = getattr(state, "parent_id", None)
        if parent_id is None:
            return None
        parent = next((t for t in asyncio.all_tasks() if id(t) == parent_id), None)
    except (RuntimeError, TypeError):
        return None
    if parent is None:
        return None
    frames = []
    awaited: Any = parent.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is not None:
            frames.append(frame)
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    for frame in reversed(frames):
        if not _is_internal(frame):
            return _describe(frame)
    return None
