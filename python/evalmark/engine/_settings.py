"""How a run goes: :class:`RunSettings` (concurrency, what an application error does, the run
index, repeats) and the shape of the progress callback. Every face of the engine (``Scorer``,
``Evaluation``, suite files) builds one for :func:`evalmark.engine._pipeline.run_samples`, so
every setting is checked in one place."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from evalmark.engine._defaults import DEFAULT_CONCURRENCY

__all__ = ["ErrorPolicy", "Progress", "RunSettings"]

ErrorPolicy = Literal["fail", "skip", "raise"]
Progress = Callable[[int, int], None]  # (application calls just finished, samples in the run)

_POLICIES: tuple[str, ...] = ("fail", "skip", "raise")


def _whole(value: object, least: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and value >= least


@dataclass(frozen=True, slots=True)
class RunSettings:
    """The settings of one run.

    ``concurrency``: at most this many calls of the application (and of per-sample checks such
    as judges) at a time; the report is the same at any value. ``errors``: what an exception
    from the application does to its sample: ``"fail"`` (every check's result for it is an
    error result), ``"skip"`` (left out, listed in ``report.skipped``) or ``"raise"`` (the run
    stops; the exception propagates with a note naming the sample). ``run_index`` is handed to
    judges through the call context. ``repeats``: call the application this many times per
    sample and report pass@k and pass^k (``k``, default ``repeats``); see
    :mod:`evalmark.engine._repeats`.
    """

    concurrency: int = DEFAULT_CONCURRENCY
    errors: ErrorPolicy = "fail"
    run_index: int = 0
    repeats: int = 1
    k: int | None = None

    def __post_init__(self) -> None:
        if not _whole(self.concurrency, 1):
            raise ValueError(f"concurrency must be a whole number >= 1, got {self.concurrency!r}")
        if self.errors not in _POLICIES:
            raise ValueError(f"errors must be one of {', '.join(_POLICIES)}, got {self.errors!r}")
        if not _whole(self.repeats, 1):
            raise ValueError(f"repeats must be a whole number >= 1, got {self.repeats!r}")
        if self.k is not None and not (_whole(self.k, 1) and self.k <= self.repeats):
            raise ValueError(
                f"k must be a whole number from 1 to repeats ({self.repeats}), got {self.k!r}"
            )
        object.__setattr__(self, "run_index", int(self.run_index))
