"""Production sampling: score a seeded fraction of an application's live calls, off the
request path.

    monitor = evalmark.monitor([NotEmpty(), LLMJudge("relevancy", judge)],
                               sample_rate=0.01, seed=7, tracer=tracer)

    @monitor
    def answer(question: str) -> str: ...

Each call of ``answer`` returns as before. Whether call number *n* is scored is decided from
the seed and *n* alone (:mod:`evalmark.telemetry._picking`): the same seed picks the same calls
in every process, whatever the thread timing, and a call costs one table look-up; ``key=``
decides by a hash of a request key instead. A picked call's
arguments and result go into a bounded queue; one background thread takes them out, runs every
strategy on ``Sample(name="call-<n>", parameters=<the positional arguments>)`` (or what
``sample=`` builds) and reports each result to the tracer given, else to the tracer that was
ambient when the call was made, else nowhere. A full queue drops the call and counts it
(``monitor.stats().dropped``); a strategy that raises becomes an error result; a tracer that
raises is counted and ignored. Nothing the monitor does can fail or slow the call beyond the
sampling decision and, for a picked call, one queue put.

``close(timeout)`` (also at interpreter exit, and leaving ``with monitor:``) lets the worker
finish what is queued and stops it; calls picked after that are counted as dropped.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import itertools
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from evalmark._tracing._direct import engine_run
from evalmark._tracing._tracer import (
    EvalTracer,
    capture_context,
    current_tracer,
    record_evaluation,
)
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Parameters, Sample
from evalmark.strategies._base import as_strategy, strategy_name
from evalmark.telemetry._picking import BLOCK_BITS, IN_BLOCK, CallPicker

__all__ = ["Monitor", "MonitorStats", "monitor"]

_F = TypeVar("_F", bound=Callable[..., Any])
_STOP = object()


@dataclass(frozen=True, slots=True)
class MonitorStats:
    """Counters of a monitor: ``calls`` made, ``sampled`` (picked for scoring), ``scored``
    (every strategy ran), ``dropped`` (picked but the queue was full, or the monitor closed),
    ``pending`` (waiting in the queue), ``tracer_errors`` (records a tracer refused)."""

    calls: int
    sampled: int
    scored: int
    dropped: int
    pending: int
    tracer_errors: int


@dataclass(frozen=True, slots=True)
class _Job:
    index: int
    sample: Sample
    output: Any
    tracer: EvalTracer | None
    context: object


class Monitor:
    """Scores a sample of an application's calls in the background; see the module docstring.

    Use it as a decorator (``@monitor``, several functions may share one monitor) or call
    :meth:`observe` with an input and output you already have.
    """

    def __init__(
        self,
        strategies: Iterable[object],
        *,
        sample_rate: float,
        tracer: EvalTracer | None = None,
        seed: int = 0,
        queue_size: int = 1000,
        suite: str | None = None,
        tags: Iterable[str] = (),
        key: Callable[..., object] | None = None,
        sample: Callable[[int, tuple[Any, ...], Mapping[str, Any]], Sample] | None = None,
    ) -> None:
        rate = float(sample_rate)
        if not 0.0 <= rate <= 1.0 or isinstance(sample_rate, bool):
            raise ValueError(f"sample_rate is a fraction between 0 and 1, got {sample_rate!r}")
        if isinstance(queue_size, bool) or not isinstance(queue_size, int) or queue_size < 1:
            raise ValueError(f"queue_size must be a whole number >= 1, got {queue_size!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {seed!r}")
        self._strategies = [(strategy_name(s), s) for s in map(as_strategy, strategies)]
        if not self._strategies:
            raise ValueError("give at least one strategy to score the sampled calls with")
        self.sample_rate = rate
        self.seed = seed
        self.tracer = tracer
        self.suite = suite
        self.tags = tuple(tags)
        self._key = key
        self._make_sample = sample
        self._picker = CallPicker(rate, seed)
        self._threshold = self._picker.threshold
        self._calls = itertools.count()
        self._queue: queue.Queue[_Job | object] = queue.Queue(queue_size)
        self._lock = threading.Lock()
        self._sampled = 0
        self._scored = 0
        self._dropped = 0
        self._tracer_errors = 0
        self._worker: threading.Thread | None = None
        self._closed = False
        atexit.register(_close_at_exit, weakref.ref(self))

    # ------------------------------------------------------------------ the request path

    def picks(self, index: int, key: object = None) -> bool:
        """True when call ``index`` (or, with ``key=``, the request with this key) is scored."""
        return self._picker.picks(index, key)

    def __call__(self, function: _F) -> _F:
        """Wrap ``function`` (sync or async): same arguments, same result, same exceptions."""
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def monitored_async(*args: Any, **kwargs: Any) -> Any:
                index = next(self._calls)
                output = await function(*args, **kwargs)
                if self._threshold and self._picked(index, args, kwargs):
                    self._submit(index, args, kwargs, output)
                return output

            monitored_async.monitor = self  # type: ignore[attr-defined]
            return cast(_F, monitored_async)

        calls, by_key = self._calls, self._key is not None
        blocks, draw = self._picker.blocks, self._picker.block
        active = self._threshold != 0

        @functools.wraps(function)
        def monitored(*args: Any, **kwargs: Any) -> Any:
            index = next(calls)
            output = function(*args, **kwargs)
            if active:
                if by_key:
                    if self._picked(index, args, kwargs):
                        self._submit(index, args, kwargs, output)
                else:  # the common case, inlined: one dict and one bytes look-up
                    block = index >> BLOCK_BITS
                    marks = blocks.get(block) or draw(block)
                    if marks[index & IN_BLOCK]:
                        self._submit(index, args, kwargs, output)
            return output

        monitored.monitor = self  # type: ignore[attr-defined]
        return cast(_F, monitored)

    def observe(self, output: Any, *args: Any, **kwargs: Any) -> bool:
        """Count one call with these arguments and ``output``; True when it was queued."""
        index = next(self._calls)
        if self._threshold and self._picked(index, args, kwargs):
            return self._submit(index, args, kwargs, output)
        return False

    def _picked(self, index: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        if self._key is None:
            return self.picks(index)
        try:
            key = self._key(*args, **kwargs)
        except Exception:
            return False  # a key that cannot be computed never costs the caller
        return self.picks(index, key)

    def _submit(
        self, index: int, args: tuple[Any, ...], kwargs: Mapping[str, Any], output: Any
    ) -> bool:
        with self._lock:
            self._sampled += 1
            if self._closed:
                self._dropped += 1
                return False
        try:
            made = self._sample(index, args, kwargs)
            tracer = self.tracer if self.tracer is not None else current_tracer()
            job = _Job(index, made, output, tracer, capture_context(tracer))
            self._queue.put_nowait(job)
        except queue.Full:
            with self._lock:
                self._dropped += 1
            return False
        except Exception:
            with self._lock:  # a sample that cannot be built is not scored
                self._dropped += 1
            return False
        self._ensure_worker()
        return True

    def _sample(self, index: int, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Sample:
        if self._make_sample is not None:
            return self._make_sample(index, args, kwargs)
        return Sample(
            name=f"call-{index}",
            parameters=Parameters(args),
            expected_outputs=(),
            tags=self.tags,
            metadata=dict(kwargs),
        )

    def _ensure_worker(self) -> None:
        if self._worker is not None:
            return
        with self._lock:
            if self._worker is None and not self._closed:
                self._worker = threading.Thread(
                    target=self._work, name="evalmark-monitor", daemon=True
                )
                self._worker.start()

    # ------------------------------------------------------------------ the worker

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is _STOP:
                    return
                assert isinstance(job, _Job)
                self._score(job)
            finally:
                self._queue.task_done()

    def _score(self, job: _Job) -> None:
        for name, strategy in self._strategies:
            start = time.perf_counter()
            try:
                with engine_run():  # recorded below, with the job's tracer and context
                    result = strategy.evaluate(job.sample, job.output)
                if isinstance(result, bool):
                    result = EvaluationResult.from_bool(result)
                elif not isinstance(result, EvaluationResult):
                    raise TypeError(
                        f"strategy {name!r} returned {type(result).__name__}; return an "
                        "EvaluationResult or a bool"
                    )
            except Exception as exc:
                result = EvaluationResult.from_error("strategy", exc)
            elapsed = time.perf_counter() - start
            try:
                record_evaluation(
                    result,
                    strategy=name,
                    sample=job.sample.name,
                    suite=self.suite,
                    tags=job.sample.tags,
                    duration=elapsed,
                    tracer=job.tracer,
                    context=job.context,
                )
            except Exception:
                with self._lock:
                    self._tracer_errors += 1
        with self._lock:
            self._scored += 1

    # ------------------------------------------------------------------ life cycle

    def stats(self) -> MonitorStats:
        """The counters now."""
        calls = int(repr(self._calls)[len("count(") : -1])  # the next index, not consumed
        with self._lock:
            return MonitorStats(
                calls=calls,
                sampled=self._sampled,
                scored=self._scored,
                dropped=self._dropped,
                pending=self._queue.qsize(),
                tracer_errors=self._tracer_errors,
            )

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued call is scored; False when ``timeout`` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._queue.all_tasks_done.wait(left)
        return True

    def close(self, timeout: float | None = 10.0) -> bool:
        """Score what is queued, then stop the worker. True when it finished within
        ``timeout`` seconds (None: wait as long as it takes). Closing twice is harmless."""
        with self._lock:
            already = self._closed
            self._closed = True
            worker = self._worker
        if worker is None:
            return True
        if not already:
            try:
                self._queue.put(_STOP, timeout=timeout)
            except queue.Full:
                return False
        worker.join(timeout)
        return not worker.is_alive()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        names = [name for name, _ in self._strategies]
        return f"Monitor(strategies={names}, sample_rate={self.sample_rate}, seed={self.seed})"


def _close_at_exit(ref: weakref.ref[Monitor]) -> None:
    monitor = ref()
    if monitor is not None:
        monitor.close(timeout=5.0)


def monitor(
    strategies: Iterable[object],
    *,
    sample_rate: float,
    tracer: EvalTracer | None = None,
    seed: int = 0,
    queue_size: int = 1000,
    suite: str | None = None,
    tags: Iterable[str] = (),
    key: Callable[..., object] | None = None,
    sample: Callable[[int, tuple[Any, ...], Mapping[str, Any]], Sample] | None = None,
) -> Monitor:
    """A :class:`Monitor` scoring ``sample_rate`` of the calls with ``strategies``.

    ``tracer``: where results go (default: the ambient tracer at each call). ``seed``: which
    calls are picked. ``queue_size``: calls waiting at most; more are dropped and counted.
    ``suite``/``tags``: reported with each result. ``key(*args, **kwargs)``: pick by a request
    key instead of the call count. ``sample(index, args, kwargs)``: build the sample yourself
    (e.g. with an expected answer looked up from a cache)."""
    return Monitor(
        strategies,
        sample_rate=sample_rate,
        tracer=tracer,
        seed=seed,
        queue_size=queue_size,
        suite=suite,
        tags=tags,
        key=key,
        sample=sample,
    )
