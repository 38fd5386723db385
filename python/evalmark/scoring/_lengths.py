"""Text lengths in a chunk: the ``max_chars`` cap and the rows the quadratic metrics will be
slow on (Levenshtein and the LCS of ROUGE-L take time n·m/64 for texts of n and m characters,
see docs/metrics.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.metrics import TextColumn
from evalmark.scoring._chunks import BadRow, Chunk, Columns
from evalmark.scoring._registry import MetricSpec

TOO_LONG = "text metrics"
"""``BadRow.metric`` of a row over the length cap: every text metric is null for it."""


def _code_points(data: Any, size: int) -> npt.NDArray[np.int64]:
    """The length in code points of each text (0 for a bad row's placeholder)."""
    if isinstance(data, list):
        return np.fromiter((len(t) if isinstance(t, str) else 0 for t in data), np.int64, size)
    if isinstance(data, TextColumn):  # UTF-8: every byte but a continuation byte starts one
        starts = np.zeros(data.data.size + 1, dtype=np.int64)
        np.cumsum((data.data & 0xC0) != 0x80, out=starts[1:])
        return starts[data.offsets[1:]] - starts[data.offsets[:-1]]
    import pyarrow.compute as pc

    lengths = pc.utf8_length(data).fill_null(0)
    return np.asarray(lengths.to_numpy(zero_copy_only=False), dtype=np.int64)


def apply_cap(
    chunk: Chunk, good: npt.NDArray[np.bool_], columns: Columns, max_chars: int
) -> tuple[npt.NDArray[np.bool_], list[BadRow], list[dict[str, Any]]]:
    """The good rows within the cap, a note per row over it, and those rows' descriptions."""
    e = _code_points(chunk.expected, chunk.size)
    a = _code_points(chunk.actual, chunk.size)
    over = good & ((e > max_chars) | (a > max_chars))
    notes: list[BadRow] = []
    described: list[dict[str, Any]] = []
    for index in np.flatnonzero(over).tolist():
        ne, na = int(e[index]), int(a[index])
        sides = [
            f"{name} has {n:,} characters"
            for name, n in ((columns.expected, ne), (columns.actual, na))
            if n > max_chars
        ]
        where = chunk.locate(index)
        named = where if chunk.ids is None else f"{where} (id {_row_id(chunk, index)!r})"
        blame = ", ".join(
            name for name, n in ((columns.expected, ne), (columns.actual, na)) if n > max_chars
        )
        problem = (
            f"{' and '.join(sides)}, more than --max-chars {max_chars:,}: not scored by the "
            "text metrics (their scores are null); raise --max-chars to score it"
        )
        notes.append(BadRow(index, named, blame, problem, metric=TOO_LONG))
        described.append(
            {
                "where": where,
                "id": _row_id(chunk, index),
                "expected_chars": ne,
                "actual_chars": na,
            }
        )
    return good & ~over, notes, described


LONG_ROW_WORDS = 200_000_000
"""A row whose quadratic metrics take more word operations (n·m/64) than this, about a second
or more, is announced before it is scored."""

# Word operations per second of the bit-parallel kernels on one core (measured, rounded down).
_WORDS_PER_SECOND = 2e8


def long_row_notes(
    chunk: Chunk, metrics: Sequence[MetricSpec], max_chars: int | None = None
) -> tuple[list[str], float]:
    """A line for each row the quadratic metrics will spend a second or more on (where it is,
    its lengths, and the time to expect), and the word operations those rows should take, an
    upper bound (rows over ``max_chars`` are not scored: not counted)."""
    slow = [spec.name for spec in metrics if spec.quadratic]
    if not slow or chunk.expected is None or chunk.actual is None:
        return [], 0.0
    e = _code_points(chunk.expected, chunk.size)
    a = _code_points(chunk.actual, chunk.size)
    words = e.astype(np.float64) * a.astype(np.float64) / 64
    if max_chars is not None:
        words[(e > max_chars) | (a > max_chars)] = 0
    notes = []
    long = np.flatnonzero(words > LONG_ROW_WORDS)
    for index in long.tolist():
        seconds = float(words[index]) * len(slow) / _WORDS_PER_SECOND
        notes.append(
            f"evalmark score: {chunk.locate(index)}: texts of {int(e[index]):,} and "
            f"{int(a[index]):,} characters; {', '.join(slow)} will take up to about "
            f"{_duration(seconds)} on one core (time grows as n*m/64); Ctrl-C stops, "
            "--max-chars N leaves such rows out"
        )
    return notes, float(words[long].sum()) * len(slow)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:,.0f} h"


def _row_id(chunk: Chunk, index: int) -> Any:
    """The row's id as written to the output (its row number when the file has none)."""
    if chunk.ids is None:
        return chunk.start + index
    value = chunk.ids[index]
    if isinstance(value, np.generic):
        return value.item()
    return value.as_py() if hasattr(value, "as_py") else value
