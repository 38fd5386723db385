"""One strategy's results in the JSON report, as the column writer templates them.

Each row's result is one of a few shapes (:data:`FORM`, :data:`TEXT`, :data:`BARE`, one more
when it passed, or :data:`WHOLE`), and every shape's text is a fragment with two ``%``
slots, filled from two values per row:

* ``FORM``: a threshold metric's explanation, written by the template itself around the
  score with three decimals, so no explanation text is built per row: the score's JSON
  text and its three decimals;
* ``TEXT``: the score's JSON text and the encoded explanation (its quotes in the fragment);
* ``BARE`` (an empty explanation is left out): the score's JSON text and nothing;
* ``WHOLE`` (a result with metadata or an error): nothing and the result encoded whole by
  msgspec, laid out at its depth.
"""

from __future__ import annotations

from operator import not_
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.report._document import result_entry
from evalmark.report._render.json_layout import Layout, numbers, texts, three_decimals
from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = ["BARE", "FORM", "SHAPES", "TEXT", "WHOLE", "ColumnText", "column_text"]

FORM, TEXT, BARE, WHOLE = 0, 2, 4, 6  # FORM, TEXT and BARE: + 1 when the result passed
SHAPES = 7

Said = tuple[bytes, tuple[bytes, bytes]]  # encoded text before the score, after it by verdict


class ColumnText:
    """One strategy's results, ready for the row templates: each row's shape (``shapes``),
    its two slot values (``first``, ``second``), verdict, error flag and score."""

    __slots__ = ("_fragments", "errored", "first", "passed", "scores", "second", "shapes")

    def __init__(
        self,
        fragments: dict[int, bytes],
        shapes: npt.NDArray[np.int64],
        slots: tuple[list[bytes], list[Any]],
        passed: npt.NDArray[np.bool_],
        errored: npt.NDArray[np.bool_],
        scores: list[float],
    ) -> None:
        self._fragments = fragments
        self.shapes = shapes
        self.first, self.second = slots
        self.passed = passed
        self.errored = errored
        self.scores = scores

    def fragment(self, shape: int) -> bytes:
        """The template of a result of ``shape`` (``%`` in its fixed text doubled)."""
        return self._fragments[shape]


def column_text(column: ResultColumn, layout: Layout, lead: bytes, depth: int) -> ColumnText | None:
    """One strategy's results as objects at ``depth``, each after ``lead`` (its key, or the
    separator and its key, ``%`` doubled); None when a value must take the reference path."""
    parts = column.explanation_parts()
    said = None if parts is None else _said_around(parts)
    if parts is not None and said is None:
        return None
    if said is not None:
        scores, full = column.figures()
        explanations: list[str] | None = None
    else:
        scores, _, explanations, full = column.export()
    if not all(type(r.passed) is bool and type(r.score) is float for r in full.values()):
        return None
    verdicts = column.passed.copy()
    for index, result in full.items():
        verdicts[index] = result.passed
    shapes = verdicts.astype(np.int64)
    first = numbers(scores)
    second: list[Any] = []
    if explanations is None:
        second = three_decimals(np.array(scores) if full else column.scores)
    else:
        encoded = texts(explanations)
        if encoded is None:
            return None
        second = encoded
        shapes += TEXT
        if not all(explanations):  # an empty explanation is left out
            empty = np.fromiter(map(not_, explanations), np.bool_, len(explanations))
            shapes[empty] += BARE - TEXT
            bare = empty.tolist()
            second = [b"" if no else text for no, text in zip(bare, encoded, strict=True)]
    errored = np.zeros(len(scores), dtype=np.bool_)
    column_rows = (shapes, first, second, errored)
    if full and not _full_rows(full, layout, depth, column_rows, explanations is None):
        return None
    fragments = _fragments(layout, lead, depth, said)
    return ColumnText(fragments, shapes, (first, second), verdicts, errored, scores)


def _said_around(parts: tuple[str, tuple[str, str]]) -> Said | None:
    """The encoded text around a ``FORM`` explanation's score, ``%`` doubled (a JSON string
    escapes character by character: the escaped parts make the escaped whole); None when
    msgspec refuses one."""
    head, (failed, passed) = parts
    encoded = texts([head, failed, passed])
    if encoded is None:
        return None
    cut = [text.replace(b"%", b"%%") for text in encoded]
    return cut[0], (cut[1], cut[2])


def _fragments(layout: Layout, lead: bytes, depth: int, said: Said | None) -> dict[int, bytes]:
    """Every shape's template after ``lead``, for a result object at ``depth``; ``said`` is
    the encoded text before and after the score in a ``FORM`` explanation."""
    colon, sep = layout.colon, layout.sep(depth)
    close = layout.close(b"}", depth)
    out = {WHOLE: lead + b"%s%s"}
    for ok in (0, 1):
        head = lead + layout.open(b"{", depth) + b'"passed"' + colon
        head += (b"true" if ok else b"false") + sep + b'"score"' + colon + b"%s"
        key = sep + b'"explanation"' + colon
        if said is not None:
            out[FORM + ok] = head + key + b'"' + said[0] + b"%s" + said[1][ok] + b'"' + close
        out[TEXT + ok] = head + key + b'"%s"' + close
        out[BARE + ok] = head + b"%s" + close
    return out


def _full_rows(
    full: dict[int, EvaluationResult],
    layout: Layout,
    depth: int,
    rows: tuple[npt.NDArray[np.int64], list[bytes], list[Any], npt.NDArray[np.bool_]],
    templated: bool,
) -> bool:
    """Set the shapes and slots of the rows held as full results: encoded whole when they
    carry metadata or an error, else (in a templated column) with their own explanation.
    False when msgspec refuses an explanation."""
    shapes, first, second, errored = rows
    for index, result in full.items():
        if result.metadata or result.error is not None:
            shapes[index] = WHOLE
            first[index] = b""
            second[index] = layout.value(result_entry(result), depth)
            errored[index] = result.error is not None
    told = [i for i in full if shapes[i] != WHOLE] if templated else []
    encoded = texts([full[i].explanation for i in told])
    if encoded is None:
        return False
    for index, text in zip(told, encoded, strict=True):
        result = full[index]
        shapes[index] = (TEXT if result.explanation else BARE) + result.passed
        second[index] = text if result.explanation else b""
    return True
