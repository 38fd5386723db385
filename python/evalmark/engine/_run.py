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

from evalmark.data._results import EvaluationResult, ResultColumn, place_column
from evalmark.data._samples import Sample
from evalmark.engine._settings import Progress, RunSettings
from evalmark.errors import TraceError
from evalmark.models._context import call_context
from evalmark.report._model import Report
from evalmark.report._values import SkippedSample
from evalmark.strategies._metric import TextPairs
from evalmark.telemetry._tracer import record_column, tracer_for

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

    def _application_context(self, sample: Sample) -> contextlib.AbstractContextManager[Any]:
        if self.repeat is None:
            return contextlib.nullcontext()
        return call_context(
            run_index=self.run_index, sample=sample.name, check="application", repeat=self.repeat
        )

    async def call_all(
        self, items: Sequence[Sample], function: Callable[..., Any]
    ) -> tuple[list[Any], dict[int, BaseException]]:
        """Call ``function(*sample.parameters)`` for every sample: the outputs, in sample
        order, and the exceptions raised (by sample index). ``progress(1, len(items))`` follows
        each call, whether it answered or raised."""
        limit = self.limit
        outputs: list[Any] = [None] * len(items)
        failed: dict[int, BaseException] = {}
        is_async = inspect.iscoroutinefunction(function)

        async def call(index: int, sample: Sample) -> None:
            async with limit:
                try:
                    with self._application_context(sample):
                        value = await self._call_one(function, sample, is_async, len(items))
                except Exception as exc:
                    if self.errors == "raise":
                        exc.add_note(
                            f"evalmark: raised by the function under test on sample '{sample.name}'"
                        )
                        raise
                    failed[index] = exc
                    return
                outputs[index] = value

        if self.errors == "raise":
            try:
                async with asyncio.TaskGroup() as group:
                    for index, sample in enumerate(items):
                        group.create_task(call(index, sample))
            except BaseExceptionGroup as group_error:
                raise _first_exception(group_error) from None
        else:
            await asyncio.gather(*(call(i, s) for i, s in enumerate(items)))
        return outputs, dict(sorted(failed.items()))

    async def _call_one(
        self, function: Callable[..., Any], sample: Sample, is_async: bool, total: int
    ) -> Any:
        try:
            if is_async:
                value = await function(*sample.parameters)
            elif self.concurrency == 1:
                value = function(*sample.parameters)
            else:
                value = await in_thread(self.pool, function, *sample.parameters)
            if inspect.isawaitable(value):
                value = await value
        finally:
            if self.progress is not None:
                self.progress(1, total)
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
        tracer = tracer_for()
        tags = [s.tags for s in items]
        for strategy_label, strategy in named:
            start = time.perf_counter()
            if hasattr(strategy, "evaluate_batch") and getattr(strategy, "batch", True):
                column = await self._batch(strategy_label, strategy, ok_samples, ok_outputs)
            else:
                column = await self._each(strategy_label, strategy, ok_samples, ok_outputs)
            columns[strategy_label] = place_column(column, total, ok_positions, function_errors)
            if tracer is not None:
                record_column(
                    columns[strategy_label],
                    strategy=strategy_label,
                    samples=names,
                    tags=tags,
                    suite=(metadata or {}).get("suite"),
                    duration=time.perf_counter() - start,
                    tracer=tracer,
                )
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

    async def _batch(
        self, label: str, strategy: Any, samples: Sequence[Sample], outputs: Sequence[Any]
    ) -> ResultColumn:
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
