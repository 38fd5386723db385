"""Streaming, exact per-metric statistics: count, mean, min, max and percentiles.

Scores arrive chunk by chunk. Each metric keeps its scores as a sorted table of distinct values
with their counts: text metrics take few distinct values (token F1 and ROUGE-L are ratios of
small integers, JSON match has two), so the table stays tiny however many rows stream by. A
metric whose values are mostly distinct (cosine) switches to keeping every score, 8 bytes a row.
The final figures are computed from the same canonical table either way, so they are exact and
do not depend on the chunk size, the order of chunks within equal multisets, or the mode.

Percentiles use numpy's default ("linear") definition, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

PERCENTILES: tuple[int, ...] = (5, 50, 95)

# Below this many distinct values the table is always kept; above it, the table is kept only
# while it is much smaller than the raw scores would be.
_SMALL_TABLE = 1 << 16


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """Statistics of one metric over the rows that have a score (``nulls`` rows have none)."""

    count: int
    nulls: int
    mean: float | None
    min: float | None
    p5: float | None
    p50: float | None
    p95: float | None
    max: float | None

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON-ready mapping, in a fixed key order."""
        return {
            "count": self.count,
            "nulls": self.nulls,
            "mean": self.mean,
            "min": self.min,
            "p5": self.p5,
            "p50": self.p50,
            "p95": self.p95,
            "max": self.max,
        }


