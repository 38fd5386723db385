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


Explainer = Callable[[int, float, bool], str]


class ResultColumn:
    """The results of one strategy over a batch of outputs, stored by column.

    Batch strategies fill ``scores`` and ``passed`` arrays with one kernel call and explain a
    row only when someone reads it (``column[i]``), so scoring 100,000 outputs builds no
    per-row Python objects. ``overrides`` maps a row index to a full result (an error or a row
    scored another way). A column built from a list of results keeps the list.

    ``explain(i, score, passed)`` writes row ``i``'s explanation; an explainer with a
    ``many(scores, passed)`` method writes the explanations of many rows in one call (given
    the rows' scores and verdicts, in order), one with ``many_rows(rows, scores, passed)``
    likewise given the rows' indices too. ``explain=None`` says there is no explainer: a
    row's explanation is read from the row itself (the rows a subclass or :meth:`lazy`
    builds, or the results a column holds). Explanations, once written, are kept.
    """

    __slots__ = (
        "_build",
        "_cache",
        "_explain",
        "_metadata_rows",
        "_texts",
        "errored",
        "passed",
        "scores",
    )

    def __init__(
        self,
        scores: npt.NDArray[np.float64],
        passed: npt.NDArray[np.bool_],
        explain: Explainer | None,
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
        self._texts: dict[int, str] = {}
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
        column._explain = None
        column._build = None
        column._metadata_rows = None
        column._cache = dict(enumerate(results))
        column._texts = {}
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
        ``build(i).explanation`` made without building the row (see :meth:`explanations`; an
        ``explain`` with a ``many_rows(rows)`` method writes many rows' texts in one call), and
        says that a row not marked in ``errored`` carries nothing else a reader of text shows
        (no error, no judge prompt: see :meth:`plain`)."""
        if explain is None:
            column = cls(scores, passed, None)
        else:
            wrap = _RowsText if callable(getattr(explain, "many_rows", None)) else _RowText
            column = cls(scores, passed, wrap(explain))
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
        text = self._texts.get(index)
        if text is None:
            text = "" if self._explain is None else self._explain(index, score, passed)
        result = EvaluationResult._unchecked(passed, score, text, _EMPTY, None)
        self._cache[index] = result
        return result

    def __iter__(self) -> Iterator[EvaluationResult]:
        return (self[i] for i in range(len(self)))

    def explanations(self, rows: Iterable[int], *, keep: bool = True) -> list[str]:
        """``[self[i].explanation for i in rows]`` (rows in range, not negative), read without
        building a result for a row not yet read: the explanations not yet written are
        written together (in one call of the explainer's ``many`` when it has one) and kept,
        so a row is explained once however often it is read. ``keep=False`` leaves the texts
        written now off the column (a writer that reads each row once, e.g. a report)."""
        rows = rows if isinstance(rows, list) else list(rows)
        explain = self._explain
        if explain is None:
            return [self[i].explanation for i in rows]
        texts, cache = self._texts, self._cache
        if not keep and not texts and not cache:
            return self._write(explain, rows)
        found = texts if keep else {}
        wanted = [i for i in rows if i not in texts]
        if wanted:
            held = [i for i in wanted if i in cache]
            if held:
                for i in held:
                    found[i] = cache[i].explanation
                wanted = [i for i in wanted if i not in cache]
            found.update(zip(wanted, self._write(explain, wanted), strict=True))
        if found is texts or not found:
            return list(map(texts.__getitem__, rows))
        return [texts[i] if i in texts else found[i] for i in rows]

    def _write(self, explain: Explainer, rows: list[int]) -> list[str]:
        """The explanations of ``rows`` (none held as full results) from the explainer."""
        if not rows:
            return []
        at = np.asarray(rows, dtype=np.int64)
        scores: list[float] = self.scores[at].tolist()
        passed: list[bool] = self.passed[at].tolist()
        many_rows = getattr(explain, "many_rows", None)
        if many_rows is not None:
            texts: list[str] = many_rows(rows, scores, passed)
            return texts
        many = getattr(explain, "many", None)
        if many is not None:
            found: list[str] = many(scores, passed)
            return found
        return list(map(explain, rows, scores, passed))

    def plain(self, rows: Iterable[int]) -> list[int]:
        """The positions in ``rows`` of the rows that hold only a score, a verdict and an
        explanation (no error, no metadata a report shows), without building them: a row not
        held as a full result, of a lazy column only when it was given ``explain=`` and the
        row is not errored; none of a column without an explainer (its rows are read)."""
        cache = self._cache
        if self._explain is None:
            return []  # every row is read whole
        rows = rows if isinstance(rows, list) else list(rows)
        if self._build is None:
            if not cache:
                return list(range(len(rows)))
            return [k for k, i in enumerate(rows) if i not in cache]
        if not isinstance(self._explain, _RowText):
            return []
        fine: list[int] = np.flatnonzero(~self.errored[np.asarray(rows, dtype=np.int64)]).tolist()
        return [k for k in fine if rows[k] not in cache] if cache else fine

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
        count = len(scores)
        if self._explain is None:
            explanations = [""] * count
        else:
            explanations = self.explanations(range(count)) if full else self._every_text()
        for index, result in full.items():
            scores[index] = result.score
            passed[index] = result.passed
            explanations[index] = result.explanation
        return scores, passed, explanations, full

    def _every_text(self) -> list[str]:
        """Every row's explanation from the explainer (no row is held as a full result)."""
        explain, count = self._explain, len(self)
        if explain is None or len(self._texts) == count:
            return self.explanations(range(count))
        texts = self._write(explain, list(range(count)))
        self._texts = dict(enumerate(texts))
        return texts

    def figures(self) -> tuple[list[float], dict[int, EvaluationResult]]:
        """:meth:`export` without the verdicts and explanations: every row's score, and the
        rows held as full results by index."""
        full = self._full_rows()
        scores: list[float] = self.scores.tolist()
        for index, result in full.items():
            scores[index] = result.score
        return scores, full

    def _full_rows(self) -> dict[int, EvaluationResult]:
        cache = self._cache
        if self._build is None and (self._explain is not None or len(cache) == len(self)):
            return dict(cache)
        return dict(enumerate(self))  # rows built, or only a row itself knows its text

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


class _RowsText(_RowText):
    """A lazy column's explainer whose text function also writes many rows at once."""

    __slots__ = ()

    def many_rows(self, rows: list[int], scores: list[float], passed: list[bool]) -> list[str]:
        """The explanations of ``rows``, in order."""
        found: list[str] = self.text.many_rows(rows)  # type: ignore[attr-defined]
        return found
