"""History rows from reports: one :class:`CaseResult` per case and check."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from evalmark.history.record import CaseResult

__all__ = ["results_from_reports"]


class _Row(Protocol):
    name: str
    tags: tuple[str, ...]
    results: Mapping[str, Any]


class _Report(Protocol):
    name: str

    def rows(self) -> Iterable[_Row]: ...


def results_from_reports(reports: Sequence[_Report]) -> Iterator[CaseResult]:
    """The results of ``reports`` in order; with more than one report, each case is named
    ``report/sample`` so that cases of different evaluations stay apart."""
    qualify = len(reports) > 1
    for report in reports:
        for row in report.rows():
            case = f"{report.name}/{row.name}" if qualify else row.name
            for strategy, result in row.results.items():
                error = result.error
                yield CaseResult(
                    case=case,
                    strategy=strategy,
                    passed=bool(result.passed),
                    score=float(result.score),
                    error=None if error is None else f"{error.type}: {error.message}",
                    explanation=result.explanation or "",
                    tags=tuple(row.tags),
                )
