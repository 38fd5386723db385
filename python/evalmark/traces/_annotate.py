"""Verdicts written back as OTLP JSON spans, linked to the spans they judge.

For every evaluated case and check, one span named ``gen_ai.evaluation.result`` goes into the
evaluated trace: its parent (and its link) is the evaluated span (the case's
``metadata["span-id"]``), its time the evaluated span's end, its id derived from the trace, the
span and the check's name (so writing twice gives the same bytes). It carries, as attributes
and again as a ``gen_ai.evaluation.result`` event, the GenAI evaluation attributes
(``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``, ``gen_ai.evaluation.score.label``:
pass, fail or error, ``gen_ai.evaluation.explanation``) and the provenance: evalmark's version,
the check's kind and options, the judge prompt's sha256, the samples file's sha256 and the
trace file's sha256.

The file holds one OTLP JSON request per evaluated trace, one a line (the file exporter's JSON
lines), so it reads back with :func:`evalmark.traces.read` and loads into any OTLP backend.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evalmark._files.atomic import write_atomically
from evalmark.samples._case import TestCase

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["Provenance", "annotate", "verdict_requests"]

EVENT = "gen_ai.evaluation.result"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("evalmark")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where verdicts come from: evalmark's version, and by check name its kind, its options
    and its judge prompt's sha256, and the sha256 of the samples file(s) and of the trace
    file (``None``: each case's ``metadata["trace-file-sha256"]``, which the reader sets)."""

    kinds: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prompts: Mapping[str, str] = field(default_factory=dict)
    samples_sha256: str | None = None
    evalmark_version: str = field(default_factory=_version)
    traces_sha256: str | None = None


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


def _label(result: Any) -> str:
    if result.error is not None:
        return "error"
    return "pass" if result.passed else "fail"


def _span(
    case: TestCase, row: str, check: str, result: Any, report: str, how: Provenance
) -> dict[str, Any]:
    trace_id = str(case.metadata["trace-id"])
    parent = str(case.metadata["span-id"])
    span_id = hashlib.sha256(f"{trace_id}/{parent}/{check}".encode()).hexdigest()[:16]
    when = str(case.metadata.get("span-end-unix-nano", 0))
    options = how.options.get(check)
    values: dict[str, Any] = {
        "gen_ai.evaluation.name": check,
        "gen_ai.evaluation.score.value": float(result.score),
        "gen_ai.evaluation.score.label": _label(result),
        "gen_ai.evaluation.explanation": result.explanation or None,
        "evalmark.case": row,
        "evalmark.report": report,
        "evalmark.version": how.evalmark_version,
        "evalmark.check.kind": how.kinds.get(check),
        "evalmark.check.options": None if options is None else json.dumps(options, sort_keys=True),
        "evalmark.prompt.sha256": how.prompts.get(check),
        "evalmark.samples.sha256": how.samples_sha256,
        "evalmark.traces.sha256": how.traces_sha256 or case.metadata.get("trace-file-sha256"),
        "error.type": None if result.error is None else result.error.type,
    }
    attributes = _attributes(values)
    return {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": EVENT,
        "kind": 1,
        "startTimeUnixNano": when,
        "endTimeUnixNano": when,
        "attributes": attributes,
        "events": [{"timeUnixNano": when, "name": EVENT, "attributes": attributes}],
        "links": [{"traceId": trace_id, "spanId": parent}],
        "status": {"code": 2 if result.error is not None else 0},
    }


def verdict_requests(
    report: Report, cases: Sequence[TestCase | None], provenance: Provenance | None = None
) -> list[dict[str, Any]]:
    """One OTLP JSON request per evaluated trace: the verdict spans of its row of the report.
    ``cases`` lines up with the report's rows; a row without a traced case is left out."""
    how = provenance or Provenance()
    resource = {"attributes": _attributes({"service.name": "evalmark"})}
    scope = {"name": "evalmark.traces", "version": how.evalmark_version}
    requests = []
    for row, case in zip(report.rows(), cases, strict=True):
        if case is None or "trace-id" not in case.metadata or "span-id" not in case.metadata:
            continue
        spans = [_span(case, row.name, c, r, report.name, how) for c, r in row.results.items()]
        requests.append(
            {
                "resourceSpans": [
                    {"resource": resource, "scopeSpans": [{"scope": scope, "spans": spans}]}
                ]
            }
        )
    return requests


def annotate(
    report: Report,
    cases: Iterable[TestCase],
    path: str | os.PathLike[str],
    *,
    provenance: Provenance | None = None,
) -> int:
    """Write the report's verdicts on the traced ``cases`` (matched to its rows by name) to
    ``path`` as OTLP JSON lines; returns the number of verdict spans written."""
    by_name = {c.name: c for c in cases if c.name is not None}
    aligned = [by_name.get(name) for name in report.sample_names]
    requests = verdict_requests(report, aligned, provenance)
    lines = b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in requests)
    write_atomically(path, lines)
    return sum(len(r["resourceSpans"][0]["scopeSpans"][0]["spans"]) for r in requests)
