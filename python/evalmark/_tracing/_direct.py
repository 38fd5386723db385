"""Evaluations called directly (``strategy.evaluate(sample, output)``, ``judge.grade(...)``)
reach the ambient tracer and any direct-evaluation listener (the pytest plugin's, which puts
them in the suite report), once each. Reports a :class:`~evalmark.Scorer` or an
:class:`~evalmark.Evaluation` returns reach any report listener (:func:`report_made`), so a plain
``Scorer()`` made inside a test joins the suite report too.

A strategy's ``evaluate``/``aevaluate`` (and a judge's ``grade``) carry :func:`recorded`. A
call made while another recorded call or an engine run is under way records nothing: the engine
records its columns itself (:meth:`evalmark.engine._run` ``record``), and a composite's members
are part of the composite's one verdict. Like :mod:`evalmark._tracing._tracer`, this module
imports nothing of evalmark at run time.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from evalmark._tracing._tracer import EvaluationRecord, current_tracer

__all__ = [
    "announcing",
    "engine_run",
    "listening",
    "recorded",
    "report_made",
    "watching_reports",
]

F = TypeVar("F", bound=Callable[..., Any])
Listener = Callable[[EvaluationRecord, Any], None]

# True while an engine run or a recorded call is evaluating: nested calls do not record.
_RECORDING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "evalmark_evaluation_recorded", default=False
)
_LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar(
    "evalmark_direct_listener", default=None
)
_REPORTS: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "evalmark_report_listener", default=None
)


@contextmanager
def engine_run() -> Iterator[None]:
    """Mark the block as the engine's: the evaluations it calls are recorded by the engine (one
    record per row of a column), not by :func:`recorded`."""
    token = _RECORDING.set(True)
    try:
        yield
    finally:
        _RECORDING.reset(token)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Call ``listener(record, result)`` for every direct evaluation made inside the block."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


@contextmanager
def watching_reports(listener: Callable[[Any], None] | None) -> Iterator[None]:
    """Call ``listener(report)`` for every report a scorer returns inside the block (``None``:
    tell no one, for code that registers its reports itself)."""
    token = _REPORTS.set(listener)
    try:
        yield
    finally:
        _REPORTS.reset(token)


def report_made(report: Any) -> Any:
    """Tell the report listener, if any, about ``report``; return it."""
    listener = _REPORTS.get()
    if listener is not None:
        listener(report)
    return report


def announcing(method: F) -> F:
    """Decorate an async method that returns a report: the report reaches the listener."""

    @functools.wraps(method)
    async def run(*args: Any, **kwargs: Any) -> Any:
        return report_made(await method(*args, **kwargs))

    return cast(F, run)


def _name(strategy: object) -> str:
    name = getattr(strategy, "name", None)
    return name if isinstance(name, str) and name else type(strategy).__name__


def _emit(strategy: object, sample: object, result: Any, duration: float) -> None:
    tracer, listener = current_tracer(), _LISTENER.get()
    if tracer is None and listener is None:
        return
    error = getattr(result, "error", None)
    explanation = getattr(result, "explanation", None)
    if explanation is None:
        explanation = getattr(result, "reasoning", "")
    record = EvaluationRecord(
        strategy=_name(strategy),
        score=float(getattr(result, "score", 0.0)),
        passed=bool(getattr(result, "passed", False)),
        explanation=str(explanation or ""),
        error=getattr(error, "type", None),
        error_kind=getattr(error, "kind", None),
        sample=getattr(sample, "name", None),
        tags=tuple(getattr(sample, "tags", ()) or ()),
        duration=duration,
    )
    if tracer is not None:
        tracer.record(record)
    if listener is not None:
        listener(record, result)


def recorded(method: F) -> F:
    """Decorate ``evaluate(self, sample, output)`` (or its async twin, or ``grade(self,
    **values)``) so that a direct call is recorded once; see the module's docstring."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def arun(self: Any, *args: Any, **kwargs: Any) -> Any:
            if _RECORDING.get():
                return await method(self, *args, **kwargs)
            token = _RECORDING.set(True)
            start = time.perf_counter()
            try:
                result = await method(self, *args, **kwargs)
            finally:
                _RECORDING.reset(token)
            _emit(self, args[0] if args else None, result, time.perf_counter() - start)
            return result

        return cast(F, arun)

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _RECORDING.get():
            return method(self, *args, **kwargs)
        token = _RECORDING.set(True)
        start = time.perf_counter()
        try:
            result = method(self, *args, **kwargs)
        finally:
            _RECORDING.reset(token)
        _emit(self, args[0] if args else None, result, time.perf_counter() - start)
        return result

    return cast(F, run)
