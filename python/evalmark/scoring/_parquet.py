"""Read a Parquet file (through pyarrow) in chunks of rows, row group by row group.

Text columns stay Arrow arrays all the way to the kernels: no Python string per row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evalmark.errors import ScoringInputError
from evalmark.scoring._arrow import is_id, is_text, is_vector, text_column, vector_column
from evalmark.scoring._chunks import Chunk, Columns, Needs
from evalmark.scoring._errors import require_pyarrow
from evalmark.scoring._vectors import VectorShape


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
        names = list(self._file.schema_arrow.names)
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
        self._shapes = (VectorShape(), VectorShape())
        try:
            self._check_columns()
        except BaseException:
            self._file.close()
            raise

    def _check_columns(self) -> None:
        """Every wanted column exists and has a type the kernels can read."""
        path, columns, needs = self.path, self._columns, self.needs
        schema = self._file.schema_arrow
        names = list(schema.names)
        for column in self._wanted:
            if column not in names:
                raise ScoringInputError(
                    str(path),
                    "",
                    column,
                    f"is not a column of the file (columns: {', '.join(names)})",
                    "name the columns with --expected-col, --actual-col and --id-col",
                )
        # (columns, whether a type fits, what a column of another type is told)
        rules: list[tuple[tuple[str, ...], Callable[[Any], bool], str, str]] = [
            (
                (columns.expected, columns.actual) if needs.text else (),
                is_text,
                "it must be a string column",
                "",
            ),
            (
                (self.id_column,) if self.id_column else (),
                is_id,
                "an id must be text or an integer",
                "name another column with --id-col, or --id-col '' to number the rows",
            ),
            (
                (columns.expected_vector, columns.actual_vector) if needs.vectors else (),
                is_vector,
                "vectors must be a list of numbers",
                "",
            ),
        ]
        for names_checked, fits, problem, hint in rules:
            for column in names_checked:
                kind = schema.field(column).type
                if not fits(kind):
                    raise ScoringInputError(
                        str(path), "", column, f"has type {kind}; {problem}", hint
                    )

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
            chunk.expected = text_column(chunk, batch.column(columns.expected), columns.expected)
            chunk.actual = text_column(chunk, batch.column(columns.actual), columns.actual)
        if self.needs.vectors:
            chunk.expected_vectors = vector_column(
                chunk,
                batch.column(columns.expected_vector),
                columns.expected_vector,
                self._shapes[0],
            )
            chunk.actual_vectors = vector_column(
                chunk, batch.column(columns.actual_vector), columns.actual_vector, self._shapes[1]
            )
        if self.id_column:
            chunk.ids = batch.column(self.id_column)
        return chunk
