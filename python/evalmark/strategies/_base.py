"""What a strategy is, how it is named, and how outputs and expectations are read.

A strategy is anything with ``evaluate(sample, output) -> EvaluationResult``, or a plain
function ``(sample, output) -> EvaluationResult | bool``. Strategies that are pure metrics also
have ``evaluate_batch(samples, outputs) -> ResultColumn``; the scorer calls it once over all
outputs. Strategies that call models may have ``aevaluate`` (async) for concurrency.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.samples._samples import Sample

__all__ = [
    "AsyncStrategy",
    "BatchStrategy",
    "FunctionStrategy",
    "Strategy",
    "StrategyError",
    "as_strategy",
    "case_context",
    "case_expected_output",
    "expected_texts",
    "option_names",
    "output_text",
    "strategy_name",
]


@runtime_checkable
class Strategy(Protocol):
    """Anything that judges one output of one sample."""

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """The verdict on ``output`` for ``sample``."""
        ...


@runtime_checkable
class BatchStrategy(Strategy, Protocol):
    """A strategy that can also judge many outputs in one call (one kernel call).

    An optional attribute ``batch = False`` tells the scorer not to use the batch path (a
    composite whose members are not all batch strategies sets it).
    """

    def evaluate_batch(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        """The verdicts on ``outputs[i]`` for ``samples[i]``, in order."""
        ...


@runtime_checkable
class AsyncStrategy(Strategy, Protocol):
    """A strategy with an async twin of ``evaluate`` (judges calling models)."""

    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Async :meth:`evaluate`."""
        ...


class FunctionStrategy:
    """A plain function ``(sample, output) -> EvaluationResult | bool`` used as a strategy."""

    def __init__(self, function: Callable[[Sample, Any], Any], name: str | None = None) -> None:
        self.function = function
        self.name: str = name or str(getattr(function, "__name__", type(function).__name__))

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Call the function and turn a bool into a result."""
        value = self.function(sample, output)
        if inspect.isawaitable(value):
            raise TypeError(
                f"strategy {self.name!r} is async; the scorer awaits it, call aevaluate instead"
            )
        return _as_result(value, self.name)

    @recorded
    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Call the function, awaiting it when it is async."""
        value = self.function(sample, output)
        if inspect.isawaitable(value):
            value = await value
        return _as_result(value, self.name)


def _as_result(value: object, name: str) -> EvaluationResult:
    if isinstance(value, EvaluationResult):
        return value
    if isinstance(value, bool):
        return EvaluationResult.from_bool(value, "" if value else f"{name} returned False")
    raise TypeError(
        f"strategy {name!r} returned {type(value).__name__}; return an EvaluationResult or a bool"
    )


def as_strategy(strategy: object) -> Strategy:
    """``strategy`` itself if it has ``evaluate``; a plain function wrapped; else TypeError."""
    if hasattr(strategy, "evaluate"):
        return strategy
    if callable(strategy):
        return FunctionStrategy(strategy)
    raise TypeError(
        f"a strategy needs an evaluate(sample, output) method or must be a function "
        f"(sample, output) -> EvaluationResult | bool; got {type(strategy).__name__}"
    )


def strategy_name(strategy: object) -> str:
    """The name a strategy has in reports: its ``name`` attribute, else its class name."""
    name = getattr(strategy, "name", None)
    if isinstance(name, str) and name:
        return name
    return type(strategy).__name__


_NOT_OPTIONS = frozenset({"name", "workers", "threshold", "options"})


def _shown(value: object) -> str | None:
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list) and all(
        v is None or isinstance(v, bool | int | float | str) for v in value
    ):
        inner = ", ".join(_shown(v) or "?" for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if callable(value) or isinstance(value, dict | set | frozenset):
        return None
    return type(value).__name__


def _options(strategy: object) -> dict[str, str]:
    try:
        attributes = dict(vars(strategy))
    except TypeError:  # a class with __slots__
        attributes = {
            slot: getattr(strategy, slot)
            for cls in type(strategy).__mro__
            for slot in getattr(cls, "__slots__", ())
            if hasattr(strategy, slot)
        }
    shown = {}
    for key in sorted(attributes):
        if key.startswith("_") or key in _NOT_OPTIONS:
            continue
        text = _shown(attributes[key])
        if text is not None:
            shown[key] = text
    return shown


def option_names(strategies: Sequence[object]) -> list[str]:
    """Names for instances of one class that would share their default name, made of the
    class and what tells them apart, stable across runs: ``SemanticSimilarity(0.85)`` and
    ``SemanticSimilarity(0.75)``, or ``RougeN(0.5, n=2)`` beside ``RougeN(0.5, n=1)``. The
    threshold comes first, unnamed; then, by name, the options whose values differ between
    the instances (objects shown by their class name; the name, the worker count and callables
    are never shown). Instances that differ in nothing get equal names."""
    options = [_options(s) for s in strategies]
    differing = sorted(
        {k for o in options for k in o if len({other.get(k) for other in options}) > 1}
    )
    names = []
    for strategy, shown in zip(strategies, options, strict=True):
        parts = []
        threshold = getattr(strategy, "threshold", None)
        if isinstance(threshold, int | float) and not isinstance(threshold, bool):
            parts.append(f"{threshold:g}")
        parts += [f"{k}={shown.get(k, 'None')}" for k in differing]
        names.append(f"{type(strategy).__name__}({', '.join(parts)})")
    return names


def output_text(output: Any, *, strategy: str, sample: Sample) -> str:
    """The text of an output: a str, a TestCase's ``actual_output``, a reply's ``text``, or JSON
    for dicts and lists. Raises :class:`StrategyError` naming the strategy and sample."""
    if isinstance(output, str):
        return output
    actual = getattr(output, "actual_output", None)
    if isinstance(actual, str):
        return actual
    text = getattr(output, "text", None)
    if isinstance(text, str):
        return text
    if isinstance(output, dict | list | tuple | int | float) and not isinstance(output, bool):
        return json.dumps(output, ensure_ascii=False, sort_keys=True)
    raise StrategyError(
        f"{strategy}: sample '{sample.name}': cannot read text from an output of type "
        f"{type(output).__name__}; return a str, a TestCase or a JSON-like value"
    )


def expected_texts(sample: Sample, *, strategy: str, output: Any = None) -> tuple[str, ...]:
    """The acceptable answers: the test case's ``expected_output`` when ``output`` is a
    TestCase that carries one, else the sample's ``expected_output``, else its
    ``expected_outputs``. StrategyError naming the missing field when there is none."""
    own = case_expected_output(sample, output)
    if own is not None:
        return (own,)
    if sample.expected_outputs:
        return sample.expected_outputs
    raise StrategyError(
        f"{strategy}: sample '{sample.name}' has no expected output; give expected-output "
        "(or a non-empty expected-outputs list)"
    )


def case_expected_output(sample: Sample, output: Any) -> str | None:
    """The expected answer of one case, read from one place: the test case's
    ``expected_output`` when ``output`` is a TestCase that carries one (the test case is
    filled from the sample), else the sample's."""
    own = getattr(output, "expected_output", None)
    if isinstance(own, str) and not isinstance(output, Sample):
        return own
    return sample.expected_output


def case_context(sample: Sample, output: Any) -> tuple[str, ...]:
    """The ground-truth context of one case: the test case's ``context`` when ``output`` is
    a TestCase that carries one, else the sample's."""
    own = getattr(output, "context", None)
    if isinstance(own, tuple) and own and not isinstance(output, Sample):
        return own
    return sample.context
