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

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalmark._files.located import PathKey
from evalmark.engine._pipeline import run_samples
from evalmark.engine._run import run_sync
from evalmark.engine._settings import RunSettings
from evalmark.engine._test_cases import PairedCases, pair_test_cases
from evalmark.report._model import Report
from evalmark.samples._samples import load_samples
from evalmark.suite._document import SuiteDocument
from evalmark.suite._model import EvaluationSpec, TracesSpec
from evalmark.traces._read import read_traces, trace_file_sha256
from evalmark.traces._stream import DEFAULT_WINDOW

__all__ = ["TRACES_KEY", "TraceCases", "TracesSpec", "run_traces", "trace_cases", "traces"]

TRACES_KEY = "traces"
_EXAMPLE = "traces: {path: traces/agent.jsonl, match: session.id}"


@dataclass(frozen=True, slots=True)
class TraceCases:
    """The cases of a trace evaluation, paired and ready for the engine, and the problems of
    the traces left without a sample (shown by the run, never dropped silently)."""

    paired: PairedCases
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
    window = mapping.get("window")
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, int) or window < 1
    ):
        doc.report((*key, "window"), "expected a whole number of spans >= 1, e.g. window: 20000")
        window = None
    if not (base / path).exists():
        doc.report((*key, "path") if isinstance(value, dict) else key, f"no such file '{path}'")
    return TracesSpec(base / path, match, window)


def trace_cases(evaluation: EvaluationSpec, tags: Sequence[str]) -> TraceCases:
    """Read the evaluation's traces and pair them with its samples (those carrying any of the
    evaluation's and the run's ``tags``, when given)."""
    spec = evaluation.traces
    assert spec is not None
    cases: list[Any] = []
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
            cases.append(case)
    samples = None
    if evaluation.samples:
        samples = load_samples(*evaluation.samples)
        wanted = [t for t in (*evaluation.tags, *tags)]
        if wanted:
            samples = samples.filter(lambda s: any(t in s.tags for t in wanted))
        names = {s.name for s in samples}
        left = tuple(p for p in problems if p.name not in names)
        reasons = {n: r for n, r in reasons.items() if n in names}
        return TraceCases(pair_test_cases(cases, samples, reasons), left, source)
    return TraceCases(pair_test_cases(cases, None, reasons), (), source)


def run_traces(
    evaluation: EvaluationSpec,
    selected: TraceCases,
    strategies: Sequence[Any],
    settings: RunSettings,
    suite_name: str,
) -> Report:
    """Apply the checks to the trace cases: the evaluation's report."""
    paired = selected.paired
    metadata: dict[str, Any] = {"suite": suite_name}
    if selected.sha256 is not None:
        metadata["traces-sha256"] = selected.sha256
    if paired.unmatched:
        metadata["unmatched-test-cases"] = list(paired.unmatched)
    if selected.problems:
        metadata["unevaluable-traces"] = [p.to_dict() for p in selected.problems]
    return run_sync(
        run_samples(
            paired.samples,
            strategies,
            outputs=paired.outputs,
            failed=paired.failed,
            settings=settings,
            name=evaluation.name,
            metadata=metadata,
        )
    )
