"""The two kinds of entry of the metric table (:mod:`evalmark.metrics._table`): a metric
function with its options, and a metric name that fixes some of them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from evalmark.metrics._option import Option

Inputs = Literal["text", "vector"]
ScoreType = Literal["float64", "int64", "bool"]


@dataclass(frozen=True, slots=True)
class MetricFunction:
    """A public metric function, by ``name`` (its batch form is ``<name>_batch``, the name of
    its kernel in ``evalmark._core`` too) and ``home``, the module of :mod:`evalmark.metrics`
    that defines both; its options (keywords with defaults; ``workers`` and ``max_chars``
    aside), the range of its scores and the reference it equals."""

    name: str
    home: str  # the module of evalmark.metrics that defines the functions
    options: tuple[Option, ...]
    summary: str
    score_range: str
    reference: str
    inputs: Inputs = "text"
    dtype: ScoreType = "float64"
    # Time n·m/64 for texts of n and m characters (LCS and edit distance); else linear.
    quadratic: bool = False
    # The input a kernel rejection is about (json_match only rejects `expected`).
    blame: Literal["expected", "actual", "both"] = "both"
    # "many": `expected` may hold a list of targets per row, which the function scores as one
    # row (the best gold answer, rouge-score's score_multi, multi-reference BLEU); the
    # strategies then pass a sample's expected outputs together.
    targets: Literal["one", "many"] = "one"

    @property
    def scalar(self) -> Callable[..., Any]:
        """The public scalar function (imported on first use: the table itself is light)."""
        function: Callable[..., Any] = getattr(self._module(), self.name)
        return function

    @property
    def batch(self) -> Callable[..., Any]:
        """The public batch function, ``<name>_batch``."""
        function: Callable[..., Any] = getattr(self._module(), self.kernel)
        return function

    @property
    def kernel(self) -> str:
        """The name of the batch function of ``evalmark._core`` this function calls (and of its
        public batch form)."""
        return f"{self.name}_batch"

    def _module(self) -> Any:
        return importlib.import_module(f"evalmark.metrics.{self.home}")

    @property
    def defaults(self) -> dict[str, object]:
        """Every option's default, by name."""
        return {option.name: option.default for option in self.options}

    def option(self, name: str) -> Option:
        """The option called ``name``; KeyError naming the accepted ones."""
        for option in self.options:
            if option.name == name:
                return option
        accepted = ", ".join(o.name for o in self.options) or "none"
        raise KeyError(f"{self.name} has no option {name!r}; its options: {accepted}")

    def check(self, options: Mapping[str, object], owner: str) -> dict[str, object]:
        """``options`` checked against this function's: TypeError for an unknown name,
        ValueError for a refused value, each naming ``owner``."""
        checked: dict[str, object] = {}
        for key, value in options.items():
            try:
                option = self.option(key)
            except KeyError as exc:
                raise TypeError(f"{owner}: {exc.args[0]}") from None
            if option.problem(value) is not None:
                raise ValueError(f"{owner}: {key} must be {option.wanted()}, got {value!r}")
            checked[key] = value
        return checked


@dataclass(frozen=True, slots=True)
class Metric:
    """A name for one number: ``function`` with the options of ``settings`` fixed, and the
    reference it equals (``"—"`` when none does)."""

    name: str
    function: MetricFunction
    settings: Mapping[str, object] = field(default_factory=dict)
    summary: str = ""
    reference: str = ""

    def __post_init__(self) -> None:
        self.function.check(self.settings, self.name)
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        if not self.summary:
            object.__setattr__(self, "summary", self.function.summary)
        if not self.reference:
            object.__setattr__(self, "reference", self.function.reference)

    @property
    def options(self) -> dict[str, object]:
        """Every option of the function as this name sets it (defaults, then ``settings``)."""
        return {**self.function.defaults, **self.settings}

    def batch(self, expected: Any, actual: Any, *, workers: int | None = None) -> Any:
        """This metric for each pair of a batch, through the public batch function."""
        return self.function.batch(expected, actual, workers=workers, **self.settings)
