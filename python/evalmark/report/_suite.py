"""Suite reports: several reports (one per dataset, function or pytest test) combined into one.

The suite's figures are summed over its reports: its pass rate is the fraction of all
their cases whose every check passed. Like a report, a suite is a value: rendered by
``render_report(suite, "markdown")`` (an overview table, the gate and each report's failing
cases) or ``render_report(suite, "json")`` (every report in full, read back with
``SuiteReport.from_json``), gated by ``require_suite_pass_rate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalmark._files.text import escape_surrogates
from evalmark.errors import Problem, ReportFormatError
from evalmark.report._cases import CaseTally
from evalmark.report._document import VERSION, report_document
from evalmark.report._model import Report
from evalmark.report._reading import decode
from evalmark.report._values import Tally

__all__ = ["SUITE_FORMAT", "SuiteReport"]

SUITE_FORMAT = "evalmark-suite"


class SuiteReport:
    """Reports combined; their names must be distinct. A frozen value, like a report."""

    __slots__ = ("name", "reports")

    name: str
    reports: tuple[Report, ...]

    def __init__(self, reports: Iterable[Report], *, name: str = "suite") -> None:
        object.__setattr__(self, "reports", tuple(reports))
        object.__setattr__(self, "name", name)
        names = [r.name for r in self.reports]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(
                f"suite {name!r}: report names must be distinct; {', '.join(doubled)} repeat "
                "(pass name=... to Scorer.evaluate)"
            )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"SuiteReport is immutable (cannot set {name!r})")

    def __eq__(self, other: object) -> bool:
        """Equal when the JSON documents are equal: the same name and, in order, equal reports
        (see :meth:`Report.__eq__`; the summary follows from them). Suites are not hashable."""
        if not isinstance(other, SuiteReport):
            return NotImplemented
        return (
            len(self.reports) == len(other.reports)
            and escape_surrogates(self.name) == escape_surrogates(other.name)
            and all(a == b for a, b in zip(self.reports, other.reports, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def __iter__(self) -> Iterator[Report]:
        return iter(self.reports)

    def __len__(self) -> int:
        return len(self.reports)

    def __getitem__(self, name: str) -> Report:
        for report in self.reports:
            if report.name == name:
                return report
        raise KeyError(
            f"suite {self.name!r} has no report {name!r}; it has "
            f"{', '.join(r.name for r in self.reports) or 'none'}"
        )

    @property
    def summary(self) -> Tally:
        """Counts summed over every report; ``mean`` is left as None."""
        parts = [r.summary for r in self.reports]
        return Tally.of_counts(
            sum(p.evaluations for p in parts),
            sum(p.passed for p in parts),
            sum(p.failed for p in parts),
            sum(p.errors for p in parts),
        )

    def cases(self) -> CaseTally:
        """The cases of every report summed (see :meth:`Report.cases`)."""
        return sum((r.cases() for r in self.reports), CaseTally(0, 0, 0, 0))

    @property
    def pass_rate(self) -> float:
        """The fraction of all the reports' cases whose every check passed, in [0, 1]."""
        return self.cases().pass_rate

    @property
    def check_pass_rate(self) -> float:
        """The fraction of all single evaluations (sample × check) that passed, in [0, 1]."""
        return self.summary.check_pass_rate

    def to_dict(self, *, with_reports: bool = True) -> dict[str, Any]:
        """The JSON document as Python values (``reports`` empty unless ``with_reports``)."""
        return {
            "format": SUITE_FORMAT,
            "version": VERSION,
            "name": self.name,
            "summary": {**self.summary.to_dict(), "cases": self.cases().to_dict()},
            "reports": [report_document(r) for r in self.reports] if with_reports else [],
        }

    @classmethod
    def read_any(cls, path: str | Path) -> SuiteReport:
        """The JSON file at ``path`` as a suite, whether it holds a suite (the pytest plugin's
        ``evaluation-suite-report.json``, a suite run's) or one report (a suite of one,
        named after the report). ``FileNotFoundError`` when there is none;
        :class:`~evalmark.errors.ReportFormatError` when it is neither."""
        data = Path(path).read_bytes()
        document = decode(data, str(path))
        if isinstance(document, dict) and document.get("format") == SUITE_FORMAT:
            return cls._of_document(document, str(path))
        report = Report.from_dict(document, source=str(path))
        return cls([report], name=report.name)

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str | None = None) -> SuiteReport:
        """Read back ``render_report(suite, "json")``;
        :class:`~evalmark.errors.ReportFormatError` (a ``ValueError``) naming ``source`` and
        the place when it is not such a suite."""
        return cls._of_document(decode(text, source), source)

    @classmethod
    def _of_document(cls, document: Any, source: str | None) -> SuiteReport:
        if not isinstance(document, dict) or document.get("format") != SUITE_FORMAT:
            raise ReportFormatError(
                [Problem(f'not an evalmark suite: expected "format": "{SUITE_FORMAT}"', source)]
            )
        entries = document.get("reports", [])
        if not isinstance(entries, list):
            raise ReportFormatError([Problem("expected an array", source, record="reports")])
        reports = []
        for index, entry in enumerate(entries):
            try:
                reports.append(Report.from_dict(entry, source=source))
            except ReportFormatError as exc:
                first = exc.problems[0]
                where = f"reports[{index}]" + (f".{first.record}" if first.record else "")
                raise ReportFormatError(
                    [
                        Problem(
                            f"a suite entry is not an evalmark report: {first.message}",
                            source,
                            record=where,
                        )
                    ]
                ) from None
        name = document.get("name", "suite")
        try:
            return cls(reports, name=name if isinstance(name, str) else str(name))
        except ValueError as exc:  # two reports of one name
            raise ReportFormatError([Problem(str(exc), source, record="reports")]) from None

    def __repr__(self) -> str:
        return (
            f"SuiteReport(name={self.name!r}, reports={len(self.reports)}, "
            f"pass_rate={self.pass_rate:.4g})"
        )
