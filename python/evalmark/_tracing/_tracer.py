"""Where evaluation results go besides the report: the tracer protocol and the ambient scope.

A tracer is anything with ``record(record: EvaluationRecord) -> None``. The engine and
:func:`evalmark.monitor` hand every result to :func:`record_evaluation` (or, for a batch
strategy's column, :func:`record_column`), which passes it to the tracer given explicitly, else
to the tracer of the innermost open :func:`scope`, else nowhere (the cost is then one context
variable read)::

    tracer = RecordingTracer()
    with telemetry.scope(tracer):
        report = scorer.evaluate(samples, answer, TokenF1(0.5))
    tracer.records  # one EvaluationRecord per (sample, strategy)

The scope is a :class:`contextvars.ContextVar`: it follows the code into asyncio tasks and into
threads started with a copied context (the engine's thread pool), and two concurrent runs with
their own scopes do not see each other's. A tracer that also has ``capture() -> object`` is
asked for a context on the request path (the OpenTelemetry tracer returns the current span's
context), which comes back as ``record.context``, so an evaluation done later on a worker
thread still joins the request's trace.

This module imports nothing of evalmark at run time, so any layer may report into it.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = [
    "ContextCapturingTracer",
    "EvalTracer",
    "EvaluationRecord",
    "RecordingTracer",
    "capture_context",
    "current_tracer",
    "record_column",
    "record_evaluation",
    "scope",
    "tracer_for",
]


@dataclass(frozen=True, slots=True)
class EvaluationRecord:
    """One strategy's verdict on one output, as a tracer receives it.

    ``error`` is the exception type when the evaluation errored (``error_kind`` says where:
    ``function``, ``strategy``, ``judge`` or ``parse``); ``duration`` is in seconds (None when
    unknown); ``context`` is what the tracer's ``capture()`` returned on the request path."""

    strategy: str
    score: float
    passed: bool
    explanation: str = ""
    error: str | None = None
    error_kind: str | None = None
    sample: str | None = None
    suite: str | None = None
    tags: tuple[str, ...] = ()
    duration: float | None = None
    context: object = None

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"fail"`` or ``"error"``."""
        if self.error is not None:
            return "error"
        return "pass" if self.passed else "fail"


@runtime_checkable
class EvalTracer(Protocol):
    """Receives evaluation records (metrics, spans, logs: the tracer decides)."""

    def record(self, record: EvaluationRecord) -> None:
        """Take one record. Called from the thread that evaluated."""
        ...


@runtime_checkable
class ContextCapturingTracer(EvalTracer, Protocol):
    """A tracer that links an evaluation to the request it evaluates."""

    def capture(self) -> object:
        """A context taken on the request path; it comes back as ``record.context``."""
        ...


_SCOPE: contextvars.ContextVar[EvalTracer | None] = contextvars.ContextVar(
    "evalmark_tracer", default=None
)


@contextmanager
def scope(tracer: EvalTracer) -> Iterator[EvalTracer]:
    """Report every evaluation made inside the block (and in tasks and copied contexts it
    starts) to ``tracer``, unless a tracer is given explicitly. Scopes nest; the innermost
    wins."""
    if not callable(getattr(tracer, "record", None)):
        raise TypeError(
            f"a tracer needs a record(record) method, got {type(tracer).__name__}; see "
            "evalmark.telemetry.EvalTracer"
        )
    token = _SCOPE.set(tracer)
    try:
        yield tracer
    finally:
        _SCOPE.reset(token)


def current_tracer() -> EvalTracer | None:
    """The tracer of the innermost open scope, or None."""
    return _SCOPE.get()


def tracer_for(tracer: EvalTracer | None = None) -> EvalTracer | None:
    """``tracer`` when given (an explicit tracer wins), else the ambient one, else None."""
    return tracer if tracer is not None else _SCOPE.get()


def capture_context(tracer: EvalTracer | None) -> object:
    """The request-path context of ``tracer`` (None when it does not capture one)."""
    capture = getattr(tracer, "capture", None)
    return capture() if callable(capture) else None


def record_evaluation(
    result: EvaluationResult,
    *,
    strategy: str,
    sample: str | None = None,
    suite: str | None = None,
    tags: Sequence[str] = (),
    duration: float | None = None,
    tracer: EvalTracer | None = None,
    context: object = None,
) -> None:
    """Report one result (the engine calls this per evaluation). No tracer: nothing happens."""
    target = tracer if tracer is not None else _SCOPE.get()
    if target is None:
        return
    error = result.error
    target.record(
        EvaluationRecord(
            strategy=strategy,
            score=result.score,
            passed=bool(result.passed),
            explanation=result.explanation,
            error=error.type if error is not None else None,
            error_kind=error.kind if error is not None else None,
            sample=sample,
            suite=suite,
            tags=tuple(tags),
            duration=duration,
            context=context,
        )
    )


def record_column(
    column: ResultColumn,
    *,
    strategy: str,
    samples: Sequence[str],
    tags: Sequence[Sequence[str]] = (),
    suite: str | None = None,
    duration: float | Sequence[float] | None = None,
    tracer: EvalTracer | None = None,
) -> None:
    """Report every row of a strategy's column: row ``i`` is sample ``samples[i]`` with
    ``tags[i]``. ``duration`` is the column's time in seconds (each row is given an equal
    share) or one time per row. No tracer: returns without reading the column."""
    target = tracer if tracer is not None else _SCOPE.get()
    if target is None:
        return
    count = len(column)
    if len(samples) != count or (tags and len(tags) != count):
        raise ValueError(
            f"record_column: {count} results, {len(samples)} sample names and {len(tags)} tag "
            "lists; give one name (and one tag list, if any) per result"
        )
    if duration is None or isinstance(duration, int | float):
        share = None if duration is None else float(duration) / count if count else 0.0
        durations: Sequence[float | None] = [share] * count
    else:
        durations = list(duration)
        if len(durations) != count:
            raise ValueError(f"record_column: {count} results but {len(durations)} durations")
    for index in range(count):
        record_evaluation(
            column[index],
            strategy=strategy,
            sample=samples[index],
            suite=suite,
            tags=tags[index] if tags else (),
            duration=durations[index],
            tracer=target,
        )


class RecordingTracer:
    """A tracer that keeps every record in memory, in arrival order (thread-safe): for tests,
    and for looking at what a run reported."""

    def __init__(self) -> None:
        self._records: list[EvaluationRecord] = []
        self._lock = threading.Lock()

    def record(self, record: EvaluationRecord) -> None:
        """Keep ``record``."""
        with self._lock:
            self._records.append(record)

    @property
    def records(self) -> list[EvaluationRecord]:
        """A copy of the records so far."""
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        """Forget the records."""
        with self._lock:
            self._records.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)
