"""Incremental score writers: JSONL, CSV or Parquet, chosen by the output file's extension.

Each writes the row's id (or its 0-based index, column ``row``) and one column per metric;
a score that could not be computed is null (empty in CSV). Output is deterministic: the same
input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np
import numpy.typing as npt

from evalmark.errors import ScoringInputError
from evalmark.scoring._compute import ScoredChunk
from evalmark.scoring._errors import require_pyarrow
from evalmark.scoring._formats import output_format
from evalmark.scoring._registry import MetricSpec


class ScoreWriter(Protocol):
    """Writes scored chunks in order to an open file."""

    def write(self, scored: ScoredChunk) -> None:
        """Append one chunk's kept rows."""

    def close(self) -> None:
        """Finish the file (footer, flush) and close it."""


def open_writer(
    path: Path, temp: Path, id_column: str | None, metrics: Sequence[MetricSpec]
) -> ScoreWriter:
    """A writer for ``path``'s format writing into ``temp``.

    See :class:`~evalmark._files.atomic.AtomicFile`."""
    kind = output_format(path)
    if kind == "parquet":
        return ParquetScoreWriter(temp, id_column, metrics, str(path))
    if kind == "csv":
        return CsvScoreWriter(temp, id_column, metrics)
    return JsonlScoreWriter(temp, id_column, metrics)


def row_ids(scored: ScoredChunk) -> list[Any]:
    """The kept rows' ids as Python values (row indices when the input has no id column)."""
    if scored.ids is None:
        ids: list[Any] = list(range(scored.start, scored.start + scored.size))
    elif isinstance(scored.ids, list):
        ids = scored.ids
    else:
        ids = list(scored.ids.to_pylist())
    if scored.keep is None:
        return ids
    return [ids[i] for i in np.flatnonzero(scored.keep).tolist()]


def score_lists(scored: ScoredChunk, name: str) -> list[Any]:
    """One metric's kept scores as Python values, None where there is no score."""
    values = scored.scores[name]
    valid = scored.valid[name]
    out: list[Any] = values.tolist()
    if valid is not None:
        for i in np.flatnonzero(~valid).tolist():
            out[i] = None
    if scored.keep is not None:
        out = [out[i] for i in np.flatnonzero(scored.keep).tolist()]
    return out


def _id_name(id_column: str | None, metrics: Sequence[MetricSpec]) -> str:
    from evalmark.scoring._chunks import ROW_COLUMN

    name = id_column or ROW_COLUMN
    if any(spec.name == name for spec in metrics):
        raise ValueError(f"the id column {name!r} has the name of a metric; rename it")
    return name


class JsonlScoreWriter:
    """One JSON object per row: ``{"id": ..., "token_f1": 0.5, ...}``."""

    def __init__(self, temp: Path, id_column: str | None, metrics: Sequence[MetricSpec]) -> None:
        names = [_id_name(id_column, metrics), *(spec.name for spec in metrics)]
        self._metrics = names[1:]
        encode = msgspec.json.encode
        keys = [encode(name) for name in names]
        # One %b slot per column: b'{"id":%b,"token_f1":%b}\n'
        self._template = (
            b"{" + b",".join(key.replace(b"%", b"%%") + b":%b" for key in keys) + b"}\n"
        )
        self._file = temp.open("wb")

    def write(self, scored: ScoredChunk) -> None:
        columns = [_json_values(row_ids(scored))]
        columns += [_json_values(score_lists(scored, name)) for name in self._metrics]
        template = self._template
        self._file.write(b"".join([template % values for values in zip(*columns, strict=True)]))

    def close(self) -> None:
        self._file.close()


def _json_values(values: list[Any]) -> list[bytes]:
    """The JSON text of each value, from one encoding of the whole list when possible."""
    encode = msgspec.json.encode
    if not values:
        return []
    whole = encode(values)
    if b'"' in whole or whole.count(b",") != len(values) - 1:
        # Strings and lists may hold commas: encode the values one by one.
        return [encode(value) for value in values]
    # Numbers, true, false and null never contain a comma.
    return whole[1:-1].split(b",")


class CsvScoreWriter:
    """A header row, then one row per input row: numbers in shortest round-trip form, true and
    false for booleans, an empty cell for a null, ids quoted as RFC 4180 asks."""

    def __init__(self, temp: Path, id_column: str | None, metrics: Sequence[MetricSpec]) -> None:
        names = [_id_name(id_column, metrics), *(spec.name for spec in metrics)]
        self._metrics = names[1:]
        self._file = temp.open("wb")
        self._file.write(b",".join(_csv_text(name) for name in names) + b"\n")

    def write(self, scored: ScoredChunk) -> None:
        columns = [_csv_cells(row_ids(scored))]
        for name in self._metrics:
            values = _json_values(score_lists(scored, name))
            if scored.valid[name] is not None:
                values = [b"" if value == b"null" else value for value in values]
            columns.append(values)
        self._file.write(b"".join([b",".join(row) + b"\n" for row in zip(*columns, strict=True)]))

    def close(self) -> None:
        self._file.close()


