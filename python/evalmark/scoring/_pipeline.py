"""Stream a file through the metric kernels: read a chunk, score it, write it, summarise.

The next chunk is read on a helper thread while the calling thread scores and writes the
current one (the kernels release the GIL), so file handling overlaps with scoring, and a
Ctrl-C reaches the running kernel call at once. Chunks are written strictly in input order:
the output does not depend on timing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import msgspec

from evalmark._files.atomic import AtomicFile
from evalmark._progress import NoProgress, Progress
from evalmark.errors import ScoringInputError
from evalmark.scoring._chunks import BadRow, Chunk, Columns, Needs
from evalmark.scoring._compute import OnError, ScoredChunk, score_chunk
from evalmark.scoring._formats import input_format, output_format
from evalmark.scoring._lengths import long_row_notes
from evalmark.scoring._progress import WorkTicker
from evalmark.scoring._registry import MetricSpec
from evalmark.scoring._summary import Summary, SummaryBuilder
from evalmark.scoring._vectors import NpyVectors
from evalmark.scoring._writers import open_writer


class Reader(Protocol):
    """What every input reader offers (see jsonl.py, csvfile.py, parquet.py)."""

    path: Path
    id_column: str | None
    progress_total: int | None
    progress_unit: str

    def __iter__(self) -> Iterator[Chunk]: ...

    def position(self) -> int: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """How to score a file: metrics, columns, chunking, parallelism, bad-row policy."""

    metrics: tuple[MetricSpec, ...]
    columns: Columns = field(default_factory=Columns)
    chunk_size: int = 10_000
    workers: int | None = None
    on_error: OnError = "fail"
    expected_npy: Path | None = None
    actual_npy: Path | None = None
    max_chars: int | None = None

    @property
    def needs(self) -> Needs:
        """Which inputs the metrics read from the file itself."""
        vectors = any(spec.inputs == "vector" for spec in self.metrics)
        from_file = self.expected_npy is None and self.actual_npy is None
        return Needs(
            text=any(spec.inputs == "text" for spec in self.metrics),
            vectors=vectors and from_file,
        )


def open_reader(path: Path, options: ScoreOptions) -> Reader:
    """Open ``path`` with the reader for its format."""
    if options.chunk_size < 1:
        raise ValueError(f"the chunk size must be at least 1, got {options.chunk_size}")
    kind = input_format(path)
    if kind == "parquet":
        from evalmark.scoring._parquet import ParquetReader

        return ParquetReader(path, options.columns, options.needs, options.chunk_size)
    if kind == "csv":
        from evalmark.scoring._csvfile import CsvReader

        return CsvReader(path, options.columns, options.needs, options.chunk_size)
    from evalmark.scoring._jsonl import JsonlReader

    return JsonlReader(path, options.columns, options.needs, options.chunk_size)


def _npy_sources(options: ScoreOptions) -> tuple[NpyVectors, NpyVectors] | None:
    wants = any(spec.inputs == "vector" for spec in options.metrics)
    given = (options.expected_npy, options.actual_npy)
    if given == (None, None):
        return None
    if None in given:
        raise ValueError("give both --expected-npy and --actual-npy, or neither")
    if not wants:
        raise ValueError("--expected-npy and --actual-npy are only read by the cosine metric")
    assert options.expected_npy is not None and options.actual_npy is not None
    return NpyVectors(options.expected_npy, "expected"), NpyVectors(options.actual_npy, "actual")


def iter_scored(
    reader: Reader, options: ScoreOptions, progress: Progress | None = None
) -> Iterator[ScoredChunk]:
    """Score the reader's chunks in order, scoring one chunk while the next is read; rows that
    will take a second or more are announced on ``progress`` first."""
    from evalmark.metrics._args import resolve_workers

    resolve_workers(options.workers)  # a bad value is a usage error, not a bad row
    npy = _npy_sources(options)
    source = str(reader.path)

    def prepare_and_score(chunk: Chunk) -> ScoredChunk:
        if npy is not None:
            chunk.expected_vectors = npy[0].take(chunk)
            chunk.actual_vectors = npy[1].take(chunk)
        _check_vector_dims(chunk, options, source)
        notes: list[str] = []
        if progress is not None and not isinstance(progress, NoProgress):
            notes, expected_words = long_row_notes(chunk, options.metrics, options.max_chars)
        if not notes:
            return score(chunk)
        assert progress is not None
        for note in notes:
            progress.note(note)
        with WorkTicker(progress, expected_words):
            return score(chunk)

    def score(chunk: Chunk) -> ScoredChunk:
        return score_chunk(
            chunk,
            options.metrics,
            options.columns,
            workers=options.workers,
            on_error=options.on_error,
            source=source,
            max_chars=options.max_chars,
        )

    # The next chunk is read on a helper thread while this one is scored here, on the calling
    # thread: kernels release the GIL, so reading overlaps scoring, and Ctrl-C reaches the
    # kernel call directly (it stops within a fraction of a second, see docs/metrics.md).
    rows = 0
    chunks = iter(reader)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="evalmark-read") as pool:
        upcoming: Future[Chunk | None] = pool.submit(next, chunks, None)
        try:
            while (chunk := _read(upcoming, source, rows)) is not None:
                rows += chunk.size
                upcoming = pool.submit(next, chunks, None)
                try:
                    scored = prepare_and_score(chunk)
                except MemoryError:
                    raise _out_of_memory(source, chunk) from None
                yield scored
        finally:
            upcoming.cancel()
    if npy is not None:
        for source_file in npy:
            source_file.check_exhausted(rows)


def _read(upcoming: Future[Chunk | None], source: str, rows: int) -> Chunk | None:
    """The chunk read on the helper thread; running out of memory there names where."""
    try:
        return upcoming.result()
    except MemoryError:
        raise ScoringInputError(
            source,
            f"the rows after data row {rows}",
            "",
            "ran out of memory while reading them",
            "give evalmark more memory, or shorten the widest rows",
        ) from None


def _out_of_memory(source: str, chunk: Chunk) -> ScoringInputError:
    """Running out of memory while scoring ``chunk``, as an error naming its rows."""
    first = chunk.locate(0)
    where = first if chunk.size == 1 else f"{first} to {chunk.locate(chunk.size - 1)}"
    return ScoringInputError(
        source,
        where,
        "",
        "ran out of memory while scoring " + ("this row" if chunk.size == 1 else "these rows"),
        "give evalmark more memory, lower --chunk-size, or shorten the widest rows",
    )


def _check_vector_dims(chunk: Chunk, options: ScoreOptions, source: str) -> None:
    e, a = chunk.expected_vectors, chunk.actual_vectors
    if e is not None and a is not None and e.shape[1] and a.shape[1] and e.shape[1] != a.shape[1]:
        raise ScoringInputError(
            source,
            "",
            "",
            f"expected vectors have {e.shape[1]} dimensions and actual vectors {a.shape[1]}",
            "both sides of a cosine pair must come from the same embedding model",
        )


def score_file(
    path: Path,
    options: ScoreOptions,
    *,
    output: Path | None = None,
    summary_path: Path | None = None,
    progress: Callable[[str, int | None, str], Progress] | None = None,
    on_bad_row: Callable[[BadRow], None] | None = None,
) -> Summary:
    """Score every row of ``path``; write scores to ``output`` and the summary to ``summary_path``.

    Both files appear only when the whole input was scored: they are written to temporary
    files beside their targets and renamed at the end, so a failure or Ctrl-C leaves any
    earlier file at those paths untouched and no partial file behind. ``progress`` is called
    with (label, total, unit) to make a progress display.
    """
    check_targets(path, output, summary_path)
    with ExitStack() as stack:
        reader = open_reader(path, options)
        stack.callback(reader.close)
        bar = (
            progress(path.name, reader.progress_total, reader.progress_unit)
            if progress is not None
            else NoProgress()
        )
        return write_scored(
            iter_scored(reader, options, bar),
            id_column=reader.id_column,
            metrics=options.metrics,
            output=output,
            summary_path=summary_path,
            progress=bar,
            position=reader.position,
            on_bad_row=on_bad_row,
        )


def check_targets(path: Path, output: Path | None, summary_path: Path | None) -> None:
    """Refuse outputs that would overwrite the input, and unknown output extensions."""
    for target in (output, summary_path):
        if target is not None and target.resolve() == path.resolve():
            raise ValueError(f"{target}: the output would overwrite the input")
    if output is not None:
        output_format(output)
    if (
        output is not None
        and summary_path is not None
        and output.resolve() == summary_path.resolve()
    ):
        raise ValueError(f"{output}: the scores and the summary cannot go to the same file")


def write_scored(
    stream: Iterable[ScoredChunk],
    *,
    id_column: str | None,
    metrics: tuple[MetricSpec, ...],
    output: Path | None = None,
    summary_path: Path | None = None,
    progress: Progress | None = None,
    position: Callable[[], int] | None = None,
    on_bad_row: Callable[[BadRow], None] | None = None,
) -> Summary:
    """Write scored chunks in order, summarise them, and commit the files only at the end.

    ``on_bad_row`` hears of every bad row and every null score (``BadRow.metric`` set).
    """
    builder = SummaryBuilder(tuple(spec.name for spec in metrics))
    bar = progress if progress is not None else NoProgress()
    with ExitStack() as stack:
        stack.callback(bar.close)
        out_file = stack.enter_context(AtomicFile(output)) if output is not None else None
        summary_file = (
            stack.enter_context(AtomicFile(summary_path)) if summary_path is not None else None
        )
        writer = (
            open_writer(output, out_file.temp, id_column, metrics)
            if output is not None and out_file is not None
            else None
        )
        try:
            for scored in stream:
                builder.rows += scored.size
                builder.skipped += scored.size - scored.kept
                builder.add(scored.scores, scored.valid, scored.keep)
                builder.too_long.extend(scored.too_long)
                if on_bad_row is not None:
                    for row in sorted([*scored.bad, *scored.notes], key=lambda r: r.index):
                        on_bad_row(row)
                if writer is not None:
                    writer.write(scored)
                bar.update(position() if position is not None else builder.rows, builder.rows)
        finally:
            if writer is not None:
                writer.close()
        summary = builder.build()
        if summary_file is not None:
            summary_file.write_bytes(summary_json(summary))
    return summary


def summary_json(summary: Summary) -> bytes:
    """The summary as indented JSON text with a final newline."""
    return msgspec.json.format(msgspec.json.encode(summary.as_dict()), indent=2) + b"\n"
