"""Errors of input that cannot be scored: a metric kernel's rows, a scored file's fields."""

from __future__ import annotations

from evalmark.errors._root import EvalmarkError

__all__ = ["MetricInputError", "ScoringInputError", "TextTooLongError"]


class MetricInputError(EvalmarkError, ValueError):
    """A metric kernel was given input it cannot score; the message names the row and field."""


class TextTooLongError(MetricInputError):
    """Texts longer than the call's ``max_chars``. The message names the first few rows (or the
    side, for a single pair) and their lengths; ``rows`` lists every offending row of a batch
    (ascending, counted from 0), empty for a single pair."""

    rows: tuple[int, ...] = ()


class ScoringInputError(EvalmarkError, ValueError):
    """The input cannot be scored as given; the message names the file, the place and the field.

    ``where`` is a human description of the place ("line 12", "row group 3, row 40"), empty
    for whole-file problems; ``field`` is the column involved, empty when none is.
    """

    def __init__(self, path: str, where: str, field: str, problem: str, hint: str = "") -> None:
        self.path = path
        self.where = where
        self.field = field
        self.problem = problem
        parts = [path]
        if where:
            parts.append(where)
        if field:
            parts.append(f"field {field!r}")
        message = ", ".join(parts) + f": {problem}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)
