"""History rows from reports: one :class:`CaseResult` per case and check, each check named by
the one rule of :func:`~evalmark.history._naming.check_name`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from evalmark.history._naming import check_name
from evalmark.history._record import UNKNOWN, AnswerIdentity, CaseResult

__all__ = ["results_from_reports"]


class _Row(Protocol):
    name: str
    tags: tuple[str, ...]
    results: Mapping[str, Any]


class _Report(Protocol):
    name: str

    def rows(self) -> Iterable[_Row]: ...


def results_from_reports(
    reports: Sequence[_Report],
    identities: Sequence[Mapping[str, AnswerIdentity]] = (),
) -> Iterator[CaseResult]:
    """The results of ``reports`` in order; with more than one report, each case is named
    ``report/sample`` so that cases of different evaluations stay apart. ``identities`` gives,
    per report, what produced the answer of each sample (by sample name); a sample it does not
    name is of unknown identity."""
    qualify = len(reports) > 1
    for index, report in enumerate(reports):
        known = identities[index] if index < len(identities) else {}
        for row in report.rows():
            case = f"{report.name}/{row.name}" if qualify else row.name
            identity = known.get(row.name, UNKNOWN)
            for strategy, result in row.results.items():
                error = result.error
                yield CaseResult(
                    case=case,
                    strategy=check_name(strategy),
                    passed=bool(result.passed),
                    score=float(result.score),
                    error=None if error is None else f"{error.type}: {error.message}",
                    explanation=result.explanation or "",
                    tags=tuple(row.tags),
                    identity=identity,
                )