def _csv_text(value: Any) -> bytes:
    if value is None:
        return b""
    text = str(value)
    if any(c in text for c in ',"\r\n'):
        text = '"' + text.replace('"', '""') + '"'
    return text.encode("utf-8")


def _csv_cells(values: list[Any]) -> list[bytes]:
    """CSV cells for ids: numbers from one encoding, plain text in one pass, else one by one."""
    if not values:
        return []
    if all(isinstance(value, int) for value in values):
        return _json_values(values)
    texts = ["" if value is None else str(value) for value in values]
    joined = "\n".join(texts)
    if joined.count("\n") == len(texts) - 1 and not any(c in joined for c in ',"\r'):
        return joined.encode("utf-8").split(b"\n")
    return [_csv_text(value) for value in values]


# Rows per Parquet row group, whatever the chunk size, so that the file's bytes do not depend on
# how the input was chunked.
PARQUET_ROW_GROUP = 65_536


class ParquetScoreWriter:
    """Row groups of :data:`PARQUET_ROW_GROUP` rows; the id column keeps the input's type."""

    def __init__(
        self, temp: Path, id_column: str | None, metrics: Sequence[MetricSpec], shown: str
    ) -> None:
        require_pyarrow("Writing Parquet")
        self._temp = temp
        self._shown = shown
        self._id_name = _id_name(id_column, metrics)
        self._by_rows = id_column is None
        self._metrics = list(metrics)
        self._writer: Any = None
        self._schema: Any = None
        self._pending: list[Any] = []
        self._pending_rows = 0

    def _table(self, scored: ScoredChunk) -> Any:
        import pyarrow as pa

        keep = scored.keep
        if scored.ids is None:
            ids: Any = pa.array(
                np.arange(scored.start, scored.start + scored.size)[
                    slice(None) if keep is None else keep
                ],
                type=pa.int64(),
            )
        elif isinstance(scored.ids, list):
            try:
                ids = pa.array(row_ids(scored))
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                raise ScoringInputError(
                    self._shown,
                    "",
                    self._id_name,
                    "mixes strings and numbers; Parquet output needs one type",
                    "write JSONL or CSV output instead",
                ) from None
        else:
            ids = scored.ids if keep is None else scored.ids.filter(pa.array(keep))
        arrays = [ids]
        for spec in self._metrics:
            values: npt.NDArray[Any] = scored.scores[spec.name]
            valid = scored.valid[spec.name]
            if keep is not None:
                values = values[keep]
                valid = None if valid is None else valid[keep]
            mask = None if valid is None else ~valid
            arrays.append(pa.array(values, mask=mask))
        return pa.Table.from_arrays(arrays, names=[self._id_name, *(s.name for s in self._metrics)])

    def write(self, scored: ScoredChunk) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = self._table(scored)
        if self._writer is None:
            self._schema = table.schema
            self._writer = pq.ParquetWriter(self._temp, self._schema)
        elif not table.schema.equals(self._schema):
            try:
                table = table.cast(self._schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                raise ScoringInputError(
                    self._shown,
                    f"row {scored.start} onwards",
                    self._id_name,
                    f"changes type from {self._schema.field(0).type} to "
                    f"{table.schema.field(0).type}",
                    "give every id the same type",
                ) from None
        self._pending.append(table)
        self._pending_rows += table.num_rows
        while self._pending_rows >= PARQUET_ROW_GROUP:
            self._flush(PARQUET_ROW_GROUP)

    def _flush(self, rows: int) -> None:
        import pyarrow as pa

        pending = pa.concat_tables(self._pending)
        group = pending.slice(0, rows).combine_chunks()
        self._writer.write_table(group, row_group_size=rows)
        rest = pending.slice(rows)
        self._pending = [rest] if rest.num_rows else []
        self._pending_rows = rest.num_rows

    def close(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is None:  # no rows: still a valid, empty file with the columns
            id_type = pa.int64() if self._by_rows else pa.string()
            fields = [pa.field(self._id_name, id_type)]
            fields += [
                pa.field(spec.name, pa.from_numpy_dtype(np.dtype(spec.dtype)))
                for spec in self._metrics
            ]
            self._writer = pq.ParquetWriter(self._temp, pa.schema(fields))
        if self._pending_rows:
            self._flush(self._pending_rows)
        self._writer.close()
