"""A trace evaluation in bounded memory: the test cases of a trace file are spooled to a
temporary file as the file streams by (memory keeps each case's name and offset), and the
checks run over them a chunk of cases at a time.

Each chunk is one engine run (:func:`evalmark.engine._pipeline.run_samples`) over
:data:`CHUNK` cases read back from the spool; what the report keeps of a chunk is what a
report shows: every check's result, the answer's text and the case's usage (latency, tokens,
cost), written to a second temporary file (:mod:`evalmark.suite._trace_rows`). The test cases
are let go once their chunk is scored and the rows once written: what memory keeps of a trace
is its name, two offsets and its checks' figures (a few hundred bytes however large the trace;
a report's writer still builds its document in memory). A file of at most one chunk gives
the engine's report as it is.
"""

from __future__ import annotations

import tempfile
import weakref
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import msgspec

from evalmark.engine._pipeline import run_samples
from evalmark.engine._run import run_sync
from evalmark.engine._settings import RunSettings
from evalmark.engine._test_cases import _sample_of as sample_of
from evalmark.report._model import Report
from evalmark.samples._case import TestCase
from evalmark.samples._samples import Sample
from evalmark.suite._trace_rows import RowSpool

__all__ = ["CHUNK", "CaseSpool", "OwnSamples", "SpooledCases", "run_chunked"]

CHUNK = 256  # cases scored at once

ChunkHook = Callable[[Report, Sequence[Any]], None]


class CaseSpool:
    """Test cases written to an unnamed temporary file, read back by index."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the spool)
        self._closed = weakref.finalize(self, self._file.close)
        self._offsets = array("q", [0])
        self._encode = msgspec.msgpack.Encoder().encode
        self._decode = msgspec.msgpack.Decoder(TestCase).decode

    def add(self, case: TestCase) -> int:
        """Spool ``case``; its index."""
        data = self._encode(case)
        self._file.seek(self._offsets[-1])
        self._file.write(data)
        self._offsets.append(self._offsets[-1] + len(data))
        return len(self._offsets) - 2

    def get(self, index: int) -> TestCase:
        """The test case spooled at ``index``."""
        start, end = self._offsets[index], self._offsets[index + 1]
        self._file.seek(start)
        return self._decode(self._file.read(end - start))

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def close(self) -> None:
        """Delete the spool's file (as letting go of the spool does)."""
        self._closed()


class OwnSamples(Sequence[Sample]):
    """Without a samples file, each case's own sample (named as the case, asking its input),
    built from the spool when read, so that memory keeps only the names."""

    def __init__(self, spool: CaseSpool, names: list[str], places: list[int | None]) -> None:
        self._spool, self._names, self._places = spool, names, places

    def __len__(self) -> int:
        return len(self._names)

    def _one(self, index: int) -> Sample:
        place = self._places[index]
        return sample_of(self._names[index], None if place is None else self._spool.get(place))

    @overload
    def __getitem__(self, index: int) -> Sample: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Sample]: ...
    def __getitem__(self, index: int | slice) -> Sample | Sequence[Sample]:
        if isinstance(index, slice):
            return [self._one(i) for i in range(*index.indices(len(self)))]
        return self._one(range(len(self))[index])


@dataclass(frozen=True, slots=True)
class SpooledCases:
    """Samples paired with spooled cases: each sample's case's place in the spool (None: no
    case), the errors standing for missing cases (by sample index), and the names of cases no
    sample named."""

    samples: Sequence[Sample]
    places: list[int | None]
    failed: dict[int, BaseException] = field(default_factory=dict)
    unmatched: tuple[str, ...] = ()


def _chunk_outputs(
    paired: SpooledCases, spool: CaseSpool, start: int, end: int, fill: Callable[..., Any]
) -> tuple[Sequence[Sample], list[Any]]:
    samples = paired.samples[start:end]
    outputs = []
    for sample, place in zip(samples, paired.places[start:end], strict=True):
        outputs.append(None if place is None else fill(spool.get(place), sample))
    return samples, outputs


def _score(
    samples: Sequence[Sample],
    outputs: list[Any],
    failed: Mapping[int, BaseException],
    strategies: Sequence[Any],
    settings: RunSettings,
    name: str,
    metadata: Mapping[str, Any],
) -> Report:
    return run_sync(
        run_samples(
            samples,
            strategies,
            outputs=outputs,
            failed=dict(failed),
            settings=settings,
            name=name,
            metadata=metadata,
        )
    )


def run_chunked(
    paired: SpooledCases,
    spool: CaseSpool,
    fill: Callable[[TestCase, Sample], TestCase],
    strategies: Sequence[Any],
    settings: RunSettings,
    name: str,
    metadata: Mapping[str, Any],
    on_chunk: ChunkHook | None = None,
) -> Report:
    """Score the paired cases a :data:`CHUNK` at a time (``fill`` adds a sample's expectations
    to its case); ``on_chunk(report, outputs)`` sees each chunk's report with its test cases
    before they are let go."""
    total = len(paired.samples)
    rows = RowSpool()
    for start in range(0, max(total, 1), CHUNK):
        end = min(start + CHUNK, total)
        samples, outputs = _chunk_outputs(paired, spool, start, end, fill)
        failed = {i - start: e for i, e in paired.failed.items() if start <= i < end}
        report = _score(samples, outputs, failed, strategies, settings, name, metadata)
        if on_chunk is not None:
            on_chunk(report, outputs)
        if total <= CHUNK:
            return report
        rows.add(report)
    return rows.report(name, metadata)
