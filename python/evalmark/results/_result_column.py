"""``ResultColumn``: the results of one strategy over a batch of outputs, stored by column, so
that scoring many outputs builds no per-row Python objects until a row is read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.results._result import EvaluationResult

__all__ = ["ResultColumn", "place_column"]


class ResultColumn:
    """The results of one strategy over a batch of outputs, stored by column.

    Batch strategies fill ``scores`` and ``passed`` arrays with one kernel call and explain a
    row only when someone reads it (``column[i]``), so scoring 100,000 outputs builds no
    per-row Python objects. ``overrides`` maps a row index to a full result (an error or a row
    scored another way). A column built from a list of results keeps the list.
    """

    __slots__ = ("_build", "_cache", "_explain", "_metadata_rows", "errored", "passed", "scores")

    def __init__(
        self,
        scores: npt.NDArray[np.float64],
        passed: npt.NDArray[np.bool_],
        explain: Callable[[int, float, bool], str],
        overrides: Mapping[int, EvaluationResult] | None = None,
    ) -> None:
        if scores.shape != passed.shape or scores.ndim != 1:
            raise ValueError(
                f"scores and passed must be 1-D arrays of one length, got {scores.shape} and "
                f"{passed.shape}"
            )
        self.scores = np.asarray(scores, dtype=np.float64)
        self.passed = np.asarray(passed, dtype=np.bool_)
        self.errored = np.zeros(len(scores), dtype=np.bool_)
        self._explain = explain
        self._build: Callable[[int], EvaluationResult] | None = None
        self._metadata_rows: Callable[[], Iterable[EvaluationResult]] | None = None
        self._cache: dict[int, EvaluationResult] = {}
        if overrides:
            self.scores = self.scores.copy()
            self.passed = self.passed.copy()
            for index, result in overrides.items():
                self.scores[index] = result.score
                self.passed[index] = result.passed
                self.errored[index] = result.error is not None
                self._cache[index] = result

    @classmethod
    def from_results(cls, results: Sequence[EvaluationResult]) -> ResultColumn:
        """A column holding ``results`` as they are."""
        count = len(results)
        column = cls.__new__(cls)
        column.scores = np.fromiter((r.score for r in results), dtype=np.float64, count=count)
        column.passed = np.fromiter((r.passed for r in results), dtype=np.bool_, count=count)
        column.errored = np.fromiter(
            (r.error is not None for r in results), dtype=np.bool_, count=count
        )
        column._explain = _no_explanation
        column._build = None
        column._metadata_rows = None
        column._cache = dict(enumerate(results))
        return column

    @classmethod
    def lazy(
        cls,
        scores: npt.NDArray[np.float64],
        passed: npt.NDArray[np.bool_],
        errored: npt.NDArray[np.bool_],
        build: Callable[[int], EvaluationResult],
        metadata_rows: Callable[[], Iterable[EvaluationResult]] | None = None,
        explain: Callable[[int], str] | None = None,
    ) -> ResultColumn:
        """A column whose figures are known now and whose row ``i`` is ``build(i)``, called
        the first time the row is read (for rows with metadata, e.g. composites).
        ``metadata_rows`` yields the rows whose metadata figures such as guardrail decisions
        are read from (default: every row); ``explain(i)``, when given, is
        ``build(i).explanation`` made without building the row (see :meth:`explanations`), and
        says that a row not marked in ``errored`` carries nothing else a reader of text shows
        (no error, no judge prompt: see :meth:`plain`)."""
        column = cls(scores, passed, _no_explanation if explain is None else _RowText(explain))
        column.errored = np.asarray(errored, dtype=np.bool_)
        column._build = build
        column._metadata_rows = metadata_rows
        return column

    def __len__(self) -> int:
        return int(self.scores.shape[0])

    def __getitem__(self, index: int) -> EvaluationResult:
        result = self._cache.get(index)
        if result is not None:
            return result
        count = int(self.scores.shape[0])
        if not -count <= index < count:
            raise IndexError(f"result index {index} out of range for {count} rows")
        if index < 0:
            return self[index + count]
        if self._build is not None:
            result = self._build(index)
            self._cache[index] = result
            return result
        score = float(self.scores[index])
        passed = bool(self.passed[index])
        result = EvaluationResult._unchecked(
            passed, score, self._explain(index, score, passed), _EMPTY, None
        )
        self._cache[index] = result
        return result

    def __iter__(self) -> Iterator[EvaluationResult]:
        return (self[i] for i in range(len(self)))

    def explanations(self, rows: Iterable[int]) -> list[str]:
        """``[self[i].explanation for i in rows]`` (rows in range, not negative), read without
        building a result for a row not yet read."""
        cache, explain = self._cache, self._explain
        if self._build is not None and explain is _no_explanation:
            return [self[i].explanation for i in rows]
        scores, passed = self.scores, self.passed
        found = []
        for i in rows:
            result = cache.get(i)
            if result is None:
                found.append(explain(i, float(scores[i]), bool(passed[i])))
            else:
                found.append(result.explanation)
        return found

    def plain(self, rows: Iterable[int]) -> list[int]:
        """The positions in ``rows`` of the rows that hold only a score, a verdict and an
        explanation (no error, no metadata a report shows), without building them: a row not
        held as a full result, of a lazy column only when it was given ``explain=`` and the
        row is not errored."""
        cache = self._cache
        if self._build is None:
            return [k for k, i in enumerate(rows) if i not in cache]
        if not isinstance(self._explain, _RowText):
            return []
        errored = self.errored
        return [k for k, i in enumerate(rows) if i not in cache and not errored[i]]

    def results(self) -> list[EvaluationResult]:
        """Every row as an :class:`EvaluationResult`."""
        return list(self)

    def export(self) -> tuple[list[float], list[bool], list[str], dict[int, EvaluationResult]]:
        """Every row's score, verdict and explanation, and the rows held as full results
        (overrides, rows of a lazy column, rows already read) by index: the values
        ``column[i]`` has, read without building a result per row (for writers of every row;
        only the full results can carry metadata or an error)."""
        full = self._full_rows()
        scores: list[float] = self.scores.tolist()
        passed: list[bool] = self.passed.tolist()
        explain = self._explain
        many = getattr(explain, "many", None)
        if many is not None:
            explanations: list[str] = many(scores, passed)
        elif full:
            explanations = [
                "" if i in full else explain(i, score, ok)
                for i, (score, ok) in enumerate(zip(scores, passed, strict=True))
            ]
        else:
            explanations = list(map(explain, range(len(scores)), scores, passed))
        for index, result in full.items():
            scores[index] = result.score
            passed[index] = result.passed
            explanations[index] = result.explanation
        return scores, passed, explanations, full

    def figures(self) -> tuple[list[float], dict[int, EvaluationResult]]:
        """:meth:`export` without the verdicts and explanations: every row's score, and the
        rows held as full results by index."""
        full = self._full_rows()
        scores: list[float] = self.scores.tolist()
        for index, result in full.items():
            scores[index] = result.score
        return scores, full

    def _full_rows(self) -> dict[int, EvaluationResult]:
        return dict(enumerate(self)) if self._build is not None else dict(self._cache)

    def explanation_parts(self) -> tuple[str, tuple[str, str]] | None:
        """``(head, (tail if failed, tail if passed))`` when the explanation of each row not
        held as a full result is ``head``, ``format(score, ".3f")`` and its verdict's tail
        (a threshold metric's text, whose explainer says so by its ``around_score``), else
        None: for writers that template the text instead of building it per row."""
        parts = getattr(self._explain, "around_score", None)
        if type(parts) is not tuple or len(parts) != 2:
            return None
        head, tails = parts
        if type(head) is str and type(tails) is tuple and [type(t) for t in tails] == [str, str]:
            return head, tails
        return None

    def rows_with_metadata(self) -> Iterator[EvaluationResult]:
        """Every row that can carry metadata, in no particular order: all rows of a column
        made from results or built lazily, only the overridden rows of a metric column (its
        other rows have none). For figures read from metadata, e.g. guardrail decisions."""
        if self._metadata_rows is not None:
            return iter(list(self._metadata_rows()))
        if self._build is not None:
            return iter(self)
        return iter(list(self._cache.values()))


_EMPTY: Mapping[str, Any] = MappingProxyType({})


class _RowText:
    """A lazy column's explanation of row ``i`` alone, called as a column's explainer is."""

    __slots__ = ("text",)

    def __init__(self, text: Callable[[int], str]) -> None:
        self.text = text

    def __call__(self, index: int, score: float, passed: bool) -> str:
        return self.text(index)


def _no_explanation(index: int, score: float, passed: bool) -> str:
    return ""


def place_column(
    column: ResultColumn,
    total: int,
    positions: npt.NDArray[np.int64],
    extra: Mapping[int, EvaluationResult],
) -> ResultColumn:
    """``column`` (rows at ``positions`` of a batch of ``total`` rows) widened to ``total`` rows,
    the other rows taken from ``extra`` (e.g. error results of samples whose function raised)."""
    if len(positions) == total and not extra:
        return column
    inverse = np.full(total, -1, dtype=np.int64)
    inverse[positions] = np.arange(len(positions), dtype=np.int64)

    def build(index: int) -> EvaluationResult:
        return extra[index] if index in extra else column[int(inverse[index])]

    scores = np.zeros(total, dtype=np.float64)
    passed = np.zeros(total, dtype=np.bool_)
    errored = np.zeros(total, dtype=np.bool_)
    scores[positions] = column.scores
    passed[positions] = column.passed
    errored[positions] = column.errored
    for index, result in extra.items():
        scores[index] = result.score
        passed[index] = result.passed
        errored[index] = result.error is not None

    def metadata_rows() -> Iterator[EvaluationResult]:
        yield from column.rows_with_metadata()
        yield from extra.values()

    return ResultColumn.lazy(scores, passed, errored, build, metadata_rows)
