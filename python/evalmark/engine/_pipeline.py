"""The engine: :func:`run_samples` runs samples through checks and collects a :class:`Report`.

Every way to run an evaluation is a face over it: ``Scorer`` and the fluent ``Evaluation``
(:mod:`evalmark.engine._scorer`), suite files (``evalmark.run_suite``) and the pytest
helpers. A run:

1. checks its inputs: samples are ``Sample`` objects with distinct names, checks have distinct
   names (``strategy_name``), and either an application or one output per sample is given;
2. calls the application as ``application(*sample.parameters)`` (sync or async) for every
   sample, at most ``settings.concurrency`` calls at a time, ``settings.repeats`` times, each
   call followed by ``progress(1, len(samples))``; an exception is handled as
   ``settings.errors`` says (or takes the given ``outputs`` instead);
3. applies every check (:mod:`evalmark.engine._run`), results in sample order whatever the
   completion order, so the report's bytes do not depend on the concurrency;
4. returns the first run's report, with the pass@k and pass^k figures of a repeated run in its
   metadata ``repeats`` (:mod:`evalmark.engine._repeats`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from os import PathLike
from typing import Any

from evalmark.engine._repeats import repeat_summary, with_repeats
from evalmark.engine._run import Run
from evalmark.engine._settings import Progress, RunSettings
from evalmark.report._model import Report
from evalmark.samples._samples import Sample, Samples, load_samples
from evalmark.strategies._base import as_strategy, option_names, strategy_name

__all__ = ["SampleSource", "load_source", "run_repeated", "run_samples", "single_run"]

_DEFAULT = RunSettings()


SampleSource = Samples | Iterable[Sample] | str | PathLike[str] | Sequence[str | PathLike[str]]


def _is_path(value: object) -> bool:
    return isinstance(value, str | PathLike)


def load_source(samples: SampleSource) -> Samples | Iterable[Sample]:
    """Samples as given, or loaded from a path or several paths (merged in the order given,
    through :func:`~evalmark.load_samples`, so registered loaders such as ``mem://`` apply)."""
    if _is_path(samples):
        return load_samples(samples)
    if isinstance(samples, list | tuple) and samples and all(map(_is_path, samples)):
        return load_samples(*samples)
    return samples  # type: ignore[return-value]


def _as_samples(samples: SampleSource) -> tuple[tuple[Sample, ...], list[str]]:
    items = tuple(load_source(samples))
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


def _named_checks(checks: Sequence[object]) -> list[tuple[str, Any]]:
    if not checks:
        raise ValueError(
            "give at least one strategy, e.g. Scorer().evaluate(samples, fn, ExactMatch())"
        )
    named = [(strategy_name(s), s) for s in (as_strategy(x) for x in checks)]
    names = [n for n, _ in named]
    repeated = {n for n in names if names.count(n) > 1}
    if repeated:
        # Instances of one class under its default name (SemanticSimilarity(0.85) and (0.75))
        # take names made of their options; only what is still equal is a true duplicate.
        for name in sorted(repeated):
            places = [i for i, (n, s) in enumerate(named) if n == name == type(s).__name__]
            if len(places) < 2:
                continue
            derived = option_names([named[i][1] for i in places])
            for i, new_name in zip(places, derived, strict=True):
                named[i] = (new_name, named[i][1])
        names = [n for n, _ in named]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise ValueError(
            f"strategy names must be distinct in a run; {', '.join(doubled)} appears more than "
            "once: pass name=... to tell them apart (e.g. TokenF1(0.8, name='TokenF1@0.8'); "
            "for a plain function, FunctionStrategy(function, name=...))"
        )
    return named


async def run_samples(
    samples: SampleSource,
    checks: Sequence[object],
    *,
    application: Callable[..., Any] | None = None,
    outputs: Sequence[Any] | None = None,
    settings: RunSettings = _DEFAULT,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run ``samples`` through ``application`` (or take their precomputed ``outputs``, one per
    sample in order: then nothing is called and ``repeats`` does not apply) and every check,
    and return the report, named ``name`` (default: the application's ``__name__``, else
    "evaluation"). See the module's text for the steps."""
    items, names = _as_samples(samples)
    named = _named_checks(checks)
    if outputs is None and not callable(application):
        raise TypeError(f"the function under test must be callable, got {application!r}")
    if outputs is not None and application is not None:
        raise TypeError("give the application or its outputs, not both")
    if outputs is not None and len(outputs) != len(items):
        raise ValueError(f"got {len(outputs)} outputs for {len(items)} samples; give one each")
    report_name = name or str(getattr(application, "__name__", "evaluation"))
    if application is None:
        given = list(outputs or ())
        with single_run(settings) as run:
            return await run.score(items, names, given, {}, named, report_name, metadata)

    async def one(run: Run) -> Report:
        answers, failed = await run.call_all(items, application)
        return await run.score(items, names, answers, failed, named, report_name, metadata)

    return await run_repeated(settings, one, progress)


@contextmanager
def single_run(settings: RunSettings, progress: Progress | None = None) -> Iterator[Run]:
    """One run (no repeats) with its threads, ``settings.concurrency`` of them, shut down
    when the block ends."""
    with ThreadPoolExecutor(settings.concurrency, thread_name_prefix="evalmark") as pool:
        yield Run(settings, pool, None, progress)


async def run_repeated(
    settings: RunSettings,
    one: Callable[[Run], Awaitable[Report]],
    progress: Progress | None = None,
) -> Report:
    """``one(run)`` for each of the ``settings.repeats`` runs, one after another over the same
    threads: the first run's report, with the pass@k and pass^k figures of a repeated run in
    its metadata ``repeats``. Sample runs (:func:`run_samples`) and conversation runs
    (``evalmark.conversation``) both go through it."""
    reports = []
    repeated = settings.repeats > 1
    with ThreadPoolExecutor(settings.concurrency, thread_name_prefix="evalmark") as pool:
        for repeat in range(settings.repeats):
            reports.append(await one(Run(settings, pool, repeat if repeated else None, progress)))
    if not repeated:
        return reports[0]
    return with_repeats(reports[0], repeat_summary(reports, settings.k))
