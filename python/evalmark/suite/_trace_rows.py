"""The rows of a chunked trace evaluation's report, kept on disk.

A trace file of a million traces gives a report of a million rows; held as results, output
texts and usage they took about 1.7 KB a trace. :class:`RowSpool` writes each scored chunk's
rows (every check's result, the answer's text, the usage) to an unnamed temporary file, one
pickled block a chunk, and keeps in memory only what the figures and the gate's counts read
without a row: each row's name and tags, and every check's score, verdict and error flag as
arrays (a few bytes a row and check). :meth:`RowSpool.report` is the report of every chunk:
its figures come from the arrays; a row (``report.row(i)``, a writer reading every row) is
read back from the file when asked, a chunk at a time, and not kept.
"""

from __future__ import annotations

import pickle
import tempfile
import weakref
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np

from evalmark.report._model import Report
from evalmark.report._values import SampleUsage, StoredValues
from evalmark.results._result import EvaluationResult
from evalmark.results._result_column import ResultColumn

__all__ = ["RowSpool"]

# (output texts, usage by row within the chunk, results by check)
_Chunk = tuple[list[str | None], dict[int, SampleUsage], dict[str, list[EvaluationResult]]]


class RowSpool:
    """The rows of the chunk reports of one evaluation, added in order (:meth:`add`), and the
    report of them all (:meth:`report`)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the spool)
        self._closed = weakref.finalize(self, self._file.close)
        self._starts = array("q")  # the first row of each chunk
        self._offsets = array("q", [0])  # where each chunk's block starts in the file
        self._held: dict[int, _Chunk] = {}  # chunks that do not pickle, kept in memory
        self._loaded: tuple[int, _Chunk] | None = None  # the chunk read last
        self._names: list[str] = []
        self._tags: list[tuple[str, ...]] = []
        self._tag_values: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple each
        self._figures: dict[str, tuple[array[float], array[int], array[int]]] = {}
        self._used = array("q")  # the rows that recorded usage, ascending
        self._skipped: list[Any] = []

    def __len__(self) -> int:
        return len(self._names)

    def add(self, report: Report) -> None:
        """Spool the rows of the next chunk's report."""
        start = len(self._names)
        outputs = [report.output(i) for i in range(len(report))]
        usage: dict[int, SampleUsage] = {}
        for row in range(len(report)):
            found = report.usage(row)
            if found is not None:
                usage[row] = found
                self._used.append(start + row)
        results: dict[str, list[EvaluationResult]] = {}
        for strategy in report.strategies:
            column = report.column(strategy)
            rows = results[strategy] = [column[i] for i in range(len(column))]
            scores, passed, errored = self._figures.setdefault(
                strategy, (array("d"), array("b"), array("b"))
            )
            scores.extend(r.score for r in rows)
            passed.extend(r.passed for r in rows)
            errored.extend(r.error is not None for r in rows)
        chunk = len(self._starts)
        self._starts.append(start)
        try:
            block = pickle.dumps((outputs, usage, results), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):  # e.g. a lambda in metadata
            block = b""
            self._held[chunk] = (outputs, usage, results)
        self._file.seek(self._offsets[-1])
        self._file.write(block)
        self._offsets.append(self._offsets[-1] + len(block))
        self._names += report.sample_names
        self._tags += [self._tag_values.setdefault(t, t) for t in report.sample_tags]
        self._skipped += report.skipped

    def _chunk(self, row: int) -> tuple[int, _Chunk]:
        index = bisect_right(self._starts, row) - 1
        loaded = self._loaded
        if loaded is None or loaded[0] != index:
            held = self._held.get(index)
            if held is None:
                start, end = self._offsets[index], self._offsets[index + 1]
                self._file.seek(start)
                held = pickle.loads(self._file.read(end - start))  # our own file, written above
            loaded = self._loaded = (index, held)
        return self._starts[index], loaded[1]

    def output(self, row: int) -> str | None:
        """The output text of ``row``."""
        start, (outputs, _, _) = self._chunk(row)
        return outputs[row - start]

    def usage(self, row: int) -> SampleUsage | None:
        """The usage ``row`` recorded, or None."""
        start, (_, usage, _) = self._chunk(row)
        return usage.get(row - start)

    def result(self, strategy: str, row: int) -> EvaluationResult:
        """The result of check ``strategy`` on ``row``."""
        start, (_, _, results) = self._chunk(row)
        return results[strategy][row - start]

    def report(self, name: str, metadata: Mapping[str, Any]) -> Report:
        """The report of every row spooled: figures in memory, rows read from the file."""
        columns: dict[str, ResultColumn] = {}
        for strategy, (scores, passed, errored) in self._figures.items():
            columns[strategy] = _SpooledColumn.of(self, strategy, scores, passed, errored)
        return Report(
            name=name,
            sample_names=self._names,
            sample_tags=self._tags,
            columns=columns,
            outputs=_Outputs(self),
            usage=_Usage(self),
            skipped=self._skipped,
            metadata=metadata,
        )


class _SpooledColumn(ResultColumn):
    """A check's results: the figures as arrays, each row read from the spool when asked and
    let go after (a column that kept them would grow back to every row once all are read)."""

    __slots__ = ("_spool", "_strategy")

    _spool: RowSpool
    _strategy: str

    @classmethod
    def of(
        cls,
        spool: RowSpool,
        strategy: str,
        scores: array[float],
        passed: array[int],
        errored: array[int],
    ) -> _SpooledColumn:
        """The column of ``strategy`` over ``spool``'s rows."""
        column = cls(
            np.array(scores, dtype=np.float64),
            np.array(passed, dtype=np.bool_),
            None,  # no explainer: a row is read from the spool to explain it
        )
        column.errored = np.array(errored, dtype=np.bool_)
        column._spool, column._strategy = spool, strategy
        column._build = column._read
        column._metadata_rows = column.__iter__
        return column

    def _read(self, index: int) -> EvaluationResult:
        return self._spool.result(self._strategy, index)

    def __getitem__(self, index: int) -> EvaluationResult:
        count = len(self)
        if not -count <= index < count:
            raise IndexError(f"result index {index} out of range for {count} rows")
        return self._read(index + count if index < 0 else index)


class _Outputs(StoredValues, Sequence[str | None]):
    """The output texts of the spooled rows, read when asked."""

    def __init__(self, spool: RowSpool) -> None:
        self._spool = spool

    def __len__(self) -> int:
        return len(self._spool)

    @overload
    def __getitem__(self, index: int) -> str | None: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str | None]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str | None] | None:
        if isinstance(index, slice):
            return [self._spool.output(i) for i in range(*index.indices(len(self)))]
        return self._spool.output(range(len(self))[index])


class _Usage(StoredValues, Mapping[int, SampleUsage]):
    """The usage of the spooled rows that recorded one, by row, read when asked."""

    def __init__(self, spool: RowSpool) -> None:
        self._spool = spool

    def __getitem__(self, row: int) -> SampleUsage:
        found = self._spool.usage(row) if 0 <= row < len(self._spool) else None
        if found is None:
            raise KeyError(row)
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self._spool._used)

    def __len__(self) -> int:
        return len(self._spool._used)
