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
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evalmark.data._samples import Sample, Samples
from evalmark.engine._repeats import repeat_summary, with_repeats
from evalmark.engine._run import Run
from evalmark.engine._settings import Progress, RunSettings
from evalmark.report._model import Report
from evalmark.strategies._base import as_strategy, strategy_name

__all__ = ["run_samples"]

_DEFAULT = RunSettings()


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


def _named_checks(checks: Sequence[object]) -> list[tuple[str, Any]]:
    if not checks:
        raise ValueError(
            "give at least one strategy, e.g. Scorer().evaluate(samples, fn, ExactMatch())"
        )
    named = [(strategy_name(s), s) for s in (as_strategy(x) for x in checks)]
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
    samples: Samples | Iterable[Sample],
    checks: Sequence[object],
    *,
    application: Callable[..., Any] | None = None,
    outputs: Sequence[Any] | None = None,
    settings: RunSettings = _DEFAULT,
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    failed: Mapping[int, BaseException] | None = None,
) -> Report:
    """Run ``samples`` through ``application`` (or take their precomputed ``outputs``, one per
    sample in order: then nothing is called and ``repeats`` does not apply) and every check,
    and return the report, named ``name`` (default: the application's ``__name__``, else
    "evaluation"). With ``outputs``, ``failed`` maps sample indexes to the exceptions that
    stand for their missing outputs (each such case is an error of every check). See the
    module's text for the steps."""
    items, names = _as_samples(samples)
    named = _named_checks(checks)
    if outputs is None and not callable(application):
        raise TypeError(f"the function under test must be callable, got {application!r}")
    if outputs is not None and application is not None:
        raise TypeError("give the application or its outputs, not both")
    if outputs is not None and len(outputs) != len(items):
        raise ValueError(f"got {len(outputs)} outputs for {len(items)} samples; give one each")
    report_name = name or str(getattr(application, "__name__", "evaluation"))
    with ThreadPoolExecutor(settings.concurrency, thread_name_prefix="evalmark") as pool:
        if application is None:
            given = list(outputs or ())
            run = Run(settings, pool)
            errors = dict(sorted((failed or {}).items()))
            return await run.score(items, names, given, errors, named, report_name, metadata)
        reports = []
        repeated = settings.repeats > 1
        for repeat in range(settings.repeats):
            run = Run(settings, pool, repeat if repeated else None, progress)
            answers, failed = await run.call_all(items, application)
            reports.append(
                await run.score(items, names, answers, failed, named, report_name, metadata)
            )
    if not repeated:
        return reports[0]
    return with_repeats(reports[0], repeat_summary(reports, settings.k))
