"""``Scorer`` and the fluent ``Evaluation``: two faces over the one engine function,
:func:`evalmark.engine._pipeline.run_samples` (the steps of a run are described there).

    report = Scorer(concurrency=4).evaluate(samples, answer, TokenF1(0.5), ContainsFacts())
    report = (
        Evaluation(samples).tags("critical").evaluate(answer)
        .using(TokenF1(0.5)).using(ContainsFacts()).concurrency(4).run()
    )
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from evalmark._tracing._direct import announcing
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.engine._pipeline import SampleSource, load_source, run_samples
from evalmark.engine._run import run_sync
from evalmark.engine._settings import ErrorPolicy, RunSettings
from evalmark.engine._test_cases import run_test_cases
from evalmark.report._model import Report
from evalmark.samples._case import TestCase
from evalmark.samples._samples import Samples
from evalmark.strategies._base import strategy_name

__all__ = ["ErrorPolicy", "Evaluation", "Scorer"]

_Samples = SampleSource
_DEFAULT = RunSettings()
# The reports of scorers and evaluations reach the report listener (the pytest suite report).
run_samples = announcing(run_samples)
run_test_cases = announcing(run_test_cases)


class Scorer:
    """Evaluates samples with a function under test and strategies. The settings (checked by
    :class:`~evalmark.engine._settings.RunSettings`, which describes them): ``concurrency``
    (default ``DEFAULT_CONCURRENCY``, 4), ``errors`` (``"fail"``, ``"skip"``, ``"raise"``),
    ``run_index``, ``repeats`` and ``k`` (pass@k and pass^k). The report is the same at any
    concurrency. :meth:`evaluate` works from synchronous code and inside a running event loop
    (the run then happens on a helper thread); async code may await :meth:`aevaluate`."""

    def __init__(
        self,
        concurrency: int = DEFAULT_CONCURRENCY,
        *,
        errors: ErrorPolicy = "fail",
        run_index: int = 0,
        repeats: int = 1,
        k: int | None = None,
    ) -> None:
        checked = RunSettings(concurrency, errors, run_index, repeats, k)
        self.concurrency, self.errors, self.run_index = concurrency, errors, checked.run_index
        self.repeats, self.k = repeats, k

    @property
    def settings(self) -> RunSettings:
        """The run settings of the scorer's attributes (checked again, should one change)."""
        return RunSettings(self.concurrency, self.errors, self.run_index, self.repeats, self.k)

    def evaluate(
        self,
        samples: _Samples,
        function: Callable[..., Any],
        *strategies: object,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Call ``function(*sample.parameters)`` for every sample, apply every strategy, and
        return the report."""
        return run_sync(
            self.aevaluate(samples, function, *strategies, name=name, metadata=metadata)
        )

    async def aevaluate(
        self,
        samples: _Samples,
        function: Callable[..., Any],
        *strategies: object,
        name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Async :meth:`evaluate`."""
        return await run_samples(
            samples,
            strategies,
            application=function,
            settings=self.settings,
            name=name,
            metadata=metadata,
        )

    def evaluate_outputs(
        self,
        samples: _Samples,
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Apply the strategies to precomputed ``outputs`` (one per sample, in order)."""
        run = self.aevaluate_outputs(samples, outputs, *strategies, name=name, metadata=metadata)
        return run_sync(run)

    async def aevaluate_outputs(
        self,
        samples: _Samples,
        outputs: Sequence[Any],
        *strategies: object,
        name: str = "evaluation",
        metadata: Mapping[str, Any] | None = None,
    ) -> Report:
        """Async :meth:`evaluate_outputs`."""
        return await run_samples(
            samples,
            strategies,
            outputs=outputs,
            settings=self.settings,
            name=name,
            metadata=metadata,
        )

    def evaluate_test_cases(
        self, cases: Iterable[TestCase], *strategies: object, **options: Any
    ) -> Report:
        """Check finished test cases; options: samples, unevaluable, name, metadata."""
        return run_sync(self.aevaluate_test_cases(cases, *strategies, **options))

    async def aevaluate_test_cases(
        self, cases: Iterable[TestCase], *strategies: object, **options: Any
    ) -> Report:
        """Async :meth:`evaluate_test_cases`."""
        return await run_test_cases(cases, strategies, settings=self.settings, **options)


class Evaluation:
    """A fluent, reusable definition of an evaluation run: build once, run many times.

        Evaluation(samples).tags("critical").evaluate(fn).using(TokenF1(0.5)).concurrency(4).run()

    Every method returns a new ``Evaluation``; the original is unchanged. Settings are checked
    as they are given (:class:`~evalmark.engine._settings.RunSettings`).
    """

    __slots__ = ("_function", "_name", "_samples", "_settings", "_strategies", "_tags")

    def __init__(
        self,
        samples: _Samples,
        *,
        _function: Callable[..., Any] | None = None,
        _strategies: tuple[object, ...] = (),
        _tags: tuple[str, ...] = (),
        _settings: RunSettings = _DEFAULT,
        _name: str | None = None,
    ) -> None:
        given = load_source(samples)
        self._samples = given if isinstance(given, Samples) else Samples(tuple(given))
        self._function = _function
        self._strategies = _strategies
        self._tags = _tags
        self._settings = _settings
        self._name = _name

    def _with(self, **changes: Any) -> Evaluation:
        fields = {name: getattr(self, name) for name in self.__slots__ if name != "_samples"}
        return Evaluation(self._samples, **{**fields, **changes})

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
        return self._with(_settings=replace(self._settings, concurrency=concurrency))

    def errors(self, policy: ErrorPolicy) -> Evaluation:
        """What an exception from the function does: ``"fail"``, ``"skip"`` or ``"raise"``."""
        return self._with(_settings=replace(self._settings, errors=policy))

    def repeats(self, repeats: int, k: int | None = None) -> Evaluation:
        """Call the function ``repeats`` times per sample; the report gives pass@k and pass^k."""
        return self._with(_settings=replace(self._settings, repeats=repeats, k=k))

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
        return run_sync(self.arun(run_index=run_index))

    async def arun(self, *, run_index: int = 0) -> Report:
        """Async :meth:`run`."""
        if self._function is None:
            raise ValueError("Evaluation has no function under test: call .evaluate(function)")
        settings = replace(self._settings, run_index=run_index)
        return await run_samples(
            self.samples(),
            self._strategies,
            application=self._function,
            settings=settings,
            name=self._name,
        )

    def __repr__(self) -> str:
        function = getattr(self._function, "__name__", None)
        return (
            f"Evaluation(samples={len(self._samples)}, tags={list(self._tags)}, "
            f"function={function}, strategies={[strategy_name(s) for s in self._strategies]}, "
            f"concurrency={self._settings.concurrency})"
        )
