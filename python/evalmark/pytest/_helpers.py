"""pytest helpers: declarative evaluation tests, one test per strategy or per sample.

These work with the evalmark pytest plugin (``--evalmark-report=DIR``, the ``scorer`` and
``samples`` fixtures); see :mod:`evalmark.pytest._plugin`. Reports made here are registered in
the run's suite report (:func:`evalmark.pytest.register` adds others).

Example::

    from evalmark.pytest._helpers import evaluation_test, per_sample
    from evalmark.strategies import ContainsFacts

    @evaluation_test(samples="golden/support/samples.yaml", function=answer,
                     strategy=ContainsFacts(), min_pass_rate=0.9)
    def test_support_answers():
        pass

    @per_sample("golden/support/samples.yaml", function=answer, strategy=ContainsFacts())
    def test_each_answer(sample):
        pass
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from evalmark._tracing._direct import watching_reports
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.pytest._registry import REGISTRY, answer_sources

if TYPE_CHECKING:
    from evalmark.report import Report
    from evalmark.samples._samples import Sample, Samples

__all__ = ["evaluation_test", "load_samples_from", "per_sample", "strategy_test"]

F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------- helpers


def _near(source: Any, folder: Path | None) -> Any:
    """A relative path that does not exist from the current directory, tried from ``folder``."""
    if not isinstance(source, str | Path) or folder is None:
        return source
    path = Path(source)
    if path.is_absolute() or path.exists() or not (folder / path).exists():
        return source
    return folder / path


def load_samples_from(
    source: Any, *, tags: Iterable[str] | None = None, near: Path | None = None
) -> Samples:
    """Samples from a path, a list of paths (merged in order) or a ``Samples`` value. Relative
    paths start from the current directory (the rootdir, as pytest usually runs), else from
    ``near`` (the test file's folder)."""
    from evalmark.samples._samples import Samples, load_samples

    if isinstance(source, Samples):
        return source.filter_by_tags(*tags) if tags else source
    sources = [source] if isinstance(source, str | Path) else list(source)
    return load_samples(*(_near(s, near) for s in sources), tags=list(tags) if tags else None)


def _folder_of(test: Callable[..., Any]) -> Path | None:
    try:
        return Path(inspect.getfile(test)).resolve().parent
    except (TypeError, OSError):
        return None


def _strategies(strategy: Any) -> tuple[Any, ...]:
    if strategy is None:
        raise TypeError("give the check(s) to apply with strategy=...")
    if isinstance(strategy, list | tuple):
        if not strategy:
            raise TypeError("strategy=[] holds no check; give at least one")
        return tuple(strategy)
    return (strategy,)


def _check_min_pass_rate(min_pass_rate: float | None) -> float | None:
    if min_pass_rate is None:
        return None
    from evalmark.gates._rules import check_fraction

    return check_fraction(min_pass_rate, "min_pass_rate (the share of cases that passed)")


def _without(signature: inspect.Signature, *names: str) -> inspect.Signature:
    return signature.replace(
        parameters=[p for p in signature.parameters.values() if p.name not in names]
    )


def _run_and_gate(
    samples: Samples,
    function: Callable[..., Any],
    strategies: Sequence[Any],
    min_pass_rate: float | None,
    concurrency: int,
    name: str | None = None,
) -> Report:
    from evalmark.engine._scorer import Scorer

    # Named after the test (not the function under test), so a failed gate names the test.
    test = name or REGISTRY.current_test
    with watching_reports(None):  # registered below, with its gate
        report = Scorer(concurrency=concurrency).evaluate(samples, function, *strategies, name=test)
    sources = answer_sources(function, samples)
    if min_pass_rate is None:
        REGISTRY.add(report, name, sources, samples)
        return report
    from evalmark.gates._rules import pass_rate_gate, require_pass_rate

    # The gate's condition travels on the registered report (the session's summary shows it).
    report = report.with_gates([pass_rate_gate(report, min_pass_rate)])
    REGISTRY.add(report, name, sources, samples)
    __tracebackhide__ = True
    require_pass_rate(report, min_pass_rate)
    return report


# --------------------------------------------------------------------------- decorators


def evaluation_test(
    *,
    samples: Any,
    function: Callable[..., Any],
    strategy: Any,
    min_pass_rate: float | None = 1.0,
    tags: Iterable[str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> Callable[[F], F]:
    """Turn a test into an evaluation: run ``function`` on ``samples``, apply ``strategy`` (one
    or a list), register the report, and fail when its pass rate (the share of cases whose
    every check passed, a fraction) is below ``min_pass_rate`` (default 1.0; None only
    records). The body may be empty; when it takes a ``report`` argument it receives the
    report for further assertions.
    """
    strategies = _strategies(strategy)
    threshold = _check_min_pass_rate(min_pass_rate)
    tag_list = list(tags) if tags else None

    def decorate(test: F) -> F:
        signature = inspect.signature(test)
        wants_report = "report" in signature.parameters

        @functools.wraps(test)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            loaded = load_samples_from(samples, tags=tag_list, near=_folder_of(test))
            report = _run_and_gate(loaded, function, strategies, threshold, concurrency)
            if wants_report:
                kwargs["report"] = report
            return test(*args, **kwargs)

        wrapper.__signature__ = _without(signature, "report")  # type: ignore[attr-defined]
        # where the samples are, for --evalmark-github's annotations
        files = _sample_files(samples, _folder_of(test))
        wrapper.evalmark_sample_files = files  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def _sample_files(source: Any, folder: Path | None) -> list[Path]:
    """The sample files a source names (relative ones resolved as the test will)."""
    sources = [source] if isinstance(source, str | Path) else source
    if not isinstance(sources, list | tuple):
        return []
    return [Path(_near(s, folder)) for s in sources if isinstance(s, str | Path)]


def _id_of_strategy(strategy: Any) -> str:
    from evalmark.strategies._base import strategy_name

    return strategy_name(strategy)


def strategy_test(*strategies: Any) -> pytest.MarkDecorator:
    """Run the test once per strategy, as separate tests with the strategy in their ids; the
    test receives it as its ``strategy`` argument."""
    if not strategies:
        raise TypeError("strategy_test needs at least one strategy")
    return pytest.mark.parametrize(
        "strategy", strategies, ids=[_id_of_strategy(s) for s in strategies]
    )


def per_sample(
    samples: Any,
    *,
    tags: Iterable[str] | None = None,
    function: Callable[..., Any] | None = None,
    strategy: Any = None,
) -> Callable[[F], F]:
    """One test per sample, with the sample's name as its id; the test receives ``sample``.

    With ``function`` and ``strategy`` each test also evaluates its sample, registers the report
    (so the suite report shows each sample's score and verdict) and fails when any check fails;
    a test that also takes ``report`` receives it.
    """
    if (function is None) != (strategy is None):
        raise TypeError("per_sample: give both function= and strategy=, or neither")
    strategies = _strategies(strategy) if strategy is not None else ()
    tag_list = list(tags) if tags else None

    def decorate(test: F) -> F:
        items: list[Sample] = list(load_samples_from(samples, tags=tag_list, near=_folder_of(test)))
        parametrize = pytest.mark.parametrize("sample", items, ids=[s.name for s in items])
        if function is None:
            return parametrize(test)  # type: ignore[no-any-return]
        signature = inspect.signature(test)
        wants_report = "report" in signature.parameters
        takes_sample = "sample" in signature.parameters
        if not takes_sample:  # pytest must still pass the sample to the wrapper
            signature = signature.replace(
                parameters=[
                    *signature.parameters.values(),
                    inspect.Parameter("sample", inspect.Parameter.KEYWORD_ONLY),
                ]
            )

        @functools.wraps(test)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            from evalmark.samples._samples import Samples

            sample = kwargs["sample"] if takes_sample else kwargs.pop("sample")
            report = _run_and_gate(Samples((sample,)), function, strategies, 1.0, 1)
            if wants_report:
                kwargs["report"] = report
            return test(*args, **kwargs)

        wrapper.__signature__ = _without(signature, "report")  # type: ignore[attr-defined]
        return parametrize(wrapper)  # type: ignore[no-any-return]

    return decorate
