"""Reading a JSON report back: :func:`decode` (text to values) and :func:`report_parts` (values
to the arguments of ``Report(...)``).

Reading checks every field it uses, so a damaged or foreign file gives a
:class:`~evalmark.errors.ReportFormatError` naming the file and the field (``samples[3].name``)
or line, never another exception. This module knows no ``Report``: the report's classmethods
(``Report.from_json``, ``Report.read``) call it.
"""

from __future__ import annotations

import re
from decimal import InvalidOperation
from typing import Any

import msgspec

from evalmark.errors import Problem, ReportFormatError
from evalmark.report._gate_result import GateResult
from evalmark.report._values import SampleUsage, SkippedSample
from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = ["FORMAT", "MAX_DEPTH", "VERSION", "decode", "report_parts"]

FORMAT = "evalmark-report"
VERSION = 1
MAX_DEPTH = 100  # nesting of metadata values; reports written by evalmark stay far below it

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
            '(write one with write_report(report, "report.json"))',
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
