"""Suite reports: several reports (one per dataset, function or pytest test) combined into one.

The suite's figures are summed over its reports: its score is the percentage of all their
evaluations that passed. ``to_markdown`` gives an overview table and each report's summary;
``to_json`` holds every report in full, so a suite reads back with ``SuiteReport.from_json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark.report.jsonreport import FORMAT, VERSION, dumps, report_from_json, report_to_dict
from evalmark.report.markdown import cell, percent
from evalmark.report.model import Report, Summary

__all__ = ["SuiteReport"]

SUITE_FORMAT = "evalmark-suite"


class SuiteReport:
    """Reports combined; their names must be distinct."""

    __slots__ = ("name", "reports")

    def __init__(self, reports: Iterable[Report], *, name: str = "suite") -> None:
        self.reports = tuple(reports)
        self.name = name
        names = [r.name for r in self.reports]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(
                f"suite {name!r}: report names must be distinct; {', '.join(doubled)} repeat "
                "(pass name=... to Scorer.evaluate)"
            )

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
    def summary(self) -> Summary:
        """Counts summed over every report; ``mean`` is left as None."""
        parts = [r.summary for r in self.reports]
        total = sum(p.evaluations for p in parts)
        passed = sum(p.passed for p in parts)
        return Summary(
            evaluations=total,
            passed=passed,
            failed=sum(p.failed for p in parts),
            errors=sum(p.errors for p in parts),
            score=100.0 * passed / total if total else 0.0,
            mean=None,
        )

    @property
    def score(self) -> float:
        """Percentage of all evaluations that passed (0–100)."""
        return self.summary.score

    def require_pass_rate(self, minimum: float) -> SuiteReport:
        """Raise ``AssertionError`` unless the suite's pass rate reaches ``minimum``, listing
        the reports below it."""
        s = self.summary
        if s.evaluations and s.passed >= minimum * s.evaluations - 1e-9:
            return self
        below = [
            f"  - {r.name}: {r.pass_rate:.1%} ({r.passed} of {r.evaluations})"
            for r in self.reports
            if r.pass_rate < minimum
        ]
        raise AssertionError(
            f"suite {self.name!r}: pass rate {s.pass_rate:.1%} is below the required "
            f"{minimum:.1%} ({s.passed} of {s.evaluations} evaluations passed). Reports below "
            "it:\n" + "\n".join(below)
        )

    def to_markdown(self) -> str:
        """The suite overview and each report's failures, in Markdown."""
        s = self.summary
        out = [
            f"# Evaluation suite: {cell(self.name)}",
            "",
            f"**Score: {percent(s.score)}** — {s.passed} passed, {s.failed} failed, {s.errors} "
            f"errors of {s.evaluations} evaluations in {len(self.reports)} reports.",
            "",
            "| Report | Score | Passed | Failed | Errors | Samples |",
            "|:--|--:|--:|--:|--:|--:|",
        ]
        for report in self.reports:
            r = report.summary
            out.append(
                f"| {cell(report.name)} | {percent(r.score)} | {r.passed} | {r.failed} | "
                f"{r.errors} | {len(report)} |"
            )
        for report in self.reports:
            failing = report.failing_rows()
            out += ["", f"## {cell(report.name)}: {len(failing)} failing samples"]
            if failing:
                out += ["", "| Sample | Verdict | Explanation |", "|:--|:--|:--|"]
                out += [
                    f"| {cell(row.name)} | {row.verdict} | {cell(row.explanation or '—')} |"
                    for row in failing
                ]
        return "\n".join(out) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The JSON document as Python values."""
        return {
            "format": SUITE_FORMAT,
            "version": VERSION,
            "name": self.name,
            "summary": self.summary.to_dict(),
            "reports": [report_to_dict(r) for r in self.reports],
        }

    def to_json(self) -> str:
        """The suite as JSON text, every report in full."""
        return dumps(self.to_dict())

    def write(self, path: str | Path, *, format: str | None = None) -> Path:
        """Write the suite as Markdown (``.md``) or JSON (``.json``), or as ``format``."""
        target = Path(path)
        chosen = format or {".md": "markdown", ".markdown": "markdown", ".json": "json"}.get(
            target.suffix.lower()
        )
        if chosen not in ("markdown", "json"):
            raise ValueError(
                f"a suite report is written as markdown (.md) or json (.json); got "
                f"{format or target.name!r}"
            )
        text = self.to_markdown() if chosen == "markdown" else self.to_json()
        write_atomically(target, text.encode("utf-8"))
        return target

    @classmethod
    def from_json(cls, text: str | bytes) -> SuiteReport:
        """Read back :meth:`to_json`."""
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("format") != SUITE_FORMAT:
            raise ValueError(f'not an evalmark suite: expected "format": "{SUITE_FORMAT}"')
        reports = [report_from_json(dumps(r, None)) for r in document.get("reports", [])]
        for r in document.get("reports", []):
            if r.get("format") != FORMAT:
                raise ValueError("a suite entry is not an evalmark report")
        return cls(reports, name=str(document.get("name", "suite")))

    def __repr__(self) -> str:
        return (
            f"SuiteReport(name={self.name!r}, reports={len(self.reports)}, score={self.score:.1f})"
        )
