"""The suite kinds of the metric strategies, built from the metric table.

Each metric strategy (:class:`~evalmark.strategies._metric.TokenF1`, ...) is the kind named
after its function with hyphens (``rouge_n`` → ``rouge-n``); the kind's options are
``threshold`` and the function's options with hyphens (``word_order`` → ``word-order``),
checked as :data:`~evalmark.metrics._table.FUNCTIONS` declares them. So a suite check
``{kind: rouge-n, n: 1, stemmer: porter}`` is the metric ``rouge1_stemmed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.metrics._option import Option
from evalmark.metrics._table import MetricFunction
from evalmark.strategies._kinds import Checker, StrategyKind, check_fraction
from evalmark.strategies._metric import (
    JsonMatch,
    LevenshteinSimilarity,
    MetricStrategy,
    RougeL,
    SquadExactMatch,
    TokenF1,
)
from evalmark.strategies._nlg import Gleu, Meteor
from evalmark.strategies._overlap import Bleu, Chrf, RougeLsum, RougeN

__all__ = ["METRIC_CHECKS", "METRIC_KINDS", "kind_name", "kind_option"]

METRIC_CHECKS: tuple[type[MetricStrategy], ...] = (
    TokenF1,
    SquadExactMatch,
    RougeL,
    RougeN,
    RougeLsum,
    Bleu,
    Chrf,
    LevenshteinSimilarity,
    JsonMatch,
    Gleu,
    Meteor,
)
"""The metric strategies, one per metric function of the table that scores text in [0, 1]."""


def kind_name(function: MetricFunction) -> str:
    """The suite kind of a metric function: its name with hyphens."""
    return function.name.replace("_", "-")


def kind_option(option: str) -> str:
    """The suite-file name of a function option: ``word_order`` → ``word-order``."""
    return option.replace("_", "-")


def _checker(option: Option) -> Checker:
    def check(value: Any) -> str | None:
        return option.problem(value)

    check.schema = option.schema()  # type: ignore[attr-defined]
    return check


def _kind(cls: type[MetricStrategy]) -> StrategyKind:
    function = cls.function
    assert function is not None
    fixed = cls is JsonMatch  # its threshold is 1.0: a match or not
    options: dict[str, Checker] = {} if fixed else {"threshold": check_fraction}
    options.update({kind_option(o.name): _checker(o) for o in function.options})

    def build(given: Mapping[str, Any], judge: Any) -> MetricStrategy:
        chosen = {
            o.name: given[kind_option(o.name)]
            for o in function.options
            if kind_option(o.name) in given
        }
        if fixed:
            return cls(name=given["name"], **chosen)
        return cls(given.get("threshold"), name=given["name"], **chosen)

    return StrategyKind(
        kind_name(function),
        f"{function.summary} against the expected output",
        build,
        options,
    )


METRIC_KINDS: tuple[StrategyKind, ...] = tuple(_kind(cls) for cls in METRIC_CHECKS)
"""The suite kinds of :data:`METRIC_CHECKS`, in the same order."""
