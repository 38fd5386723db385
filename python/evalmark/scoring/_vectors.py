"""Embedding vectors for the cosine metric: from list columns, or from `.npy` files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evalmark.errors import ScoringInputError
from evalmark.scoring._chunks import Chunk


class VectorShape:
    """Remembers the vector dimension of an input, fixed by its first well-formed vector."""

    def __init__(self) -> None:
        self.dim: int | None = None

    def check(self, length: int) -> str | None:
        """A problem description when a vector of ``length`` does not fit, else None."""
        if length == 0:
            return "is an empty vector"
        if self.dim is None:
            self.dim = length
            return None
        if length != self.dim:
            return f"has {length} dimensions where the earlier rows have {self.dim}"
        return None


def stack_rows(
    chunk: Chunk,
    rows: Sequence[Sequence[float] | None],
    field: str,
    shape: VectorShape,
) -> npt.NDArray[np.float64]:
    """Stack per-row vectors into a 2-D array, marking rows of the wrong size bad (zero-filled)."""
    for index, row in enumerate(rows):
        if row is not None and index not in chunk.bad:
            problem = shape.check(len(row))
            if problem:
                chunk.mark_bad(index, field, problem)
    dim = shape.dim or 0
    out = np.zeros((len(rows), dim), dtype=np.float64)
    for index, row in enumerate(rows):
        if row is not None and index not in chunk.bad:
            out[index] = row
    mark_non_finite(chunk, out, field)
    return out


def mark_non_finite(chunk: Chunk, vectors: npt.NDArray[np.float64], field: str) -> None:
    """Mark bad every row of ``vectors`` holding NaN or infinity."""
    finite = np.isfinite(vectors).all(axis=1)
    for index in np.flatnonzero(~finite).tolist():
        chunk.mark_bad(index, field, "holds NaN or infinity")


class NpyVectors:
    """A 2-D `.npy` file read row range by row range, memory-mapped: row i goes with data row i."""

    def __init__(self, path: Path, role: str) -> None:
        self.path = path
        self.role = role
        try:
            self.array = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ScoringInputError(str(path), "", "", f"cannot read as .npy: {exc}") from None
        if self.array.ndim != 2 or self.array.shape[1] == 0:
            raise ScoringInputError(
                str(path),
                "",
                "",
                f"holds an array of shape {self.array.shape}; "
                f"{role} vectors need the shape (rows, dim)",
            )
        if not np.issubdtype(self.array.dtype, np.number):
            raise ScoringInputError(
                str(path), "", "", f"holds {self.array.dtype} values; vectors must be numbers"
            )

    @property
    def rows(self) -> int:
        """Number of vectors in the file."""
        return int(self.array.shape[0])

    def take(self, chunk: Chunk) -> npt.NDArray[np.float64]:
        """The vectors of the chunk's rows, as float64; non-finite rows are marked bad."""
        end = chunk.start + chunk.size
        if end > self.rows:
            raise ScoringInputError(
                str(self.path),
                "",
                "",
                f"has {self.rows} vectors but the input has at least {end} data rows",
                "give one vector per data row, in the same order",
            )
        out = np.asarray(self.array[chunk.start : end], dtype=np.float64)
        mark_non_finite(chunk, out, f"{self.role} vector ({self.path.name})")
        return out

    def check_exhausted(self, rows: int) -> None:
        """Raise when the file has more vectors than the input had data rows."""
        if rows != self.rows:
            raise ScoringInputError(
                str(self.path),
                "",
                "",
                f"has {self.rows} vectors but the input has {rows} data rows",
                "give one vector per data row, in the same order",
            )
