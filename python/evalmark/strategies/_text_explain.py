"""Whole-column explanations of the text checks (ExactMatch, Contains, ContainsFacts): the same
text a row's own explainer writes, written for many rows in a few list-wide calls (the quoting
of many texts in one native call, ``fill_each``, whose ``%.NR`` slot is ``repr`` of a text cut
to N characters)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import not_

import numpy as np
import numpy.typing as npt

from evalmark.metrics._native import core as _core
from evalmark.strategies._text_pairs import TextPairs

fill_each = _core.fill_each  # a module name, so tests can take the Python path

__all__ = ["FactsText", "FixedFailure", "PairFailure", "quoted"]

# Below this many rows a column's rows are explained one at a time: a whole-column pass would
# prepare texts for rows nobody asked for.
_FEW = 64


def quoted(texts: list[str], limit: int = 80) -> list[str]:
    """``excerpt(text, limit)`` of each text: quoted with ``repr``, cut to ``limit`` characters
    with an ellipsis."""
    found = _each(f"%.{limit}R", [texts])
    if found is not None:
        return found
    cut = limit - 1
    return list(map(repr, [t if len(t) <= limit else t[:cut] + "…" for t in texts]))


def _each(form: str, columns: list[list[str]]) -> list[str] | None:
    """Each row of ``form`` (one line form of :mod:`evalmark.report._render.fill`'s kind, no
    line break) written by the native extension; None when a text holds a lone surrogate."""
    if len(columns[0]) < _FEW:
        return None
    found: list[str] | None = fill_each([form], [0] * len(columns[0]), columns)
    return found


def _spread(passed: list[bool], texts: list[str]) -> list[str]:
    """``""`` for each passing row and the next of ``texts`` for each failing one."""
    out = np.full(len(passed), "", dtype=object)
    out[~np.asarray(passed, dtype=np.bool_)] = texts
    found: list[str] = out.tolist()
    return found


class PairFailure:
    """A failing row's explanation of ExactMatch (``contains=False``) or of Contains with the
    sample's expected outputs (``contains=True``); a passing row has none."""

    __slots__ = ("_contains", "_pairs")

    def __init__(self, pairs: TextPairs, *, contains: bool) -> None:
        self._pairs = pairs
        self._contains = contains

    def _texts(self, rows: list[int]) -> tuple[list[str], list[str], list[int]]:
        """Each row's output, first wanted text and count of wanted texts."""
        pairs = self._pairs
        if pairs.single:
            take = pairs.actual.__getitem__
            return (
                list(map(take, rows)),
                list(map(pairs.expected.__getitem__, rows)),
                [1] * len(rows),
            )
        at = np.asarray(rows, dtype=np.int64)
        first: list[int] = np.searchsorted(pairs.owners, at).tolist()
        end: list[int] = np.searchsorted(pairs.owners, at + 1).tolist()
        actual = list(map(pairs.actual.__getitem__, first))
        wanted = list(map(pairs.expected.__getitem__, first))
        return actual, wanted, [e - f for f, e in zip(first, end, strict=True)]

    def _failures(self, rows: list[int]) -> list[str]:
        # one comprehension, no list per step: the texts' reprs are most of the work
        actual, wanted, counts = self._texts(rows)
        if self._contains:
            found = _each("output does not contain %.80R", [wanted])
            if found is not None:
                return found
            return [
                f"output does not contain {w if len(w) <= 80 else w[:79] + '…'!r}" for w in wanted
            ]
        texts = _each("output %.80R does not match the expected %.80R", [actual, wanted])
        if texts is None:
            texts = [
                f"output {a if len(a) <= 80 else a[:79] + '…'!r} does not match the expected "
                f"{w if len(w) <= 80 else w[:79] + '…'!r}"
                for a, w in zip(actual, wanted, strict=True)
            ]
        if max(counts, default=1) > 1:  # one pass in C, not a generator over the rows
            texts = [
                text + f" (nor {n - 1} other accepted answers)" if n > 1 else text
                for text, n in zip(texts, counts, strict=True)
            ]
        return texts

    def __call__(self, index: int, score: float, passed: bool) -> str:
        """The explanation of row ``index``."""
        return "" if passed else self._failures([index])[0]

    def many_rows(self, rows: list[int], scores: list[float], passed: list[bool]) -> list[str]:
        """The explanations of ``rows``, with these scores and verdicts, in order."""
        failing = list(compress(rows, map(not_, passed)))
        texts = self._failures(failing)
        return texts if len(failing) == len(rows) else _spread(passed, texts)


class FixedFailure:
    """One text for every failing row (Contains with its own ``text``); none for a passing
    row."""

    __slots__ = ("_texts",)

    def __init__(self, text: str) -> None:
        self._texts = (text, "")

    def __call__(self, index: int, score: float, passed: bool) -> str:
        """The explanation of row ``index``."""
        return self._texts[passed]

    def many(self, scores: list[float], passed: list[bool]) -> list[str]:
        """The explanations of rows with these verdicts, in order."""
        return list(map(self._texts.__getitem__, passed))


class FactsText:
    """ContainsFacts' explanation of a row by its index: the error's text for a row that could
    not be read (``bad``), else which of its facts were found. ``found`` marks each of
    ``flat_facts`` (row by row, ``starts[r]:ends[r]`` being row r's) found in its output."""

    __slots__ = ("_bad", "_counts", "_ends", "_facts", "_found", "_row", "_starts")

    def __init__(
        self,
        flat_facts: list[str],
        found: npt.NDArray[np.bool_],
        starts: npt.NDArray[np.int64],
        ends: npt.NDArray[np.int64],
        bad: dict[int, str],
        row: Callable[[int], str],
    ) -> None:
        self._facts = flat_facts
        self._found = found
        self._starts = starts
        self._ends = ends
        self._counts = ends - starts
        self._bad = bad
        self._row = row

    def __call__(self, index: int) -> str:
        """The explanation of row ``index``."""
        return self._row(index)

    def many_rows(self, rows: list[int]) -> list[str]:
        """The explanations of ``rows``, in order."""
        if len(rows) < _FEW:
            return list(map(self._row, rows))
        at = np.asarray(rows, dtype=np.int64)
        starts, ends = self._starts[at], self._ends[at]
        # the missing facts of these rows, in row order, and where each row's run begins
        missing_of = ~self._found
        absent = np.concatenate([[0], np.cumsum(missing_of, dtype=np.int64)])
        per_row = absent[ends] - absent[starts]
        # k-th missing fact of the selection: its flat index is found by ranking ~found
        flat_missing = np.flatnonzero(missing_of)
        picks = flat_missing[absent[np.repeat(starts, per_row)] + _ranks(per_row)]
        listed = quoted(list(map(self._facts.__getitem__, picks.tolist())), 60)
        bounds: list[int] = np.concatenate([[0], np.cumsum(per_row)]).tolist()
        counts: list[int] = self._counts[at].tolist()
        gone: list[int] = per_row.tolist()
        present = {n: f"all {n} facts present" for n in set(counts)}
        out = list(map(present.__getitem__, counts))  # then the rows missing a fact
        for k in np.flatnonzero(per_row).tolist():
            joined = "; ".join(listed[bounds[k] : bounds[k + 1]])
            out[k] = f"{gone[k]} of {counts[k]} expected facts missing: {joined}"
        bad = self._bad
        if bad:  # a row that could not be read: the error's text
            for k, row in enumerate(rows):
                if row in bad:
                    out[k] = bad[row]
        return out


def _ranks(sizes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``0..size-1`` for each size, concatenated."""
    total = int(sizes.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.arange(total, dtype=np.int64) - offsets
