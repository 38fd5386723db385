"""The JSON document of a report: plain values out (:func:`report_document`), checked values
back in (:func:`decode` and :func:`report_parts`).

The document is byte-stable: keys in a fixed order (metadata keys sorted), floats in their
shortest round-trip form, no timestamps unless the caller put one in the report's metadata.
Reading checks every field it uses, so a damaged or foreign file gives a
:class:`~evalmark.errors.ReportFormatError` naming the file and the field (``samples[3].name``)
or line, never another exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import msgspec

from evalmark.data.results import EvaluationResult, ResultColumn
from evalmark.errors import Problem, ReportFormatError
from evalmark.report.gates import GateResult
from evalmark.report.values import SampleUsage, SkippedSample

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "VERSION",
    "decode",
    "dumps",
    "report_document",
    "report_parts",
    "result_entry",
    "sample_entries",
    "to_plain",
]

FORMAT = "evalmark-report"
VERSION = 1
MAX_DEPTH = 100  # nesting of metadata values; reports written by evalmark stay far below it


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


def dumps(document: Any, indent: int | None = 2) -> str:
    """JSON text of plain values, keys in insertion order, UTF-8 unescaped, ending with a
    newline (msgspec: the same bytes as ``json.dumps`` but for exponent spelling, and fast)."""
    encoded = msgspec.json.encode(document)
    if indent:
        encoded = msgspec.json.format(encoded, indent=indent)
    return encoded.decode("utf-8") + "\n"


def result_entry(result: EvaluationResult) -> dict[str, Any]:
    """One result as it appears in the document (metadata as plain values)."""
    data = result.to_dict()
    if "metadata" in data:
        data["metadata"] = to_plain(data["metadata"])
    return data


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
    (:mod:`evalmark.report.render.json_rows`)."""
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


# --------------------------------------------------------------------------- reading

_BYTE = re.compile(r"\(byte (\d+)\)")


def _problem(source: str | None, message: str, *, line: int | None = None, field: str = "") -> Any:
    return ReportFormatError([Problem(message, path=source, line=line, record=field or None)])


