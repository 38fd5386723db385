"""Several targets per row: the rows of a batch flattened to pairs, and the pair scores folded
back to one score per row (the best one, as SQuAD and rouge-score's ``score_multi`` do)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeGuard, TypeVar

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError, TextTooLongError
from evalmark.metrics._args import FloatArray
from evalmark.metrics._column import TextColumn, Texts

Targets = str | Sequence[str]
"""A row's targets: one ``str``, or a sequence of them (the acceptable answers)."""
TargetBatch = Texts | Sequence[Targets]
IntArray = npt.NDArray[np.int64]
R = TypeVar("R")


def is_plain(expected: Any) -> TypeGuard[Texts]:
    """Whether a batch has one ``str`` target per row (no flattening needed). Only a list or a
    tuple can hold lists of targets; any other iterable goes to the kernel as it is."""
    if not isinstance(expected, list | tuple):
        return True
    kinds = set(map(type, expected))  # one pass in C; a subclass of str is a str too
    return kinds <= {str} or all(issubclass(kind, str) for kind in kinds)


def plain_first(expected: object, plain: Callable[[Any], R], multi: Callable[[], R]) -> R:
    """``plain(rows)`` when every row of ``expected`` is one ``str`` (``rows``: ``expected`` as
    the kernels take it), else ``multi()``. A list goes to ``plain`` at once: the kernel checks
    each row's type as it reads it, so the rows are not walked in Python first; when it refuses
    a row that holds a list, ``multi()`` runs."""
    rows = expected._parts() if isinstance(expected, TextColumn) else expected
    if type(expected) is list:
        try:
            return plain(rows)
        except TypeError:
            if is_plain(expected):
                raise
        return multi()
    return plain(rows) if is_plain(expected) else multi()


class Flat:
    """The (target, prediction) pairs of a batch whose rows may hold several targets.

    ``owners[k]`` is the row of pair k; rows are contiguous and in order, ``starts[i]`` is the
    first pair of row i.
    """

    __slots__ = ("actual", "expected", "owners", "starts")

    def __init__(self, expected: Sequence[Targets], actual: Sequence[str], name: str) -> None:
        if isinstance(actual, TextColumn):
            data, offsets = actual._parts()
            actual = [
                bytes(data[offsets[i] : offsets[i + 1]]).decode("utf-8", "surrogatepass")
                for i in range(len(actual))
            ]
        if len(expected) != len(actual):
            raise MetricInputError(
                f"{name}: expected has {len(expected)} rows and actual {len(actual)}; "
                "pass one entry of expected per prediction"
            )
        flat_expected: list[str] = []
        flat_actual: list[str] = []
        counts = np.zeros(len(expected), dtype=np.int64)
        for i, (targets, prediction) in enumerate(zip(expected, actual, strict=True)):
            if isinstance(targets, str):
                row: tuple[str, ...] = (targets,)
            elif isinstance(targets, list | tuple):
                row = tuple(targets)
            else:
                raise TypeError(
                    f"{name}: row {i} of expected is a {type(targets).__name__}; give a str "
                    "or a list of str"
                )
            if not row:
                raise MetricInputError(
                    f"{name}: row {i} of expected has no target; give at least one"
                )
            for target in row:
                if not isinstance(target, str):
                    raise TypeError(
                        f"{name}: row {i} of expected holds a {type(target).__name__}, not a str"
                    )
            if not isinstance(prediction, str):
                raise TypeError(
                    f"{name}: row {i} of actual is a {type(prediction).__name__}, not a str"
                )
            flat_expected.extend(row)
            flat_actual.extend([prediction] * len(row))
            counts[i] = len(row)
        self.expected = flat_expected
        self.actual = flat_actual
        self.starts: IntArray = np.zeros(len(expected), dtype=np.int64)
        if len(expected):
            self.starts[1:] = np.cumsum(counts)[:-1]
        self.owners: IntArray = np.repeat(np.arange(len(expected), dtype=np.int64), counts)

    @contextmanager
    def rows_named(self, name: str) -> Iterator[None]:
        """Re-raise a :class:`TextTooLongError` of the flattened pairs with the rows of the
        batch (a row is too long when its prediction or one of its targets is)."""
        try:
            yield
        except TextTooLongError as exc:
            rows = sorted({int(self.owners[r]) for r in exc.rows})
            shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
            error = TextTooLongError(
                f"{name}: {len(rows)} rows hold a text longer than max_chars (rows {shown}); "
                "drop or shorten them (their indices are in this error's `rows`), or raise "
                "max_chars"
            )
            error.rows = tuple(rows)
            raise error from None

    def best(self, scores: FloatArray) -> FloatArray:
        """The highest pair score of each row."""
        if not len(self.starts):
            return np.zeros(0, dtype=np.float64)
        best: FloatArray = np.maximum.reduceat(np.asarray(scores, dtype=np.float64), self.starts)
        return best

    def first_best(self, scores: FloatArray) -> IntArray:
        """The pair of each row with the highest score, the first of equals (``np.argmax``)."""
        if not len(self.starts):
            return np.zeros(0, dtype=np.int64)
        top = self.best(scores)[self.owners]
        hits = np.flatnonzero(np.asarray(scores) >= top)
        _, first = np.unique(self.owners[hits], return_index=True)
        chosen: IntArray = hits[first].astype(np.int64)
        return chosen


def score_multi(
    expected: Sequence[Targets],
    actual: Sequence[str],
    name: str,
    measure: str,
    kernel: Callable[[list[str], list[str], str], FloatArray],
) -> FloatArray:
    """rouge-score's ``score_multi``: each row's target of highest F-measure (the first of
    equals), and ``measure`` of that target."""
    flat = Flat(expected, actual, name)
    with flat.rows_named(name):
        f = kernel(flat.expected, flat.actual, "fmeasure")
    if measure == "fmeasure":
        return flat.best(f)
    chosen = flat.first_best(f)
    values: FloatArray = np.asarray(
        kernel([flat.expected[k] for k in chosen], [flat.actual[k] for k in chosen], measure),
        dtype=np.float64,
    )
    return values


def one_row(expected: Targets) -> list[Targets]:
    """A scalar call's targets as a batch of one row."""
    if isinstance(expected, str):
        return [expected]
    if not isinstance(expected, list | tuple):
        raise TypeError(
            f"expected must be str, got {type(expected).__name__} (or a list of str: several "
            "targets)"
        )
    return [list(expected)]
