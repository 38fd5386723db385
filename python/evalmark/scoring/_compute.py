"""Score one chunk with the batch kernels, isolating the rows a kernel rejects.

Two kinds of trouble are kept apart. A bad row (unreadable, a field missing, null or of the
wrong type) is handled by the ``on_error`` policy. A row that was read fine but whose values
one metric cannot score (json_match when `expected` is not JSON) gets a null for that metric
only, and a note: a file mixing prose and JSON answers can be scored with every metric at once.

A kernel call covers the whole chunk. When a kernel rejects its batch (``MetricInputError``,
for example invalid JSON in `expected`), the batch is split in halves, and halves of at most
:data:`ROW_BY_ROW` rows are scored one row at a time, until the rejected rows are found: a
handful of extra calls for one bad row, some microseconds a row when most rows are bad
(json_match over prose), and every other row keeps the score the whole-batch call would have
given it, since each pair is scored independently.

A length cap (``max_chars``, ``evalmark score --max-chars``) keeps rows whose expected or
actual text has more code points out of the text metrics: the row is written with null text
scores and reported (``TOO_LONG`` notes, see lengths.py), never truncated. Vector metrics
still score it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from evalmark.errors import ScoringInputError
from evalmark.metrics import TextColumn
from evalmark.scoring._chunks import BadRow, Chunk, Columns
from evalmark.scoring._lengths import apply_cap
from evalmark.scoring._registry import MetricSpec

ROW_BY_ROW = 2048
OnError = Literal["fail", "skip", "null"]
ON_ERROR_CHOICES: tuple[OnError, ...] = ("fail", "skip", "null")


@dataclass(slots=True)
class ScoredChunk:
    """A chunk's scores: one full-length column per metric, and which rows to write.

    ``valid[name]`` is None when every kept row has a score; otherwise False marks a null.
    ``keep`` is None when every row is written (``--on-error skip`` drops bad rows).
    ``bad`` lists the bad rows, ``notes`` the scores a metric could not give (a row over the
    length cap is one note, with ``metric`` ``TOO_LONG``); ``too_long`` describes those
    rows for the summary.
    """

    start: int
    size: int
    ids: Any
    scores: dict[str, npt.NDArray[Any]]
    valid: dict[str, npt.NDArray[np.bool_] | None]
    keep: npt.NDArray[np.bool_] | None = None
    bad: list[BadRow] = field(default_factory=list)
    notes: list[BadRow] = field(default_factory=list)
    too_long: list[dict[str, Any]] = field(default_factory=list)

    @property
    def kept(self) -> int:
        """Number of rows written."""
        return self.size if self.keep is None else int(self.keep.sum())


class _Inputs:
    """The good rows' inputs of one metric kind, sliceable into kernel-ready batches."""

    def __init__(self, expected: Any, actual: Any) -> None:
        self.expected = expected
        self.actual = actual
        self.size = len(expected)
        self._whole: tuple[Any, Any] | None = None

    def batch(self, lo: int, hi: int) -> tuple[Any, Any]:
        if lo == 0 and hi == self.size:
            return self.whole()
        return _kernel_ready(_slice(self.expected, lo, hi)), _kernel_ready(
            _slice(self.actual, lo, hi)
        )

    def rows(self, lo: int, hi: int) -> Iterator[tuple[Any, Any]]:
        """Each row of ``lo .. hi - 1`` as a one-row batch of plain Python values."""
        if isinstance(self.expected, np.ndarray):
            for i in range(lo, hi):
                yield self.expected[i : i + 1], self.actual[i : i + 1]
            return
        expected, actual = _slice(self.expected, lo, hi), _slice(self.actual, lo, hi)
        if isinstance(expected, TextColumn):
            expected, actual = _strings(expected), _strings(actual)
        elif not isinstance(expected, list):
            expected, actual = expected.to_pylist(), actual.to_pylist()
        for e, a in zip(expected, actual, strict=True):
            yield [e], [a]

    def whole(self) -> tuple[Any, Any]:
        if self._whole is None:
            self._whole = (_kernel_ready(self.expected), _kernel_ready(self.actual))
        return self._whole


def _slice(data: Any, lo: int, hi: int) -> Any:
    if isinstance(data, list | np.ndarray):
        return data[lo:hi]
    if isinstance(data, TextColumn):  # from the JSONL reader's fast path
        return TextColumn(data.data, data.offsets[lo : hi + 1])
    return data.slice(lo, hi - lo)  # a pyarrow array


def _strings(column: TextColumn) -> list[str]:
    """A TextColumn's rows as Python strings."""
    data, offsets = column.data, column.offsets.tolist()
    return [data[offsets[i] : offsets[i + 1]].tobytes().decode() for i in range(len(column))]


def _kernel_ready(data: Any) -> Any:
    """Arrow string arrays become a TextColumn (their buffers, no Python string per row).

    Lists of str go to the kernels as they are: packing them into a TextColumn first costs
    more, in Python, than the kernels spend reading the strings themselves.
    """
    if isinstance(data, np.ndarray | list | TextColumn):
        return data
    return TextColumn.from_arrow(data)


