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
the completion order. The run itself is :mod:`evalmark.engine.run`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evalmark.data.samples import Sample, Samples
from evalmark.engine.defaults import DEFAULT_CONCURRENCY
from evalmark.engine.repeats import repeat_summary, with_repeats
from evalmark.engine.run import ErrorPolicy, Run, run_sync
from evalmark.report.model import Report
from evalmark.strategies.base import as_strategy, strategy_name

__all__ = ["ErrorPolicy", "Evaluation", "Scorer"]

_POLICIES: tuple[str, ...] = ("fail", "skip", "raise")


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
    as judges) at a time; default ``DEFAULT_CONCURRENCY`` (4, engine/defaults.py), the same as
    suite files and ``evaluation_test``. The report is the same at any concurrency.
    ``errors``: what an exception from the function does to its sample —
    ``"fail"`` (default: every strategy's result for it is an error result carrying the
    exception, counted apart from failures), ``"skip"`` (left out of the report, listed in
    ``report.skipped``) or ``"raise"`` (the run stops and the exception propagates, with a note
    naming the sample). ``run_index`` is handed to judges through the call context.
    ``repeats``: call the function this many times per sample and report pass@k and pass^k
    (``k``, default ``repeats``) in the report's metadata ``repeats``; see
    :mod:`evalmark.engine.repeats`.
    """

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        *,
        errors: ErrorPolicy = "fail",
        run_index: int = 0,
        repeats: int = 1,
        k: int | None = None,
    ) -> None:
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be a whole number >= 1, got {concurrency!r}")
        if errors not in _POLICIES:
            raise ValueError(f"errors must be one of {', '.join(_POLICIES)}, got {errors!r}")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise ValueError(f"repeats must be a whole number >= 1, got {repeats!r}")
        bad_k = isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= repeats
        if k is not None and bad_k:
            raise ValueError(f"k must be a whole number from 1 to repeats ({repeats}), got {k!r}")
        self.concurrency = concurrency
        self.errors: ErrorPolicy = errors
        self.run_index = int(run_index)
        self.repeats = repeats
        self.k = k

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
        return run_sync(
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
            if self.repeats == 1:
                run = Run(self.concurrency, self.errors, self.run_index, pool)
                outputs, failed = await run.call_all(items, function)
                return await run.score(items, names, outputs, failed, named, report_name, metadata)
            reports = []
            for repeat in range(self.repeats):
                run = Run(self.concurrency, self.errors, self.run_index + repeat, pool, repeat)
                outputs, failed = await run.call_all(items, function)
                reports.append(
                    await run.score(items, names, outputs, failed, named, report_name, metadata)
                )
            return with_repeats(reports[0], repeat_summary(reports, self.k))

    def evaluate_outputs(
        self,
        samples: Samples | Iterable[Sample],
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Apply the strategies to precomputed ``outputs`` (one per sample, in order)."""
        return run_sync(
            self.aevaluate_outputs(samples, outputs, *strategies, name=name, metadata=metadata)
        )

    async def aevaluate_outputs(
        self,
        samples: Samples | Iterable[Sample],
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Async :meth:`evaluate_outputs`."""
        items, names = _as_samples(samples)
        named = _named_strategies(strategies)
        if len(outputs) != len(items):
            raise ValueError(f"got {len(outputs)} outputs for {len(items)} samples; give one each")
        with ThreadPoolExecutor(self.concurrency, thread_name_prefix="evalmark") as pool:
            run = Run(self.concurrency, self.errors, self.run_index, pool)
            return await run.score(items, names, list(outputs), {}, named, name, metadata)


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
        "_repeats",
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
        _concurrency: int = DEFAULT_CONCURRENCY,
        _errors: ErrorPolicy = "fail",
        _name: str | None = None,
        _repeats: tuple[int, int | None] = (1, None),
    ) -> None:
        self._samples = samples if isinstance(samples, Samples) else Samples(tuple(samples))
        self._function = _function
        self._strategies = _strategies
        self._tags = _tags
        self._concurrency = _concurrency
        self._errors: ErrorPolicy = _errors
        self._name = _name
        self._repeats = _repeats

    def _with(self, **changes: Any) -> Evaluation:
        fields: dict[str, Any] = {
            "_function": self._function,
            "_strategies": self._strategies,
            "_tags": self._tags,
            "_concurrency": self._concurrency,
            "_errors": self._errors,
            "_name": self._name,
            "_repeats": self._repeats,
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
        """At most this many calls at a time (default ``DEFAULT_CONCURRENCY``, 4)."""
        return self._with(_concurrency=concurrency)

    def errors(self, policy: ErrorPolicy) -> Evaluation:
        """What an exception from the function does: ``"fail"``, ``"skip"`` or ``"raise"``."""
        return self._with(_errors=policy)

    def repeats(self, repeats: int, k: int | None = None) -> Evaluation:
        """Call the function ``repeats`` times per sample; the report gives pass@k and pass^k."""
        return self._with(_repeats=(repeats, k))

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
        repeats, k = self._repeats
        scorer = Scorer(
            self._concurrency, errors=self._errors, run_index=run_index, repeats=repeats, k=k
        )
        return scorer.evaluate(self.samples(), self._function, *self._strategies, name=self._name)

    async def arun(self, *, run_index: int = 0) -> Report:
        """Async :meth:`run`."""
        if self._function is None:
            raise ValueError("Evaluation has no function under test: call .evaluate(function)")
        repeats, k = self._repeats
        scorer = Scorer(
            self._concurrency, errors=self._errors, run_index=run_index, repeats=repeats, k=k
        )
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
