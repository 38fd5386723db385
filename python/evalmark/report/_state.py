"""A report's state as plain values: what pickling keeps, and what value equality compares.

Two reports are equal when their JSON documents are equal. Every figure of the document
(summary, per-check and per-tag tallies, metric means, totals, guardrails, verdicts) is
computed from the parts compared here: the name, the checks in order, each sample's name,
tags, output text, usage and results, the skipped samples, the metadata and the gate results.
Those parts compare as the JSON report writes them:

* a float compares by value, so ``0.0`` equals ``-0.0`` (a score is always in [0, 1]); a NaN
  or an infinity in metadata is written as its ``repr`` (``"nan"``, ``"inf"``), so a NaN
  there equals a NaN; one anywhere else (a usage figure) is written as ``null``;
* a tuple equals the list of its items, metadata keys compare as text, in sorted order;
* a lone surrogate compares as the six characters ``\\udcff`` it is written as.

So ``Report.from_json(render_report(r, "json")) == r`` for every report ``r``. The module
imports no other module of the report package; the report's own module uses it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any, Protocol

import msgspec

from evalmark._files.text import without_surrogates
from evalmark.results._results import EvaluationResult, ResultColumn

__all__ = ["ReportParts", "pickle_state", "result_entry", "same_state", "to_plain"]


class ReportParts(Protocol):
    """What this module reads of a report (:class:`~evalmark.report.Report`)."""

    @property
    def name(self) -> str: ...
    @property
    def sample_names(self) -> tuple[str, ...]: ...
    @property
    def sample_tags(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def strategies(self) -> tuple[str, ...]: ...
    @property
    def skipped(self) -> Sequence[Any]: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...
    @property
    def gates(self) -> Sequence[Any]: ...
    def __len__(self) -> int: ...
    def column(self, strategy: str) -> ResultColumn: ...
    def output(self, index: int) -> str | None: ...
    def usage(self, index: int) -> Any: ...


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


def result_entry(result: EvaluationResult) -> dict[str, Any]:
    """One result as it appears in the document (metadata as plain values)."""
    data = result.to_dict()
    if "metadata" in data:
        data["metadata"] = to_plain(data["metadata"])
    return data


def _samples(report: ReportParts) -> Iterator[list[Any]]:
    columns = [report.column(name) for name in report.strategies]
    for index, name in enumerate(report.sample_names):
        usage = report.usage(index)
        yield [
            name,
            list(report.sample_tags[index]),
            report.output(index),
            None if usage is None else usage.to_dict(),
            [result_entry(column[index]) for column in columns],
        ]


def _plain_state(report: ReportParts) -> Any:
    """The parts the JSON document is made of, as the JSON text holds them."""
    state = [
        report.name,
        list(report.strategies),
        list(_samples(report)),
        [[s.name, s.error] for s in report.skipped],
        to_plain(dict(report.metadata)),
        [gate.to_dict() for gate in report.gates],
    ]
    return msgspec.json.decode(msgspec.json.encode(without_surrogates(state)))


def same_state(first: ReportParts, second: ReportParts) -> bool:
    """True when the two reports' JSON documents are equal (see the module's rules)."""
    if first is second:
        return True
    if len(first) != len(second) or len(first.strategies) != len(second.strategies):
        return False
    return bool(_plain_state(first) == _plain_state(second))


def pickle_state(report: ReportParts) -> dict[str, Any]:
    """What a pickled report keeps: what the JSON report keeps (results, output texts, usage);
    columns explain rows with closures, which do not pickle, and are rebuilt from the results."""
    usage = ((i, report.usage(i)) for i in range(len(report)))
    return {
        "name": report.name,
        "sample_names": report.sample_names,
        "sample_tags": report.sample_tags,
        "columns": {name: list(report.column(name)) for name in report.strategies},
        "outputs": [report.output(i) for i in range(len(report))],
        "usage": {i: u for i, u in usage if u is not None},
        "skipped": report.skipped,
        "metadata": dict(report.metadata),
        "gates": report.gates,
    }
