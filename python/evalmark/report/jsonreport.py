"""The JSON report format: every figure and every result, readable back with ``from_json``.

The document is byte-stable: keys in a fixed order (metadata keys sorted), floats in Python's
shortest round-trip form, no timestamps unless the caller put one in the report's metadata.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import msgspec

from evalmark.data.results import EvaluationResult, ResultColumn
from evalmark.report.model import Report, SampleUsage, SkippedSample

__all__ = ["FORMAT", "VERSION", "dumps", "render", "report_from_json", "report_to_dict", "to_plain"]

FORMAT = "evalmark-report"
VERSION = 1


def to_plain(value: Any) -> Any:
    """``value`` as plain JSON values: mapping keys sorted, tuples and sets as lists, Decimals
    as strings, anything else unknown as its ``repr``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, Mapping):
        return {str(k): to_plain(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((to_plain(v) for v in value), key=repr)
    if isinstance(value, Decimal):
        return str(value)
    to_builtins = getattr(value, "to_dict", None)
    if callable(to_builtins):
        return to_plain(to_builtins())
    return repr(value)


def _result_dict(result: EvaluationResult) -> dict[str, Any]:
    data = result.to_dict()
    if "metadata" in data:
        data["metadata"] = to_plain(data["metadata"])
    return data


def dumps(document: Any, indent: int | None = 2) -> str:
    """JSON text of plain values, keys in insertion order, UTF-8 unescaped, ending with a
    newline (msgspec: the same bytes as ``json.dumps`` but for exponent spelling, and fast)."""
    encoded = msgspec.json.encode(document)
    if indent:
        encoded = msgspec.json.format(encoded, indent=indent)
    return encoded.decode("utf-8") + "\n"


def report_to_dict(report: Report) -> dict[str, Any]:
    """The JSON document of ``report`` as Python values."""
    summary = report.summary
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
        entry["results"] = {name: _result_dict(r) for name, r in row.results.items()}
        samples.append(entry)
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": report.name,
        "metadata": to_plain(dict(report.metadata)),
        "summary": {"samples": len(report), "skipped": len(report.skipped), **summary.to_dict()},
        "strategies": {name: s.to_dict() for name, s in report.by_strategy().items()},
        "metrics": report.metric_means(),
        "totals": report.totals(),
        "tags": {tag: s.to_dict() for tag, s in report.by_tag().items()},
        "guardrails": {name: g.to_dict() for name, g in report.guardrails().items()},
        "samples": samples,
        "skipped": [{"name": s.name, "error": s.error} for s in report.skipped],
    }
    return document


def render(report: Report, *, indent: int | None = 2, timestamp: bool | str = False) -> str:
    """The JSON report text (ends with a newline); ``timestamp=True`` (or a text) adds a
    ``generated_at`` field after ``name``."""
    from evalmark.report.formatters import stamp

    document = report_to_dict(report)
    when = stamp(timestamp)
    if when:
        document = {
            **{k: document[k] for k in ("format", "version", "name")},
            "generated_at": when,
            **document,
        }
    return dumps(document, indent)


def report_from_json(text: str | bytes) -> Report:
    """Read a JSON report back. Raises ``ValueError`` saying what is wrong with the document."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON report: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(
            f'not an evalmark report: expected a JSON object with "format": "{FORMAT}" '
            "(write one with report.to_json())"
        )
    if document.get("version") != VERSION:
        raise ValueError(
            f"evalmark report version {document.get('version')!r} is not supported (this "
            f"evalmark reads version {VERSION})"
        )
    rows = document.get("samples", [])
    strategies = list(document.get("strategies", {}))
    results: dict[str, list[EvaluationResult]] = {name: [] for name in strategies}
    usage: dict[int, SampleUsage] = {}
    for index, row in enumerate(rows):
        row_results = row.get("results", {})
        for name in strategies:
            if name not in row_results:
                raise ValueError(
                    f"report sample {row.get('name')!r} has no result for strategy {name!r}"
                )
            results[name].append(EvaluationResult.from_dict(row_results[name]))
        if any(key in row for key in ("latency_ms", "tokens", "cost")):
            usage[index] = SampleUsage.from_dict(row)
    return Report(
        name=str(document.get("name", "")),
        sample_names=[str(row["name"]) for row in rows],
        sample_tags=[tuple(row.get("tags", ())) for row in rows],
        columns={name: ResultColumn.from_results(rs) for name, rs in results.items()},
        outputs=[row.get("output") for row in rows],
        usage=usage,
        skipped=[SkippedSample(s["name"], s["error"]) for s in document.get("skipped", [])],
        metadata=document.get("metadata") or {},
    )
