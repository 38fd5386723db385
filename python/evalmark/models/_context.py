"""Who is asking: the run, sample and check a model call belongs to.

The evaluation engine wraps each judge call in :func:`call_context`; models that need to know
(``NoisyJudge`` for its draws, cassettes for the repeat index) read :func:`current_call`.
A context variable carries it, so it follows ``await`` and stays private to each thread: set it
in the thread (or task) that makes the call.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec


class CallContext(msgspec.Struct, frozen=True):
    """The identity of one model call inside an evaluation.

    ``run_index``: which run of the suite (0 for a single run, 0..N-1 in a simulation).
    ``sample``: the sample's name. ``check``: the name of the check (strategy) asking.
    ``repeat``: which of several samples of the same call this is; a cassette replays (or
    records) the recording with that sample index, 0 when unset. Identical calls with the same
    repeat are one call: they replay one recording, whatever the run, sample, check, order or
    process.
    """

    run_index: int = 0
    sample: str = ""
    check: str = ""
    repeat: int | None = None


_CURRENT: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar(
    "evalmark_call_context", default=None
)


@contextmanager
def call_context(
    *, run_index: int = 0, sample: str = "", check: str = "", repeat: int | None = None
) -> Iterator[CallContext]:
    """Make model calls inside the ``with`` block belong to (run_index, sample, check, repeat)."""
    if repeat is not None and repeat < 0:
        raise ValueError(f"repeat must be >= 0, got {repeat}")
    context = CallContext(run_index=run_index, sample=sample, check=check, repeat=repeat)
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)


def current_call() -> CallContext | None:
    """The context set by the innermost enclosing :func:`call_context`, or None."""
    return _CURRENT.get()
