"""What a reader hands to the scorer: a chunk of rows, in column form, with its bad rows marked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

# Output column holding the 0-based data-row index when the input has no id column.
ROW_COLUMN = "row"
# A chunk ends after this many bytes of input even before --chunk-size rows: rows of tens of
# megabytes are read and scored a few at a time, so memory stays bounded whatever the width.
CHUNK_BYTES = 32 << 20
# The first chunk of a text file holds at most this many rows, and each next one four times as
# many, up to the chunk size: scoring starts after a short read, and the reading of every later
# chunk overlaps the scoring of the one before (see pipeline.py).
FIRST_CHUNK_ROWS = 2048


@dataclass(frozen=True, slots=True)
class Columns:
    """Which input columns to read.

    ``id=None`` means: use the column ``id`` when the input has one, else number the rows.
    ``id=""`` means: never read an id, always number the rows.
    """

    expected: str = "expected"
    actual: str = "actual"
    id: str | None = None
    expected_vector: str = "expected_vector"
    actual_vector: str = "actual_vector"


@dataclass(frozen=True, slots=True)
class Needs:
    """Which inputs the chosen metrics read from the file."""

    text: bool
    vectors: bool


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that cannot be scored: where it is, which field, and what is wrong."""

    index: int  # within its chunk
    where: str
    field: str
    problem: str
    # Set when the row was read fine but this metric cannot score its values (json_match on
    # an expected text that is not JSON): that score is null, the row is not a bad row.
    metric: str = ""


TextData = Any  # list[str] from JSONL/CSV, or a pyarrow string array (nulls mark bad rows)


@dataclass(slots=True)
class Chunk:
    """Consecutive data rows ``start .. start + size - 1`` of one input, column by column.

    Bad rows keep their place (placeholder values) so that indices line up; ``bad`` says why.
    ``ids`` is None when the rows are identified by their index.
    """

    start: int
    size: int
    locate: Callable[[int], str]
    ids: Sequence[Any] | Any | None = None
    expected: TextData | None = None
    actual: TextData | None = None
    expected_vectors: npt.NDArray[np.float64] | None = None
    actual_vectors: npt.NDArray[np.float64] | None = None
    bad: dict[int, BadRow] = field(default_factory=dict)

    def mark_bad(self, index: int, field_name: str, problem: str) -> None:
        """Record that row ``index`` cannot be scored (the first reason found is kept)."""
        if index not in self.bad:
            self.bad[index] = BadRow(index, self.locate(index), field_name, problem)


def lines_locator(lines: Sequence[int]) -> Callable[[int], str]:
    """Locate rows of a text file by their 1-based line numbers."""
    return lambda index: f"line {lines[index]}"