def _take(data: Any, good: npt.NDArray[np.bool_], good_index: npt.NDArray[np.intp]) -> Any:
    if isinstance(data, np.ndarray):
        return data[good]
    if isinstance(data, list):
        return [data[i] for i in good_index.tolist()]
    if isinstance(data, TextColumn):
        texts = _strings(data)
        return [texts[i] for i in good_index.tolist()]
    import pyarrow as pa

    return data.filter(pa.array(good))


def score_chunk(
    chunk: Chunk,
    metrics: Sequence[MetricSpec],
    columns: Columns,
    *,
    workers: int | None = None,
    on_error: OnError = "fail",
    source: str = "",
    max_chars: int | None = None,
) -> ScoredChunk:
    """Score every good row of ``chunk`` with each metric, applying the bad-row policy.

    With ``on_error="fail"`` the first bad row (in input order) raises
    :class:`ScoringInputError` naming ``source``, the row's place and the field. A metric
    that cannot score a row's values leaves a null and a note (see the module docstring), as
    does a row with a text of more than ``max_chars`` code points, for every text metric.
    """
    bad = sorted(chunk.bad.values(), key=lambda row: row.index)
    if on_error == "fail" and bad:
        first = bad[0]
        raise ScoringInputError(
            source,
            first.where,
            first.field,
            first.problem,
            "fix the row, or pass --on-error skip or --on-error null",
        )
    good = np.ones(chunk.size, dtype=bool)
    for index in chunk.bad:
        good[index] = False
    text_good = good
    long_notes: list[BadRow] = []
    too_long: list[dict[str, Any]] = []
    if max_chars is not None and any(spec.inputs == "text" for spec in metrics):
        text_good, long_notes, too_long = apply_cap(chunk, good, columns, max_chars)
    inputs: dict[str, tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp], _Inputs]] = {}
    if any(spec.inputs == "text" for spec in metrics):
        inputs["text"] = _good_inputs(text_good, chunk.expected, chunk.actual)
    if any(spec.inputs == "vector" for spec in metrics):
        inputs["vector"] = _good_inputs(good, chunk.expected_vectors, chunk.actual_vectors)

    scores: dict[str, npt.NDArray[Any]] = {}
    valid: dict[str, npt.NDArray[np.bool_] | None] = {}
    kernel_bad: list[BadRow] = list(long_notes)
    for spec in metrics:
        scored, good_index, batch = inputs[spec.inputs]
        values, ok, rejected = _score_isolating(spec, batch, workers)
        full = np.zeros(chunk.size, dtype=spec.dtype)
        full[good_index] = values
        scores[spec.name] = full
        row_ok = scored.copy()
        row_ok[good_index[~ok]] = False
        valid[spec.name] = None if row_ok.all() else row_ok
        for position, message in rejected:
            index = int(good_index[position])
            kernel_bad.append(
                BadRow(index, chunk.locate(index), _blame(spec, columns), message, metric=spec.name)
            )

    keep = good.copy() if on_error == "skip" and bad else None
    kernel_bad.sort(key=lambda row: row.index)
    return ScoredChunk(
        chunk.start, chunk.size, chunk.ids, scores, valid, keep, bad, kernel_bad, too_long
    )


def _good_inputs(
    good: npt.NDArray[np.bool_], expected: Any, actual: Any
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp], _Inputs]:
    """The rows ``good`` selects, their indices, and their inputs."""
    good_index = np.flatnonzero(good)
    if good_index.size != good.size:
        expected, actual = _take(expected, good, good_index), _take(actual, good, good_index)
    return good, good_index, _Inputs(expected, actual)


def _blame(spec: MetricSpec, columns: Columns) -> str:
    if spec.inputs == "vector":
        return f"{columns.expected_vector} or {columns.actual_vector}"
    if spec.blame == "expected":
        return columns.expected
    if spec.blame == "actual":
        return columns.actual
    return f"{columns.expected} or {columns.actual}"


def _score_isolating(
    spec: MetricSpec, inputs: _Inputs, workers: int | None
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_], list[tuple[int, str]]]:
    """Scores, an ok mask, and the (position, message) of every row the kernel rejected."""
    from evalmark.errors import MetricInputError

    values = np.zeros(inputs.size, dtype=spec.dtype)
    ok = np.ones(inputs.size, dtype=bool)
    rejected: list[tuple[int, str]] = []
    if inputs.size == 0:
        return values, ok, rejected
    pending = [(0, inputs.size)]
    while pending:
        lo, hi = pending.pop()
        expected, actual = inputs.batch(lo, hi)
        try:
            values[lo:hi] = spec.compute(expected, actual, workers)
        except MetricInputError:
            if hi - lo > ROW_BY_ROW:
                mid = (lo + hi) // 2
                pending += [(mid, hi), (lo, mid)]  # the lower half is tried first
                continue
            for index, (one_expected, one_actual) in enumerate(inputs.rows(lo, hi), start=lo):
                try:
                    values[index] = spec.compute(one_expected, one_actual, 1)[0]
                except MetricInputError as exc:
                    ok[index] = False
                    rejected.append((index, _strip_row(str(exc))))
    return values, ok, sorted(rejected)


def _strip_row(message: str) -> str:
    """Drop the kernel's batch-relative row number: the caller names the real place."""
    import re

    return re.sub(r"^(at )?row \d+( of)?:?\s*", "", message).strip() or message
