"""Sequences of hashable items (token lists) read as texts the edit-distance kernels compare,
and the shape of an alignment's blocks (RapidFuzz's ``Opcodes``).

Each distinct item gets a code point in order of first appearance (``_core.item_texts``), so
texts coded under one table have equal characters exactly where RapidFuzz's ``conv_sequence``
makes items equal: a one-character string is its code point, -1 stays -1, any other item is
its ``hash()``."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from evalmark.metrics._args import texts_arg
from evalmark.metrics._native import core as _core

Opcode = tuple[str, int, int, int, int]
"""One block of an alignment: ``(tag, expected_start, expected_end, actual_start, actual_end)``
with tag ``"equal" | "replace" | "insert" | "delete"`` (RapidFuzz's ``Opcode``)."""
EditSequence = str | Sequence[Hashable]
"""A text, or a sequence of hashable items (a list of tokens) compared item by item."""
_Result = TypeVar("_Result")


def pair(expected: object, actual: object) -> tuple[Any, Any]:
    """Two texts as they are, or two sequences (one may be a text) as texts of shared codes."""
    if isinstance(expected, str) and isinstance(actual, str):
        return expected, actual
    (left,), (right,) = _core.item_texts([expected], [actual], False, ("expected", "actual"), False)
    return left, right


def holds_sequences(batch: object) -> bool:
    """True for a list or tuple with a row that is not a ``str``."""
    return isinstance(batch, list | tuple) and not all(isinstance(x, str) for x in batch)


def _rows(batch: Any, names: str) -> list[Any]:
    if not isinstance(batch, list | tuple):
        raise TypeError(
            "rows that are sequences of items need both batches as lists or tuples, got "
            f"{type(batch).__name__} for {names}"
        )
    return list(batch)


def by_rows(kernel: Callable[..., _Result], expected: Any, actual: Any, *options: Any) -> _Result:
    """``kernel(expected, actual, *options)`` on two batches of texts; when the kernel refuses a
    row and the batches (lists or tuples) hold sequences of items, on each row's pair as texts
    of that pair's codes. Batches of texts pay nothing for the check."""
    try:
        return kernel(texts_arg(expected), texts_arg(actual), *options)
    except TypeError:
        if not (holds_sequences(expected) or holds_sequences(actual)):
            raise
    left, right = _core.item_texts(
        _rows(expected, "expected"), _rows(actual, "actual"), False, ("expected", "actual"), True
    )
    return kernel(left, right, *options)


def shared(queries: Any, choices: Any) -> tuple[Any, Any]:
    """Two batches as the kernels take them: as they are when they hold texts; with sequences
    of items among the rows, every row of both as a text under one set of codes (as ``cdist``
    compares all pairs)."""
    if not (holds_sequences(queries) or holds_sequences(choices)):
        return texts_arg(queries), texts_arg(choices)
    return _core.item_texts(
        _rows(queries, "queries"), _rows(choices, "choices"), True, ("queries", "choices"), True
    )
