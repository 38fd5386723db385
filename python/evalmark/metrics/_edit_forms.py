"""Sequences of hashable items (token lists) read as texts the edit-distance kernels compare,
and the shape of an alignment's blocks (RapidFuzz's ``Opcodes``)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from evalmark.errors import MetricInputError
from evalmark.metrics._args import texts_arg

Opcode = tuple[str, int, int, int, int]
"""One block of an alignment: ``(tag, expected_start, expected_end, actual_start, actual_end)``
with tag ``"equal" | "replace" | "insert" | "delete"`` (RapidFuzz's ``Opcode``)."""
EditSequence = str | Sequence[Hashable]
"""A text, or a sequence of hashable items (a list of tokens) compared item by item."""

_SURROGATES = 0xD800
_SURROGATE_SPAN = 0x800
_MAX_ITEMS = 0x110000 - _SURROGATE_SPAN


def _key(item: Hashable) -> int:
    # Items are equal when RapidFuzz's conv_sequence makes them equal: a one-character string
    # is its code point, -1 stays -1, any other item is its hash().
    if isinstance(item, str) and len(item) == 1:
        return ord(item)
    if isinstance(item, int) and item == -1:
        return -1
    try:
        return hash(item)
    except TypeError:
        raise TypeError(
            f"the items of a sequence must be hashable, got {type(item).__name__}"
        ) from None


class ItemCodes:
    """Gives each distinct item a code point, in order of first appearance (the surrogates
    skipped), so sequences compared under one ``ItemCodes`` become texts with equal characters
    exactly where RapidFuzz sees equal items."""

    __slots__ = ("_ids",)

    def __init__(self) -> None:
        self._ids: dict[int, int] = {}

    def text(self, sequence: object, name: str = "a text") -> str:
        """``sequence`` as a text: one character per item."""
        keys: list[int]
        if isinstance(sequence, str):
            keys = list(map(ord, sequence))
        elif isinstance(sequence, Sequence):
            # Plain strings first (a token list's usual items), without a call per item.
            keys = [
                (ord(x) if len(x) == 1 else hash(x)) if type(x) is str else _key(x)
                for x in sequence
            ]
        else:
            raise TypeError(
                f"{name} must be a str or a sequence of hashable items (a list or tuple), "
                f"got {type(sequence).__name__}"
            )
        ids = self._ids
        # The next free id for a new key: the count of keys before it.
        codes = [ids.setdefault(k, len(ids)) for k in keys]
        if len(ids) > _SURROGATES:
            if len(ids) > _MAX_ITEMS:
                raise MetricInputError(
                    f"more than {_MAX_ITEMS} distinct items in one comparison; "
                    "split the input or map the items to fewer values"
                )
            codes = [c + _SURROGATE_SPAN if c >= _SURROGATES else c for c in codes]
        return "".join(map(chr, codes))


def pair(expected: object, actual: object, row: str = "") -> tuple[Any, Any]:
    """Two texts as they are, or two sequences (one may be a text) as texts of shared codes;
    ``row`` (``"row 3 of "``) leads the names in an error."""
    if isinstance(expected, str) and isinstance(actual, str):
        return expected, actual
    codes = ItemCodes()
    return codes.text(expected, f"{row}expected"), codes.text(actual, f"{row}actual")


def holds_sequences(batch: object) -> bool:
    """True for a list or tuple with a row that is not a ``str``."""
    return isinstance(batch, list | tuple) and not all(isinstance(x, str) for x in batch)


def pairs(expected: Any, actual: Any) -> tuple[Any, Any]:
    """Two batches as the kernels take them: as they are when they hold texts; with sequences of
    items among the rows (in a list or tuple), each row's pair as texts of that pair's codes."""
    if not (holds_sequences(expected) or holds_sequences(actual)):
        return texts_arg(expected), texts_arg(actual)
    if not isinstance(expected, list | tuple) or not isinstance(actual, list | tuple):
        raise TypeError(
            "rows that are sequences of items need both batches as lists or tuples, got "
            f"{type(expected).__name__} and {type(actual).__name__}"
        )
    if len(expected) != len(actual):
        raise MetricInputError(
            f"expected batches of equal length, got {len(expected)} and {len(actual)}"
        )
    encoded = [
        pair(e, a, f"row {i} of ") for i, (e, a) in enumerate(zip(expected, actual, strict=True))
    ]
    return [e for e, _ in encoded], [a for _, a in encoded]


def shared(queries: Any, choices: Any) -> tuple[Any, Any]:
    """Two batches as the kernels take them: as they are when they hold texts; with sequences
    of items among the rows, every row of both as a text under one set of codes (as ``cdist``
    compares all pairs)."""
    if not (holds_sequences(queries) or holds_sequences(choices)):
        return texts_arg(queries), texts_arg(choices)
    codes = ItemCodes()

    def rows(batch: Any, name: str) -> list[str]:
        if not isinstance(batch, list | tuple):
            raise TypeError(
                "rows that are sequences of items need both batches as lists or tuples, got "
                f"{type(batch).__name__} for {name}"
            )
        return [codes.text(row, f"row {i} of {name}") for i, row in enumerate(batch)]

    return rows(queries, "queries"), rows(choices, "choices")
