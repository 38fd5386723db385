"""Run samples through a function under test and strategies, and collect a :class:`Report`.

    report = Scorer(concurrency=4).evaluate(samples, answer, TokenF1(0.5), ContainsFacts())
    report = (
        Evaluation(samples).tags("critical").evaluate(answer)
        .using(TokenF1(0.5)).using(ContainsFacts()).concurrency(4).run()
    )

The function is called as ``function(*sample.parameters)``, sync or async, at most
``concurrency`` calls at a time. Strategies with a batch path (``evaluate_batch``: the metric
strategies) are called once over all outputs; the others once per sample, inside
``evalmark.models.call_context(run_index=..., sample=<name>, check=<strategy name>)`` so judges
(``NoisyJudge``, cassettes) know which call is which. Results come back in sample order whatever
the completion order.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import numpy as np

from evalmark.data.results import EvaluationResult, ResultColumn, place_column
from evalmark.data.samples import Sample, Samples
from evalmark.models.context import call_context
from evalmark.report.model import Report, SkippedSample
from evalmark.strategies.base import as_strategy, strategy_name
from evalmark.strategies.metric import TextPairs

__all__ = ["ErrorPolicy", "Evaluation", "Scorer"]

ErrorPolicy = Literal["fail", "skip", "raise"]
_POLICIES: tuple[str, ...] = ("fail", "skip", "raise")
_T = TypeVar("_T")


def _as_samples(samples: Samples | Iterable[Sample]) -> tuple[tuple[Sample, ...], list[str]]:
    items = tuple(samples)
    if not set(map(type, items)) <= {Sample}:
        for position, item in enumerate(items):
            if not isinstance(item, Sample):
                raise TypeError(
                    f"samples[{position}] is a {type(item).__name__}, not a Sample; load "
                    "samples with evalmark.load_samples or build Sample(name=..., "
                    "parameters=[...], ...)"
                )
    names = [s.name for s in items]
    if len(set(names)) != len(names):
        counts = Counter(names)
        doubled = sorted(n for n, c in counts.items() if c > 1)
        raise ValueError(f"sample names must be unique in a run; repeated: {', '.join(doubled)}")
    return items, names


def _named_strategies(strategies: Sequence[object]) -> list[tuple[str, Any]]:
    if not strategies:
        raise ValueError(
            "give at least one strategy, e.g. Scorer().evaluate(samples, fn, ExactMatch())"
        )
    named = [(strategy_name(s), s) for s in (as_strategy(x) for x in strategies)]
    names = [n for n, _ in named]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise ValueError(
            f"strategy names must be distinct in a run; {', '.join(doubled)} appears more than "
            "once: pass name=... to tell them apart (e.g. TokenF1(0.8, name='TokenF1@0.8'); "
            "for a plain function, FunctionStrategy(function, name=...))"
        )
    return named


class Scorer:
    """Evaluates samples with a function under test and strategies.

    ``concurrency``: at most this many calls of the function (and of per-sample strategies such
    as judges) at a time. ``errors``: what an exception from the function does to its sample —
    ``"fail"`` (default: every strategy's result for it is an error result carrying the
    exception, counted apart from failures), ``"skip"`` (left out of the report, listed in
    ``report.skipped``) or ``"raise"`` (the run stops and the exception propagates, with a note
    naming the sample). ``run_index`` is handed to judges through the call context.
    """

    def __init__(
        self,
        concurrency: int = 1,
        *,
        errors: ErrorPolicy = "fail",
        run_index: int = 0,
    ) -> None:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
        if errors not in _POLICIES:
            raise ValueError(f"errors must be one of {', '.join(_POLICIES)}, got {errors!r}")
        self.concurrency = concurrency
        self.errors: ErrorPolicy = errors
        self.run_index = int(run_index)

    # ------------------------------------------------------------------ public API

    def evaluate(
        self,
        samples: Samples | Iterable[Sample],
        function: Callable[..., Any],
        *strategies: object,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Call ``function(*sample.parameters)`` for every sample, apply every strategy, and
        return the report. Works from synchronous code and from inside a running event loop
        (the run then happens on a helper thread); in async code prefer :meth:`aevaluate`."""
        return _run_sync(
            self.aevaluate(samples, function, *strategies, name=name, metadata=metadata)
        )

    async def aevaluate(
        self,
        samples: Samples | Iterable[Sample],
        function: Callable[..., Any],
        *strategies: object,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Async :meth:`evaluate`."""
        items, names = _as_samples(samples)
        named = _named_strategies(strategies)
        if not callable(function):
            raise TypeError(f"the function under test must be callable, got {function!r}")
        report_name = name or str(getattr(function, "__name__", "evaluation"))
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="evalmark") as pool:
            limit = asyncio.Semaphore(self.concurrency)
            outputs, failed = await self._call_all(items, function, pool, limit)
            return await self._score(
                items, names, outputs, failed, named, report_name, metadata, pool, limit
            )

    def score(
        self,
        samples: Samples | Iterable[Sample],
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Apply the strategies to precomputed ``outputs`` (one per sample, in order)."""
        return _run_sync(self.ascore(samples, outputs, *strategies, name=name, metadata=metadata))

    async def ascore(
        self,
        samples: Samples | Iterable[Sample],
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Async :meth:`score`."""
        items, names = _as_samples(samples)
        named = _named_strategies(strategies)
        if len(outputs) != len(items):
            raise ValueError(f"got {len(outputs)} outputs for {len(items)} samples; give one each")
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="evalmark") as pool:
            limit = asyncio.Semaphore(self.concurrency)
            return await self._score(
                items, names, list(outputs), {}, named, name, metadata, pool, limit
            )

    # ------------------------------------------------------------------ the run

    async def _call_all(
        self,
        items: Sequence[Sample],
        function: Callable[..., Any],
        pool: ThreadPoolExecutor,
        limit: asyncio.Semaphore,
    ) -> tuple[list[Any], dict[int, BaseException]]:
        outputs: list[Any] = [None] * len(items)
        failed: dict[int, BaseException] = {}
        is_async = inspect.iscoroutinefunction(function)

        async def call(index: int, sample: Sample) -> None:
            async with limit:
                try:
                    if is_async:
                        value = await function(*sample.parameters)
                    elif self.concurrency == 1:
                        value = function(*sample.parameters)
                    else:
                        value = await _in_thread(pool, function, *sample.parameters)
                    if inspect.isawaitable(value):
                        value = await value
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

    async def _score(
        self,
        items: Sequence[Sample],
        names: list[str],
        outputs: list[Any],
        failed: dict[int, BaseException],
        named: list[tuple[str, Any]],
        name: str,
        metadata: Mapping[str, Any] | None,
        pool: ThreadPoolExecutor,
        limit: asyncio.Semaphore,
    ) -> Report:
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
                explanation=f"the function under test raised {type(exc).__name__}: {exc}",
            )
            for i, exc in failed.items()
        }
        columns: dict[str, ResultColumn] = {}
        for strategy_label, strategy in named:
            if hasattr(strategy, "evaluate_batch") and getattr(strategy, "batch", True):
                column = await self._batch(strategy_label, strategy, ok_samples, ok_outputs)
            else:
                column = await self._each(
                    strategy_label, strategy, ok_samples, ok_outputs, pool, limit
                )
            columns[strategy_label] = place_column(column, total, ok_positions, function_errors)
        TextPairs.clear_cache()  # the batch's texts need not outlive the run
        return Report(
            name=name,
            sample_names=names,
            sample_tags=[s.tags for s in items],
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
        self,
        label: str,
        strategy: Any,
        samples: Sequence[Sample],
        outputs: Sequence[Any],
        pool: ThreadPoolExecutor,
        limit: asyncio.Semaphore,
    ) -> ResultColumn:
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
                    result = await _in_thread(
                        pool, self._one_sync, label, strategy, samples[index], outputs[index]
                    )
                results[index] = result

        await asyncio.gather(*(run(i) for i in range(len(samples))))
        return ResultColumn.from_results([r for r in results if r is not None])


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


async def _in_thread(pool: ThreadPoolExecutor, fn: Callable[..., _T], *args: Any) -> _T:
    context = contextvars.copy_context()
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, lambda: context.run(fn, *args))


def _run_sync(coroutine: Awaitable[_T]) -> _T:
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

    thread = threading.Thread(target=target, name="evalmark-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    value: _T = box["value"]
    return value


class Evaluation:
    """A fluent, reusable definition of an evaluation run: build once, run many times.

        Evaluation(samples).tags("critical").evaluate(fn).using(TokenF1(0.5)).concurrency(4).run()

    Every method returns a new ``Evaluation``; the original is unchanged.
    """

    __slots__ = (
        "_concurrency",
        "_errors",
        "_function",
        "_name",
        "_samples",
        "_strategies",
        "_tags",
    )

    def __init__(
        self,
        samples: Samples | Iterable[Sample],
        *,
        _function: Callable[..., Any] | None = None,
        _strategies: tuple[object, ...] = (),
        _tags: tuple[str, ...] = (),
        _concurrency: int = 1,
        _errors: ErrorPolicy = "fail",
        _name: str | None = None,
    ) -> None:
        self._samples = samples if isinstance(samples, Samples) else Samples(tuple(samples))
        self._function = _function
        self._strategies = _strategies
        self._tags = _tags
        self._concurrency = _concurrency
        self._errors: ErrorPolicy = _errors
        self._name = _name

    def _with(self, **changes: Any) -> Evaluation:
        fields: dict[str, Any] = {
            "_function": self._function,
            "_strategies": self._strategies,
            "_tags": self._tags,
            "_concurrency": self._concurrency,
            "_errors": self._errors,
            "_name": self._name,
        }
        fields.update(changes)
        return Evaluation(self._samples, **fields)

    def tags(self, *tags: str) -> Evaluation:
        """Only the samples carrying any of ``tags``."""
        return self._with(_tags=self._tags + tags)

    def evaluate(self, function: Callable[..., Any]) -> Evaluation:
        """The function under test."""
        return self._with(_function=function)

    def using(self, *strategies: object) -> Evaluation:
        """Add strategies."""
        return self._with(_strategies=self._strategies + strategies)

    def concurrency(self, concurrency: int) -> Evaluation:
        """At most this many calls at a time."""
        return self._with(_concurrency=concurrency)

    def errors(self, policy: ErrorPolicy) -> Evaluation:
        """What an exception from the function does: ``"fail"``, ``"skip"`` or ``"raise"``."""
        return self._with(_errors=policy)

    def named(self, name: str) -> Evaluation:
        """The report's name."""
        return self._with(_name=name)

    def samples(self) -> Samples:
        """The samples this evaluation runs (after the tag filter)."""
        if not self._tags:
            return self._samples
        return self._samples.filter_by_tags(*self._tags)

    def run(self, *, run_index: int = 0) -> Report:
        """Run it and return the report."""
        if self._function is None:
            raise ValueError("Evaluation has no function under test: call .evaluate(function)")
        scorer = Scorer(self._concurrency, errors=self._errors, run_index=run_index)
        return scorer.evaluate(self.samples(), self._function, *self._strategies, name=self._name)

    async def arun(self, *, run_index: int = 0) -> Report:
        """Async :meth:`run`."""
        if self._function is None:
            raise ValueError("Evaluation has no function under test: call .evaluate(function)")
        scorer = Scorer(self._concurrency, errors=self._errors, run_index=run_index)
        return await scorer.aevaluate(
            self.samples(), self._function, *self._strategies, name=self._name
        )

    def __repr__(self) -> str:
        function = getattr(self._function, "__name__", None)
        return (
            f"Evaluation(samples={len(self._samples)}, tags={list(self._tags)}, "
            f"function={function}, strategies={[strategy_name(s) for s in self._strategies]}, "
            f"concurrency={self._concurrency})"
        )
