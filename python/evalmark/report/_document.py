"""The JSON document of a report as plain values (:func:`report_document`); reading it back is
:mod:`evalmark.report._reading`.

The document is byte-stable: keys in a fixed order (metadata keys sorted), floats in their
shortest round-trip form, no timestamps unless the caller put one in the report's metadata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from evalmark._files.text import without_surrogates
from evalmark.report._reading import FORMAT, VERSION
from evalmark.report._state import result_entry, to_plain

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = [
    "FORMAT",
    "VERSION",
    "dumps",
    "report_document",
    "result_entry",
    "sample_entries",
    "to_plain",
]


def dumps(document: Any, indent: int | None = 2) -> str:
    """JSON text of plain values, keys in insertion order, UTF-8 unescaped, ending with a
    newline (msgspec: the same bytes as ``json.dumps`` but for exponent spelling, and fast)."""
    try:
        encoded = msgspec.json.encode(document)
    except UnicodeEncodeError:  # a lone surrogate: kept, written as \udcff
        encoded = msgspec.json.encode(without_surrogates(document))
    if indent:
        encoded = msgspec.json.format(encoded, indent=indent)
    return encoded.decode("utf-8") + "\n"


def sample_entries(report: Report) -> list[dict[str, Any]]:
    """The ``samples`` of the document: one entry per sample, in sample order."""
    samples = []
    for row in report.rows():
        entry: dict[str, Any] = {
            "name": row.name,
            "tags": list(row.tags),
            "verdict": row.verdict,
            "score": row.score,
        }
        if row.output is not None:
            entry["output"] = row.output
        if row.usage is not None:
            entry.update(row.usage.to_dict())
        entry["results"] = {name: result_entry(r) for name, r in row.results.items()}
        samples.append(entry)
    return samples


def report_document(report: Report, *, with_samples: bool = True) -> dict[str, Any]:
    """The JSON document of ``report`` as plain Python values. ``with_samples=False`` leaves
    ``samples`` an empty list, for a writer that renders the rows itself
    (:mod:`evalmark.report._render.json_rows`)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": report.name,
        "metadata": to_plain(dict(report.metadata)),
        "summary": {
            "samples": len(report),
            "skipped": len(report.skipped),
            **report.summary.to_dict(),
            "cases": report.cases().to_dict(),
        },
        "gate": [gate.to_dict() for gate in report.gates],
        "strategies": {name: s.to_dict() for name, s in report.by_strategy().items()},
        "metrics": report.metric_means(),
        "totals": report.totals(),
        "tags": {
            tag: {**s.to_dict(), "cases": report.cases(tag=tag).to_dict()}
            for tag, s in report.by_tag().items()
        },
        "guardrails": {name: g.to_dict() for name, g in report.guardrails().items()},
        "samples": sample_entries(report) if with_samples else [],
        "skipped": [{"name": s.name, "error": s.error} for s in report.skipped],
    }
