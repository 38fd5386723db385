"""The steps of one run: calling the application for every sample, then applying each check (a
batch strategy once over all outputs, the others once per sample inside
``evalmark.models.call_context``), at most ``concurrency`` calls at a time, results in sample
order whatever the completion order. :func:`evalmark.engine._pipeline.run_samples` drives them."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from evalmark._tracing._direct import engine_run
from evalmark._tracing._tracer import record_column, tracer_for
from evalmark.engine._columns import threaded_columns
from evalmark.engine._settings import ErrorPolicy, Progress, RunSettings
from evalmark.errors import TraceError
from evalmark.models._context import call_context
from evalmark.report._model import Report
from evalmark.report._values import SkippedSample
from evalmark.results._results import EvaluationResult, ResultColumn, place_column
from evalmark.samples._samples import Sample
from evalmark.strategies._metric import TextPairs

__all__ = ["Run", "in_thread", "run_sync"]

_T = TypeVar("_T")


class Run:
    """One run over the samples: its settings, its thread pool, its limit on calls in flight
    and whom to tell of each answered sample. ``repeat`` numbers the runs of a repeated run
    (None when there is one): its run index is ``settings.run_index + repeat``."""

    def __init__(
        self,
        settings: RunSettings,
        pool: ThreadPoolExecutor,
        repeat: int | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.concurrency = settings.concurrency
        self.errors = settings.errors
        self.run_index = settings.run_index + (repeat or 0)
        self.pool = pool
        self.limit = asyncio.Semaphore(settings.concurrency)
        # In a repeated run, the application's calls belong to (run_index, sample, repeat).
        self.repeat = repeat
        self.progress = progress

    def _application_context(self, name: str) -> contextlib.AbstractContextManager[Any]:
        if self.repeat is None:
            return contextlib.nullcontext()
        return call_context(
            run_index=self.run_index, sample=name, check="application", repeat=self.repeat
        )

    async def each(
        self,
        names: Sequence[str],
        work: Callable[[int], Awaitable[Any]],
        *,
        errors: ErrorPolicy | None = None,
        who: str = "the function under test",
    ) -> tuple[list[Any], dict[int, BaseException]]:
        """Await ``work(i)`` for every item ``i`` (named ``names[i]``), at most ``concurrency``
        at a time, each in the application's call context: the values in item order, and the
        exceptions raised (by index) as ``errors`` (default: the run's) says; ``"raise"`` adds
        a note naming ``who`` and the item. ``progress(1, len(names))`` follows each item,
        whether it answered or raised. Sample runs call the application through it
        (:meth:`call_all`), conversation runs simulate their conversations through it."""
        policy = self.errors if errors is None else errors
        limit, total = self.limit, len(names)
        outputs: list[Any] = [None] * total
        failed: dict[int, BaseException] = {}

        async def call(index: int) -> None:
            async with limit:
                try:
                    with self._application_context(names[index]):
                        try:
                            value = await work(index)
                        finally:
                            if self.progress is not None:
                                self.progress(1, total)
                except Exception as exc:
                    if policy == "raise":
                        exc.add_note(f"evalmark: raised by {who} on sample '{names[index]}'")
                        raise
                    failed[index] = exc
                    return
                outputs[index] = value

        if policy == "raise":
            try:
                async with asyncio.TaskGroup() as group:
                    for index in range(total):
                        group.create_task(call(index))
            except BaseExceptionGroup as group_error:
                raise _first_exception(group_error) from None
        else:
            await asyncio.gather(*(call(index) for index in range(total)))
        return outputs, dict(sorted(failed.items()))

    async def call_all(
        self, items: Sequence[Sample], function: Callable[..., Any]
    ) -> tuple[list[Any], dict[int, BaseException]]:
        """Call ``function(*sample.parameters)`` for every sample (:meth:`each`): the outputs,
        in sample order, and the exceptions raised (by sample index)."""
        is_async = inspect.iscoroutinefunction(function)

        async def one(index: int) -> Any:
            return await self.invoke(function, *items[index].parameters, is_async=is_async)

        return await self.each([sample.name for sample in items], one)

    async def invoke(
        self, function: Callable[..., Any], *args: Any, is_async: bool | None = None
    ) -> Any:
        """``function(*args)``: awaited when async, else in the run's threads (directly at
        concurrency 1); an awaitable it returns is awaited."""
        if is_async is None:
            is_async = inspect.iscoroutinefunction(function)
        if is_async:
            value = await function(*args)
        elif self.concurrency == 1:
            value = function(*args)
        else:
            value = await in_thread(self.pool, function, *args)
        if inspect.isawaitable(value):
            value = await value
        return value

    async def score(
        self,
        items: Sequence[Sample],
        names: list[str],
        outputs: list[Any],
        failed: dict[int, BaseException],
        named: list[tuple[str, Any]],
        name: str,
        metadata: Mapping[str, Any] | None,
    ) -> Report:
        """Apply every strategy to the outputs and collect the report; ``failed`` holds the
        samples whose function raised."""
        skipped: list[SkippedSample] = []
        if failed and self.errors == "skip":
            skipped = [
                SkippedSample(items[i].name, f"{type(e).__name__}: {e}") for i, e in failed.items()
            ]
            keep = [i for i in range(len(items)) if i not in failed]
            items = [items[i] for i in keep]
            names = [names[i] for i in keep]
            outputs = [outputs[i] for i in keep]
            failed = {}
        total = len(items)
        ok_samples: Sequence[Sample] = items
        ok_outputs: Sequence[Any] = outputs
        ok_positions = np.arange(total, dtype=np.int64)
        if failed:
            ok_positions = ok_positions[[i not in failed for i in range(total)]]
            kept = ok_positions.tolist()
            ok_samples = [items[i] for i in kept]
            ok_outputs = [outputs[i] for i in kept]
        function_errors = {
            i: EvaluationResult.from_error(
                "function",
                exc,
                explanation=_explained(exc),
            )
            for i, exc in failed.items()
        }
        columns: dict[str, ResultColumn] = {}
        tags = [s.tags for s in items]
        threaded = await threaded_columns(self, named, ok_samples, ok_outputs)
        for strategy_label, strategy in named:
            if strategy_label in threaded:
                column, duration = threaded[strategy_label]
            else:
                start = time.perf_counter()
                with engine_run():  # the engine records the column below, once per row
                    column = await self.column(strategy_label, strategy, ok_samples, ok_outputs)
                duration = time.perf_counter() - start
            columns[strategy_label] = place_column(column, total, ok_positions, function_errors)
            self.record(strategy_label, columns[strategy_label], names, tags, metadata, duration)
        TextPairs.clear_cache()  # the batch's texts need not outlive the run
        return Report(
            name=name,
            sample_names=names,
            sample_tags=tags,
            columns=columns,
            outputs=outputs,
            skipped=skipped,
            metadata=metadata,
        )

    async def column(
        self, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
    ) -> ResultColumn:
        """One check over ``outputs[i]`` for ``samples[i]``: a batch strategy once over all,
        any other once per sample in its call context, at most ``concurrency`` at a time; an
        exception becomes the row's error result. Rows in sample order."""
        if hasattr(strategy, "evaluate_batch") and getattr(strategy, "batch", True):
            return await self._batch(label, strategy, samples, outputs)
        return await self._each(label, strategy, samples, outputs)

    @staticmethod
    def record(
        label: str,
        column: ResultColumn,
        names: Sequence[str],
        tags: Sequence[tuple[str, ...]],
        metadata: Mapping[str, Any] | None,
        duration: float,
    ) -> None:
        """Tell the active tracer (if any) of a finished check's column, which took
        ``duration`` seconds."""
        tracer = tracer_for()
        if tracer is not None:
            record_column(
                column,
                strategy=label,
                samples=names,
                tags=tags,
                suite=(metadata or {}).get("suite"),
                duration=duration,
                tracer=tracer,
            )

    async def _batch(
        self, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
    ) -> ResultColumn:
        return self.batch_column(label, strategy, samples, outputs)

    def batch_column(
        self, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
    ) -> ResultColumn:
        """A batch strategy's column over all rows, row by row when the batch call raises."""
        try:
            column = strategy.evaluate_batch(samples, outputs)
        except Exception:
            # One bad row must not sink the others: fall back to row by row, catching each.
            return ResultColumn.from_results(
                [
                    self._one_sync(label, strategy, s, o)
                    for s, o in zip(samples, outputs, strict=True)
                ]
            )
        if not isinstance(column, ResultColumn) or len(column) != len(samples):
            raise TypeError(
                f"strategy {label!r}: evaluate_batch must return a ResultColumn of "
                f"{len(samples)} rows, got {type(column).__name__}"
            )
        return column

    def _one_sync(self, label: str, strategy: Any, sample: Sample, output: Any) -> EvaluationResult:
        with call_context(run_index=self.run_index, sample=sample.name, check=label):
            try:
                result = strategy.evaluate(sample, output)
            except Exception as exc:
                return EvaluationResult.from_error("strategy", exc)
        return _checked(result, label, sample)

    async def _one_async(
        self, label: str, strategy: Any, sample: Sample, output: Any
    ) -> EvaluationResult:
        with call_context(run_index=self.run_index, sample=sample.name, check=label):
            try:
                result = await strategy.aevaluate(sample, output)
            except Exception as exc:
                return EvaluationResult.from_error("strategy", exc)
        return _checked(result, label, sample)

    async def _each(
        self, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
    ) -> ResultColumn:
        pool, limit = self.pool, self.limit
        aevaluate = getattr(strategy, "aevaluate", None)
        use_async = aevaluate is not None and inspect.iscoroutinefunction(aevaluate)
        if not use_async and self.concurrency == 1:
            return ResultColumn.from_results(
                [
                    self._one_sync(label, strategy, s, o)
                    for s, o in zip(samples, outputs, strict=True)
                ]
            )
        results: list[EvaluationResult | None] = [None] * len(samples)

        async def run(index: int) -> None:
            async with limit:
                if use_async:
                    result = await self._one_async(label, strategy, samples[index], outputs[index])
                else:
                    result = await in_thread(
                        pool, self._one_sync, label, strategy, samples[index], outputs[index]
                    )
                results[index] = result

        await asyncio.gather(*(run(i) for i in range(len(samples))))
        return ResultColumn.from_results([r for r in results if r is not None])