@dataclass(frozen=True, slots=True)
class Summary:
    """The outcome of a scoring run: rows read, rows skipped, and per-metric statistics."""

    rows: int
    skipped: int
    metrics: Mapping[str, MetricSummary]
    # Rows over the length cap, in input order: where, id, expected_chars, actual_chars.
    too_long: tuple[Mapping[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The summary as a JSON-ready mapping (metrics in the order they were asked for);
        ``too_long`` appears when some rows were over the length cap."""
        out: dict[str, Any] = {
            "rows": self.rows,
            "skipped": self.skipped,
            "metrics": {name: stats.as_dict() for name, stats in self.metrics.items()},
        }
        if self.too_long:
            out["too_long"] = [dict(row) for row in self.too_long]
        return out


class Distribution:
    """The multiset of one metric's scores, kept compactly; see the module docstring."""

    def __init__(self) -> None:
        self._values: npt.NDArray[np.float64] = np.empty(0, dtype=np.float64)
        self._counts: npt.NDArray[np.int64] = np.empty(0, dtype=np.int64)
        self._raw: list[npt.NDArray[np.float64]] | None = None
        self._count = 0
        self.nulls = 0

    @property
    def count(self) -> int:
        """How many scores were added."""
        return self._count

    def add(self, scores: npt.ArrayLike, nulls: int = 0) -> None:
        """Add a chunk of scores (any numeric or bool array) and a number of rows without one."""
        chunk = np.asarray(scores).astype(np.float64, copy=False).ravel()
        self.nulls += nulls
        if chunk.size == 0:
            return
        self._count += int(chunk.size)
        if self._raw is not None:
            self._raw.append(chunk.copy())
            return
        # Sorting the chunk (numpy's vectorised sort) and merging two sorted tables costs far
        # less than looking each score up in the table.
        values, counts = np.unique(chunk, return_counts=True)
        self._values, self._counts = _merge(self._values, self._counts, values, counts)
        if self._values.size > _SMALL_TABLE and self._values.size * 4 > self._count:
            self._raw = [np.repeat(self._values, self._counts)]
            self._values = np.empty(0, dtype=np.float64)
            self._counts = np.empty(0, dtype=np.int64)

    def table(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """The sorted distinct values and their counts."""
        if self._raw is None:
            return self._values, self._counts
        values, counts = np.unique(np.concatenate(self._raw), return_counts=True)
        return values, counts.astype(np.int64)

    def summary(self) -> MetricSummary:
        """Exact count, mean, min, percentiles and max of the scores added so far."""
        if self._count == 0:
            return MetricSummary(0, self.nulls, None, None, None, None, None, None)
        values, counts = self.table()
        cumulative = np.cumsum(counts)
        p5, p50, p95 = (_percentile(values, cumulative, q) for q in PERCENTILES)
        return MetricSummary(
            count=self._count,
            nulls=self.nulls,
            mean=_exact_sum(values, counts) / self._count,
            min=float(values[0]),
            p5=p5,
            p50=p50,
            p95=p95,
            max=float(values[-1]),
        )


@dataclass(slots=True)
class SummaryBuilder:
    """Accumulates a :class:`Summary` over chunks, one :class:`Distribution` per metric."""

    names: tuple[str, ...]
    rows: int = 0
    skipped: int = 0
    distributions: dict[str, Distribution] = field(default_factory=dict)
    too_long: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.distributions = {name: Distribution() for name in self.names}

    def add(
        self,
        scores: Mapping[str, npt.NDArray[Any]],
        valid: Mapping[str, npt.NDArray[np.bool_] | None],
        keep: npt.NDArray[np.bool_] | None = None,
    ) -> None:
        """Add one chunk's score columns.

        ``valid[name]`` marks the rows that have a score (None: all do); ``keep`` selects the
        rows that count at all (None: all).
        """
        for name in self.names:
            column = scores[name] if keep is None else scores[name][keep]
            mask = valid.get(name)
            if mask is not None and keep is not None:
                mask = mask[keep]
            if mask is None:
                self.distributions[name].add(column)
            else:
                self.distributions[name].add(column[mask], nulls=int(mask.size - mask.sum()))

    def build(self) -> Summary:
        """The summary of everything added."""
        return Summary(
            self.rows,
            self.skipped,
            {name: self.distributions[name].summary() for name in self.names},
            tuple(self.too_long),
        )


def _merge(
    values_a: npt.NDArray[np.float64],
    counts_a: npt.NDArray[np.int64],
    values_b: npt.NDArray[np.float64],
    counts_b: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Two sorted tables of distinct values with their counts, as one."""
    counts_b = counts_b.astype(np.int64)
    if values_a.size == 0:
        return values_b, counts_b
    at = np.searchsorted(values_a, values_b)
    found = values_a[np.minimum(at, values_a.size - 1)] == values_b
    counts = counts_a.copy()
    counts[at[found]] += counts_b[found]  # distinct values: each slot is hit at most once
    new = ~found
    if not new.any():
        return values_a, counts
    return np.insert(values_a, at[new], values_b[new]), np.insert(counts, at[new], counts_b[new])


def _value_at(
    values: npt.NDArray[np.float64], cumulative: npt.NDArray[np.int64], index: int
) -> float:
    """The score at 0-based ``index`` of the sorted multiset."""
    return float(values[int(np.searchsorted(cumulative, index, side="right"))])


def _percentile(
    values: npt.NDArray[np.float64], cumulative: npt.NDArray[np.int64], q: float
) -> float:
    # numpy "linear": virtual index (n - 1) * q / 100, then the same lerp numpy uses.
    n = int(cumulative[-1])
    virtual = np.float64(n - 1) * (np.float64(q) / np.float64(100))
    below = math.floor(float(virtual))
    above = min(below + 1, n - 1)
    gamma = np.float64(virtual - below)
    low = np.float64(_value_at(values, cumulative, below))
    high = np.float64(_value_at(values, cumulative, above))
    diff = high - low
    result = high - diff * (np.float64(1) - gamma) if gamma >= 0.5 else low + diff * gamma
    return float(result)


def _exact_sum(values: npt.NDArray[np.float64], counts: npt.NDArray[np.int64]) -> float:
    """The correctly rounded sum of ``value * count`` over the table.

    Each product is split into four exactly representable parts (Veltkamp splitting of the
    value, 26-bit halves of the count), and ``math.fsum`` adds them without rounding error.
    """
    splitter = np.float64(134217729.0)  # 2**27 + 1
    scaled = values * splitter
    high = scaled - (scaled - values)
    low = values - high
    counts_high = (counts >> 26).astype(np.float64) * np.float64(1 << 26)
    counts_low = (counts & ((1 << 26) - 1)).astype(np.float64)
    parts: Iterable[npt.NDArray[np.float64]] = (
        high * counts_high,
        high * counts_low,
        low * counts_high,
        low * counts_low,
    )
    return math.fsum(np.concatenate(list(parts)).tolist())
