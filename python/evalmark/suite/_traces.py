"""Evaluations of recorded traces in a suite file::

    traces: traces/agent.jsonl                # or {path: ..., match: session.id, window: n}
    samples: expected.yaml                     # optional: expectations, matched by name
    strategies: [trajectory-match]

The trace file is read by :mod:`evalmark.traces`; each trace is a test case named by the value
of its ``match`` attribute (default: the trace id), paired with the sample of that name
(:func:`evalmark.engine._test_cases.pair_test_cases`). A trace that cannot be evaluated is an
error case with its reason, never left out; without samples, every trace is a case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark._files.located import PathKey
from evalmark.engine._settings import RunSettings
from evalmark.engine._test_cases import _with_expectations
from evalmark.errors import TraceError
from evalmark.report._model import Report
from evalmark.samples._case import TestCase
from evalmark.samples._samples import Sample, load_samples
from evalmark.suite._document import SuiteDocument, whole
from evalmark.suite._model import EvaluationSpec, TracesSpec
from evalmark.suite._trace_spool import (
    CaseSpool,
    ChunkHook,
    OwnSamples,
    SpooledCases,
    run_chunked,
)
from evalmark.traces._read import read_traces, trace_file_sha256
from evalmark.traces._stream import DEFAULT_WINDOW

__all__ = ["TRACES_KEY", "TraceCases", "TracesSpec", "run_traces", "trace_cases", "traces"]

TRACES_KEY = "traces"
_EXAMPLE = "traces: {path: traces/agent.jsonl, match: session.id}"


@dataclass(frozen=True, slots=True)
class TraceCases:
    """The cases of a trace evaluation, paired and ready for the engine, and the problems of
    the traces left without a sample (shown by the run, never dropped silently)."""

    paired: SpooledCases
    spool: CaseSpool
    problems: tuple[Any, ...] = ()
    sha256: str | None = None  # the trace file's

    def __len__(self) -> int:
        return len(self.paired.samples)

    def __iter__(self) -> Any:
        return iter(self.paired.samples)


def traces(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> TracesSpec | None:
    """The ``traces`` key: a path, or ``{path, match, window}``."""
    if value is None:
        return None
    mapping = (
        {"path": value}
        if isinstance(value, str)
        else doc.section(key, value, _EXAMPLE, ("path", "match", "window"), "traces")
    )
    if mapping is None:
        return None
    path = mapping.get("path")
    if not isinstance(path, str) or not path:
        doc.report(key, f"expected the path of an OTLP trace file, e.g. {_EXAMPLE}")
        return None
    match = mapping.get("match")
    if match is not None and (not isinstance(match, str) or not match):
        doc.report((*key, "match"), "expected a span attribute name, e.g. match: session.id")
        match = None
    window = whole(mapping.get("window"))
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, int) or window < 1
    ):
        doc.report((*key, "window"), "expected a whole number of spans >= 1, e.g. window: 20000")
        window = None
    if not (base / path).exists():
        doc.report((*key, "path") if isinstance(value, dict) else key, f"no such file '{path}'")
    return TracesSpec(base / path, match, window)


def _unique(name: str, taken: Mapping[str, object]) -> str:
    unique, number = name, 1
    while unique in taken:
        number += 1
        unique = f"{name} #{number}"
    return unique


def trace_cases(evaluation: EvaluationSpec, tags: Sequence[str]) -> TraceCases:
    """Read the evaluation's traces into a spool and pair them with its samples (those
    carrying any of the evaluation's and the run's ``tags``, when given), as
    :func:`~evalmark.engine._test_cases.pair_test_cases` pairs test cases; the paired outputs
    are the cases' places in the spool."""
    spec = evaluation.traces
    assert spec is not None
    spool = CaseSpool()
    named: dict[str, int] = {}  # case name -> spool index
    reasons: dict[str, str] = {}
    problems: list[Any] = []
    source = trace_file_sha256(spec.path)
    for case, found in read_traces(
        spec.path, match=spec.match, window=spec.window or DEFAULT_WINDOW, source=source
    ):
        if found:
            problems += found
            reasons.setdefault(found[0].name, "; ".join(str(p) for p in found))
        elif case is not None:
            name = _unique(case.name or f"case-{len(named) + 1}", named)
            named[name] = spool.add(case)
    if not evaluation.samples:
        names = [*named, *(n for n in reasons if n not in named)]
        places: list[int | None] = [named.get(n) for n in names]
        failed: dict[int, BaseException] = {
            i: TraceError(reasons[n]) for i, n in enumerate(names) if n in reasons
        }
        own = OwnSamples(spool, names, places)
        return TraceCases(SpooledCases(own, places, failed), spool, (), source)
    samples = load_samples(*evaluation.samples)
    wanted = [t for t in (*evaluation.tags, *tags)]
    if wanted:
        samples = samples.filter(lambda s: any(t in s.tags for t in wanted))
    chosen = tuple(samples)
    places, failed = [], {}
    for index, sample in enumerate(chosen):
        if sample.name in reasons:
            failed[index] = TraceError(reasons[sample.name])
        elif sample.name not in named:
            failed[index] = TraceError(
                f"no test case named '{sample.name}' (for traces: no trace whose match "
                "attribute has this value); run `evalmark traces check` on the trace file"
            )
        places.append(None if index in failed else named[sample.name])
    wanted_names = {s.name for s in chosen}
    unmatched = tuple(sorted(n for n in named if n not in wanted_names))
    left = tuple(p for p in problems if p.name not in wanted_names)
    return TraceCases(SpooledCases(chosen, places, failed, unmatched), spool, left, source)


def run_traces(
    evaluation: EvaluationSpec,
    selected: TraceCases,
    strategies: Sequence[Any],
    settings: RunSettings,
    suite_name: str,
    on_chunk: ChunkHook | None = None,
) -> Report:
    """Apply the checks to the trace cases: the evaluation's report (scored a chunk of cases
    at a time, :mod:`evalmark.suite._trace_spool`; ``on_chunk`` sees each chunk's report and
    test cases)."""
    paired = selected.paired
    metadata: dict[str, Any] = {"suite": suite_name}
    if selected.sha256 is not None:
        metadata["traces-sha256"] = selected.sha256
    if paired.unmatched:
        metadata["unmatched-test-cases"] = list(paired.unmatched)
    if selected.problems:
        metadata["unevaluable-traces"] = [p.to_dict() for p in selected.problems]
    fill = _with_expectations if evaluation.samples else _as_read
    return run_chunked(
        paired, selected.spool, fill, strategies, settings, evaluation.name, metadata, on_chunk
    )


def _as_read(case: TestCase, sample: Sample) -> TestCase:
    return case
