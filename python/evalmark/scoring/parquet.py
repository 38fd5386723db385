"""Read a Parquet file (through pyarrow) in chunks of rows, row group by row group.

Text columns stay Arrow arrays all the way to the kernels: no Python string per row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.scoring.chunks import Chunk, Columns, Needs
from evalmark.scoring.errors import ScoringInputError, require_pyarrow
from evalmark.scoring.vectors import VectorShape, mark_non_finite


def _locator(group: int, first: int, start: int) -> Callable[[int], str]:
    return lambda index: (
        f"row group {group}, row {first + index} (row {start + index} of the file, from 0)"
    )


class ParquetReader:
    """Yields chunks of up to ``chunk_size`` rows; a chunk never spans two row groups."""

    progress_unit = "rows"

    def __init__(self, path: Path, columns: Columns, needs: Needs, chunk_size: int) -> None:
        require_pyarrow("Reading Parquet")
        import pyarrow.parquet as pq

        self.path = path
        self.chunk_size = chunk_size
        self.needs = needs
        self._columns = columns
        try:
            self._file = pq.ParquetFile(path)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            raise ScoringInputError(
                str(path), "", "", f"cannot be read as Parquet: {exc}"
            ) from None
        schema = self._file.schema_arrow
        names = list(schema.names)
        self.progress_total: int | None = self._file.metadata.num_rows
        self._done = 0
        self.id_column = (
            ("id" if "id" in names else None) if columns.id is None else columns.id or None
        )
        self._wanted: list[str] = []
        if needs.text:
            self._wanted += [columns.expected, columns.actual]
        if needs.vectors:
            self._wanted += [columns.expected_vector, columns.actual_vector]
        if self.id_column:
            self._wanted.append(self.id_column)
        for column in self._wanted:
            if column not in names:
                raise ScoringInputError(
                    str(path),
                    "",
                    column,
                    f"is not a column of the file (columns: {', '.join(names)})",
                    "name the columns with --expected-col, --actual-col and --id-col",
                )
        for column in (columns.expected, columns.actual) if needs.text else ():
            kind = schema.field(column).type
            if not _is_text(kind):
                raise ScoringInputError(
                    str(path), "", column, f"has type {kind}; it must be a string column"
                )
        for column in (columns.expected_vector, columns.actual_vector) if needs.vectors else ():
            kind = schema.field(column).type
            if not _is_vector(kind):
                raise ScoringInputError(
                    str(path), "", column, f"has type {kind}; vectors must be a list of numbers"
                )
        self._shapes = (VectorShape(), VectorShape())

    def position(self) -> int:
        """Rows read so far."""
        return self._done

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __iter__(self) -> Iterator[Chunk]:
        start = 0
        for group in range(self._file.metadata.num_row_groups):
            first = 0
            batches = self._file.iter_batches(
                batch_size=self.chunk_size, row_groups=[group], columns=self._wanted
            )
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                yield self._chunk(batch, start, group, first)
                start += batch.num_rows
                first += batch.num_rows
                self._done = start

    def _chunk(self, batch: Any, start: int, group: int, first: int) -> Chunk:
        chunk = Chunk(start=start, size=batch.num_rows, locate=_locator(group, first, start))
        columns = self._columns
        if self.needs.text:
            chunk.expected = _text(chunk, batch.column(columns.expected), columns.expected)
            chunk.actual = _text(chunk, batch.column(columns.actual), columns.actual)
        if self.needs.vectors:
            chunk.expected_vectors = _vectors(
                chunk,
                batch.column(columns.expected_vector),
                columns.expected_vector,
                self._shapes[0],
            )
            chunk.actual_vectors = _vectors(
                chunk, batch.column(columns.actual_vector), columns.actual_vector, self._shapes[1]
            )
        if self.id_column:
            chunk.ids = batch.column(self.id_column)
        return chunk


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _is_text(kind.value_type)
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    )


def _is_vector(kind: Any) -> bool:
    import pyarrow as pa

    list_like = (
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    )
    return bool(
        list_like
        and (pa.types.is_floating(kind.value_type) or pa.types.is_integer(kind.value_type))
    )


def _text(chunk: Chunk, array: Any, field: str) -> Any:
    """A string or large_string array; null rows are marked bad."""
    import pyarrow as pa

    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_string_view(array.type):
        array = array.cast(pa.large_string())
    if array.null_count:
        nulls = np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))
        for index in nulls.tolist():
            chunk.mark_bad(index, field, "is null")
    return array


def _vectors(chunk: Chunk, array: Any, field: str, shape: VectorShape) -> npt.NDArray[np.float64]:
    """Stack a list column into a 2-D float64 array; null or ill-sized rows are marked bad."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lengths = pc.list_value_length(array)
    length_values = lengths.fill_null(-1).to_numpy(zero_copy_only=False)
    for index, length in enumerate(length_values.tolist()):
        problem = "is null" if length < 0 else shape.check(length)
        if problem:
            chunk.mark_bad(index, field, problem)
    dim = shape.dim or 0
    out = np.zeros((chunk.size, dim), dtype=np.float64)
    good = np.ones(chunk.size, dtype=bool)
    for index in chunk.bad:
        good[index] = False
    if dim and good.any():
        flat = pc.list_flatten(array.filter(pa.array(good)))
        if flat.null_count:
            # Rare: find the rows holding a null element, then leave them out.
            for index in np.flatnonzero(good).tolist():
                if array[index].values.null_count:
                    chunk.mark_bad(index, field, "holds a null element")
                    good[index] = False
            flat = pc.list_flatten(array.filter(pa.array(good)))
        out[good] = flat.to_numpy(zero_copy_only=False).astype(np.float64).reshape(-1, dim)
    mark_non_finite(chunk, out, field)
    return out
