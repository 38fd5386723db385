"""The metrics `evalmark score` knows, by the name used on the command line and in output columns.

The names are those of the metric table (:data:`evalmark.metrics.METRICS`): each
:class:`MetricSpec` is one table entry seen by the scorer, with which inputs it reads (two
text columns, or two vector columns), the type of its score column, and its batch kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark._files.problems import suggest
from evalmark.metrics._table import METRICS as _TABLE
from evalmark.metrics._table import Inputs, Metric, ScoreType


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One scoring metric: an entry of the metric table, with its column name (the metric's
    name), inputs, score type and batch kernel."""

    metric: Metric

    @property
    def name(self) -> str:
        """The metric's name: the ``--metrics`` name and the output column."""
        return self.metric.name

    @property
    def inputs(self) -> Inputs:
        """``"text"`` (two text columns) or ``"vector"`` (two embedding columns)."""
        return self.metric.function.inputs

    @property
    def dtype(self) -> ScoreType:
        """The type of the score column."""
        return self.metric.function.dtype

    @property
    def description(self) -> str:
        """One line for ``evalmark score --help``."""
        return self.metric.summary

    @property
    def blame(self) -> Literal["expected", "actual", "both"]:
        """The input whose content a kernel rejection is about."""
        return self.metric.function.blame

    @property
    def quadratic(self) -> bool:
        """Whether the kernel takes time n·m/64 for texts of n and m characters."""
        return self.metric.function.quadratic

    def compute(self, expected: Any, actual: Any, workers: int | None) -> npt.NDArray[Any]:
        """Score a batch; the result has this metric's dtype and one entry per pair."""
        return np.asarray(self.metric.batch(expected, actual, workers=workers), dtype=self.dtype)


METRICS: dict[str, MetricSpec] = {name: MetricSpec(metric) for name, metric in _TABLE.items()}

# Names that no longer exist, and what to write instead (an error, not an alias).
_RENAMED = {"levenshtein": "levenshtein_similarity"}


def parse_metrics(text: str | list[str] | tuple[str, ...]) -> tuple[MetricSpec, ...]:
    """Resolve ``"token_f1,rouge_l"`` (or a list of names) to metric specs, in the given order.

    Raises ``ValueError`` naming an unknown or repeated metric and listing the known ones.
    """
    names = text.split(",") if isinstance(text, str) else list(text)
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise ValueError(f"no metric given; choose from: {', '.join(METRICS)}")
    specs: list[MetricSpec] = []
    for name in names:
        if name in _RENAMED:
            raise ValueError(f"metric {name!r} is now called {_RENAMED[name]!r}")
        if name not in METRICS:
            meant = suggest(name, METRICS)
            hint = f" did you mean {meant!r}?" if meant else ""
            raise ValueError(f"unknown metric {name!r};{hint} choose from: {', '.join(METRICS)}")
        if any(spec.name == name for spec in specs):
            raise ValueError(f"metric {name!r} is given twice")
        specs.append(METRICS[name])
    return tuple(specs)