def _explained(exc: BaseException) -> str:
    """What a case's error says: a trace that cannot be evaluated says why itself."""
    if isinstance(exc, TraceError):
        return str(exc)
    return f"the function under test raised {type(exc).__name__}: {exc}"


def _checked(result: object, label: str, sample: Sample) -> EvaluationResult:
    if isinstance(result, EvaluationResult):
        return result
    if isinstance(result, bool):
        return EvaluationResult.from_bool(result)
    return EvaluationResult.from_error(
        "strategy",
        TypeError(
            f"strategy {label!r} returned {type(result).__name__} for sample '{sample.name}'; "
            "return an EvaluationResult or a bool"
        ),
    )


def _first_exception(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_exception(first) if isinstance(first, BaseExceptionGroup) else first


async def in_thread(pool: ThreadPoolExecutor, fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` on ``pool``, in a copy of the current context (call contexts follow)."""
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, lambda: context.run(fn, *args))


def run_sync(coroutine: Awaitable[_T]) -> _T:
    """Run ``coroutine`` to its end from synchronous code, on a helper thread when an event loop
    is already running in this one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)  # type: ignore[arg-type]
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)  # type: ignore[arg-type]
        except BaseException as exc:
            box["error"] = exc

    context = contextvars.copy_context()  # the caller's call context and tracer scope
    thread = threading.Thread(target=context.run, args=(target,), name="evalmark-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    value: _T = box["value"]
    return value
