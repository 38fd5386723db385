"""Score Ray Data datasets with the evalmark metric kernels (optional: ``evalmark[ray]``).

    import ray, evalmark.ray
    ds = ray.data.read_parquet("s3://bucket/answers/")
    scored = evalmark.ray.score(ds, ["token_f1", "rouge_l"], expected="ref", actual="answer")
    scored.write_parquet("s3://bucket/scores/")
    print(evalmark.ray.summarize(scored, metrics=["token_f1", "rouge_l"]))

Each Arrow batch reaches the kernels without a Python string per row; the scores equal those of
`evalmark score` on one machine, row for row. See docs/scale.md for running on a cluster.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec
import numpy as np
import numpy.typing as npt

from evalmark._progress import Progress
from evalmark.errors import OptionalDependencyError, ScoringInputError
from evalmark.scoring._arrow import text_column, vector_column
from evalmark.scoring._chunks import BadRow, Chunk, Columns
from evalmark.scoring._compute import ON_ERROR_CHOICES, OnError, ScoredChunk, score_chunk
from evalmark.scoring._formats import input_format
from evalmark.scoring._pipeline import (
    ScoreOptions,
    check_targets,
    open_reader,
    write_scored,
)
from evalmark.scoring._registry import METRICS, MetricSpec, parse_metrics
from evalmark.scoring._summary import Summary, SummaryBuilder
from evalmark.scoring._vectors import VectorShape

__all__ = ["score", "score_file_on_ray", "summarize"]

DEFAULT_BATCH_SIZE = 16_384
# Column added in "report" mode: JSON [field, problem] for a bad row, null for a good one.
PROBLEM_COLUMN = "__evalmark_problem"
_Mode = Literal["fail", "skip", "null", "report"]


def _require_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise OptionalDependencyError("ray", "ray", "Scoring with Ray") from None
    return ray


class _ScoreBatch:
    """The per-batch function: Arrow table in, the same table plus one column per metric out."""

    def __init__(
        self,
        metrics: tuple[MetricSpec, ...],
        columns: Columns,
        id_column: str | None,
        mode: _Mode,
        workers: int | None,
    ) -> None:
        self.metrics = metrics
        self.columns = columns
        self.id_column = id_column
        self.mode = mode
        self.workers = workers

    def __call__(self, table: Any) -> Any:
        import pyarrow as pa

        ids = table.column(self.id_column).to_pylist() if self.id_column else None

        def locate(index: int) -> str:
            return f"id {ids[index]!r}" if ids is not None else f"batch row {index}"

        chunk = Chunk(start=0, size=table.num_rows, locate=locate)
        cols = self.columns
        if any(spec.inputs == "text" for spec in self.metrics):
            chunk.expected = text_column(chunk, _array(table, cols.expected), cols.expected)
            chunk.actual = text_column(chunk, _array(table, cols.actual), cols.actual)
        if any(spec.inputs == "vector" for spec in self.metrics):
            e, a = cols.expected_vector, cols.actual_vector
            chunk.expected_vectors = vector_column(chunk, _array(table, e), e, VectorShape())
            chunk.actual_vectors = vector_column(chunk, _array(table, a), a, VectorShape())
        policy: OnError = "null" if self.mode == "report" else self.mode
        scored = score_chunk(
            chunk,
            self.metrics,
            cols,
            workers=self.workers,
            on_error=policy,
            source="Ray dataset",
        )
        for spec in self.metrics:
            valid = scored.valid[spec.name]
            column = pa.array(scored.scores[spec.name], mask=None if valid is None else ~valid)
            table = table.append_column(spec.name, column)
        if self.mode == "report":
            problems: list[str | None] = [None] * table.num_rows
            for row in scored.bad:
                if problems[row.index] is None:
                    problems[row.index] = msgspec.json.encode([row.field, row.problem]).decode()
            table = table.append_column(PROBLEM_COLUMN, pa.array(problems, type=pa.string()))
        if scored.keep is not None:
            table = table.filter(pa.array(scored.keep))
        return table


def _array(table: Any, name: str) -> Any:
    column = table.column(name)
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def score(
    dataset: Any,
    metrics: Sequence[str] | str,
    expected: str = "expected",
    actual: str = "actual",
    *,
    expected_vector: str = "expected_vector",
    actual_vector: str = "actual_vector",
    id: str | None = None,
    on_error: OnError = "fail",
    workers: int | None = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    ray_remote_args: dict[str, Any] | None = None,
) -> Any:
    """Add one score column per metric to a Ray Dataset (lazily, like every Ray transform).

    ``metrics`` are names of :data:`evalmark.scoring._registry.METRICS` (``"token_f1"``,
    ``"cosine"``...).
    ``on_error``: ``"fail"`` raises on the first bad row (a null text, invalid expected JSON),
    naming it by its ``id`` column when given; ``"skip"`` drops bad rows; ``"null"`` keeps them
    with null scores. ``workers`` is the kernel thread count inside each Ray task (1: let Ray
    spread the work over its CPUs); raise it together with ``ray_remote_args={"num_cpus": n}``,
    which is passed to ``map_batches``.
    """
    _require_ray()
    if on_error not in ON_ERROR_CHOICES:
        raise ValueError(f"on_error must be one of {', '.join(ON_ERROR_CHOICES)}, got {on_error!r}")
    return _score(
        dataset,
        parse_metrics(metrics if isinstance(metrics, str) else list(metrics)),
        Columns(expected, actual, id, expected_vector, actual_vector),
        id_column=id,
        mode=on_error,
        workers=workers,
        batch_size=batch_size,
        ray_remote_args=ray_remote_args or {},
    )


def _score(
    dataset: Any,
    metrics: tuple[MetricSpec, ...],
    columns: Columns,
    *,
    id_column: str | None,
    mode: _Mode,
    workers: int | None,
    batch_size: int,
    check_columns: bool = True,
    ray_remote_args: dict[str, Any] | None = None,
) -> Any:
    names = set(dataset.schema().names) if check_columns else set()
    wanted = [columns.expected, columns.actual] if any(m.inputs == "text" for m in metrics) else []
    if any(m.inputs == "vector" for m in metrics):
        wanted += [columns.expected_vector, columns.actual_vector]
    for column in [*wanted, *([id_column] if id_column else [])]:
        if check_columns and column not in names:
            raise ScoringInputError(
                "Ray dataset",
                "",
                column,
                f"is not a column (columns: {', '.join(sorted(names))})",
            )
    clashes = [spec.name for spec in metrics if spec.name in names]
    if clashes:
        raise ValueError(f"the dataset already has a column named {clashes[0]!r}")
    return dataset.map_batches(
        _ScoreBatch(metrics, columns, id_column, mode, workers),
        batch_format="pyarrow",
        batch_size=batch_size,
        zero_copy_batch=True,
        **(ray_remote_args or {}),
    )


def summarize(dataset: Any, metrics: Sequence[str] | None = None) -> Summary:
    """Exact count, mean, min, p5/p50/p95 and max of score columns of a Ray Dataset.

    ``metrics`` defaults to every column named like an evalmark metric. Only the score columns
    travel to the caller (8 bytes a row, fewer for text metrics: see evalmark.scoring._summary).
    """
    _require_ray()
    names = (
        [m for m in dataset.schema().names if m in METRICS] if metrics is None else list(metrics)
    )
    if not names:
        raise ValueError("no score columns to summarise; pass metrics=[...]")
    builder = SummaryBuilder(tuple(names))
    for batch in dataset.select_columns(names).iter_batches(batch_format="pyarrow"):
        scores, valid = _score_arrays(batch, names)
        builder.rows += batch.num_rows
        builder.add(scores, valid)
    return builder.build()


def _score_arrays(
    batch: Any, names: Sequence[str]
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, npt.NDArray[np.bool_] | None]]:
    scores: dict[str, npt.NDArray[Any]] = {}
    valid: dict[str, npt.NDArray[np.bool_] | None] = {}
    for name in names:
        column = batch.column(name)
        if column.null_count:
            valid[name] = column.is_valid().to_numpy(zero_copy_only=False)
            column = column.fill_null(False if column.type == "bool" else 0)
        else:
            valid[name] = None
        scores[name] = column.to_numpy()
    return scores, valid


def _read(ray: Any, path: Path, options: ScoreOptions, id_column: str | None) -> Any:
    kind = input_format(path)
    if kind == "parquet":
        return ray.data.read_parquet(str(path))
    if kind == "csv":
        import pyarrow as pa
        from pyarrow import csv

        text = [options.columns.expected, options.columns.actual]
        types = dict.fromkeys([*text, *([id_column] if id_column else [])], pa.string())
        return ray.data.read_csv(str(path), convert_options=csv.ConvertOptions(column_types=types))
    return ray.data.read_json(str(path))  # Arrow's reader: newline-delimited, no type guessing


def score_file_on_ray(
    path: Path,
    options: ScoreOptions,
    *,
    address: str | None = None,
    output: Path | None = None,
    summary_path: Path | None = None,
    on_bad_row: Callable[[BadRow], None] | None = None,
    progress: Callable[[str, int | None, str], Progress] | None = None,
) -> Summary:
    """`evalmark score --engine ray`: read ``path`` with Ray Data, score it on the cluster at
    ``address`` (None: a local Ray), and stream the scores back in order to the same writers
    as the local engine, so that the output files are identical.

    Rows are named by their 0-based index (Ray's readers do not keep line numbers).
    """
    ray = _require_ray()
    if options.expected_npy is not None or options.actual_npy is not None:
        raise ValueError("--expected-npy/--actual-npy work with --engine local only")
    if options.max_chars is not None:
        raise ValueError("--max-chars works with --engine local only")
    check_targets(path, output, summary_path)
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, logging_level="ERROR")
    try:
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        context.enable_progress_bars = False
        # The local reader checks the columns and finds the id cheaply (first line, header or
        # footer); asking Ray for the schema would read a block.
        local = open_reader(path, options)
        local.close()
        id_column = local.id_column
        dataset = _read(ray, path, options, id_column)
        scored = _score(
            dataset,
            options.metrics,
            options.columns,
            id_column=id_column,
            mode="report",
            workers=options.workers if options.workers is not None else 1,
            batch_size=options.chunk_size,
            check_columns=False,  # the local reader checked them
        )
        keep_columns = [*([id_column] if id_column else []), *(m.name for m in options.metrics)]
        stream = _collect(
            scored.select_columns([*keep_columns, PROBLEM_COLUMN]), options, id_column, path
        )
        return write_scored(
            stream,
            id_column=id_column,
            metrics=options.metrics,
            output=output,
            summary_path=summary_path,
            on_bad_row=on_bad_row,
            progress=progress(path.name, None, "rows") if progress is not None else None,
        )
    finally:
        if started:
            ray.shutdown()


def _collect(
    dataset: Any, options: ScoreOptions, id_column: str | None, path: Path
) -> Iterator[ScoredChunk]:
    """Pull scored batches in input order and apply the bad-row policy on the caller's side."""
    names = [spec.name for spec in options.metrics]
    start = 0
    for batch in dataset.iter_batches(batch_format="pyarrow", batch_size=None):
        size = batch.num_rows
        scores, valid = _score_arrays(batch, names)
        problems = batch.column(PROBLEM_COLUMN).to_pylist()
        bad = [
            BadRow(i, f"row {start + i} (from 0)", *msgspec.json.decode(text))
            for i, text in enumerate(problems)
            if text is not None
        ]
        if bad and options.on_error == "fail":
            first = bad[0]
            raise ScoringInputError(
                str(path), first.where, first.field, first.problem, "pass --on-error skip or null"
            )
        keep = None
        if bad and options.on_error == "skip":
            keep = np.array([text is None for text in problems])
            valid = dict.fromkeys(names)
        ids = _array(batch, id_column) if id_column else None
        yield ScoredChunk(start, size, ids, scores, valid, keep, bad)
        start += size