def decode(data: str | bytes, source: str | None = None) -> Any:
    """The JSON value in ``data``; :class:`ReportFormatError` naming ``source`` and the line
    when it is not JSON or is nested deeper than a report can be."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        found = _BYTE.search(str(exc))
        line = raw.count(b"\n", 0, int(found.group(1))) + 1 if found else None
        reason = _BYTE.sub("", str(exc)).strip().rstrip(".")
        raise _problem(source, f"not a JSON report: {reason}", line=line) from None
    except RecursionError:
        raise _problem(
            source,
            "not a report: the JSON is nested too deep to read (a report nests a few levels)",
        ) from None


def _expect(value: Any, kind: type | tuple[type, ...], source: str | None, field: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        names = {dict: "an object", list: "an array", str: "a string", int: "a number"}
        wanted = " or ".join(names.get(k, k.__name__) for k in _kinds(kind))
        raise _problem(source, f"expected {wanted}, got {_json_type(value)}", field=field)
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _check_depth(value: Any, source: str | None, field: str) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _problem(
                source,
                f"nested more than {MAX_DEPTH} levels deep; a report's values are not",
                field=field,
            )
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _result(value: Any, source: str | None, field: str) -> EvaluationResult:
    _expect(value, dict, source, field)
    _check_depth(value.get("metadata"), source, f"{field}.metadata")
    try:
        return EvaluationResult.from_dict(value)
    except KeyError as exc:
        raise _problem(source, f"missing the key {exc}", field=field) from None
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        raise _problem(source, str(exc), field=field) from None


def _number(value: Any, source: str | None, field: str, kind: type = float) -> Any:
    if value is None:
        return None
    allowed = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, allowed):
        wanted = "a whole number" if kind is int else "a number"
        raise _problem(source, f"expected {wanted} or null, got {_json_type(value)}", field=field)
    return value


def _usage(row: dict[str, Any], source: str | None, field: str) -> SampleUsage:
    _number(row.get("latency_ms"), source, f"{field}.latency_ms")
    tokens = row.get("tokens")
    if tokens is not None:
        _expect(tokens, dict, source, f"{field}.tokens")
        for part in ("input", "output", "total"):
            _number(tokens.get(part), source, f"{field}.tokens.{part}", int)
    cost = row.get("cost")
    if cost is not None:
        _expect(cost, str, source, f"{field}.cost")
    try:
        return SampleUsage.from_dict(row)
    except (InvalidOperation, TypeError, ValueError) as exc:
        raise _problem(source, f"unreadable usage: {exc}", field=field) from None


def report_parts(document: Any, source: str | None = None) -> dict[str, Any]:
    """The keyword arguments of ``Report(...)`` for a decoded JSON report; raises
    :class:`ReportFormatError` naming ``source`` and the field for anything unreadable."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _problem(
            source,
            f'not an evalmark report: expected a JSON object with "format": "{FORMAT}" '
            "(write one with report.to_json())",
        )
    if document.get("version") != VERSION:
        raise _problem(
            source,
            f"evalmark report version {document.get('version')!r} is not supported (this "
            f"evalmark reads version {VERSION})",
            field="version",
        )
    rows = _expect(document.get("samples", []), list, source, "samples")
    strategies = list(_expect(document.get("strategies", {}), dict, source, "strategies"))
    results: dict[str, list[EvaluationResult]] = {name: [] for name in strategies}
    usage: dict[int, SampleUsage] = {}
    names: list[str] = []
    tags: list[tuple[str, ...]] = []
    outputs: list[str | None] = []
    for index, row in enumerate(rows):
        where = f"samples[{index}]"
        _expect(row, dict, source, where)
        names.append(_expect(row.get("name"), str, source, f"{where}.name"))
        row_tags = _expect(row.get("tags", []), list, source, f"{where}.tags")
        tags.append(tuple(_expect(t, str, source, f"{where}.tags") for t in row_tags))
        output = row.get("output")
        outputs.append(None if output is None else _expect(output, str, source, f"{where}.output"))
        row_results = _expect(row.get("results", {}), dict, source, f"{where}.results")
        for name in strategies:
            if name not in row_results:
                raise _problem(source, f"no result for strategy {name!r}", field=f"{where}.results")
            results[name].append(_result(row_results[name], source, f"{where}.results.{name}"))
        if any(key in row for key in ("latency_ms", "tokens", "cost")):
            usage[index] = _usage(row, source, where)
    skipped = []
    for index, entry in enumerate(_expect(document.get("skipped", []), list, source, "skipped")):
        where = f"skipped[{index}]"
        _expect(entry, dict, source, where)
        skipped.append(
            SkippedSample(
                _expect(entry.get("name"), str, source, f"{where}.name"),
                _expect(entry.get("error"), str, source, f"{where}.error"),
            )
        )
    gates = []
    for index, entry in enumerate(_expect(document.get("gate", []), list, source, "gate")):
        where = f"gate[{index}]"
        _expect(entry, dict, source, where)
        try:
            gates.append(GateResult.from_dict(entry))
        except KeyError as exc:
            raise _problem(source, f"missing the key {exc}", field=where) from None
        except (TypeError, ValueError) as exc:
            raise _problem(source, str(exc), field=where) from None
    metadata = document.get("metadata") or {}
    _expect(metadata, dict, source, "metadata")
    _check_depth(metadata, source, "metadata")
    name = document.get("name", "")
    return {
        "name": name if isinstance(name, str) else str(name),
        "sample_names": names,
        "sample_tags": tags,
        "columns": {name: ResultColumn.from_results(rs) for name, rs in results.items()},
        "outputs": outputs,
        "usage": usage,
        "skipped": skipped,
        "metadata": metadata,
        "gates": gates,
    }
