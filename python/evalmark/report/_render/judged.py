"""The "corrected for the judge" section of a report made with a judge's measured rates, for the
Markdown, HTML and JUnit reports and the terminal: per judged check (overall, then per tag) the
raw pass rate beside the corrected one and its interval. All read the report's
``metadata["judge_correction"]`` (:mod:`evalmark.report._judged`); a report without it gets no
section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

from evalmark.report._judged import judge_correction_of
from evalmark.report._render.common import cell, markdown_table
from evalmark.report._render.common import html_text as _e
from evalmark.report._render.terminal import table

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["judged_html", "judged_junit", "judged_markdown", "judged_text"]

_HEADER = ["Check", "Tag", "Judged passed", "Raw pass rate", "Corrected", "Interval"]


def _pct(value: Any) -> str:
    return f"{100 * float(value):.1f}%"


def _cells(row: Mapping[str, Any]) -> list[str]:
    tag = row.get("tag")
    return [
        str(row["check"]),
        "all" if tag is None else str(tag),
        f"{row['passed']}/{row['judged']}",
        _pct(row["raw"]),
        _pct(row["corrected"]),
        f"{_pct(row['low'])}–{_pct(row['high'])}",
    ]


def _intro(found: Mapping[str, Any]) -> str:
    rates = found.get("rates", {})
    fp, ff = rates.get("false_pass", {}), rates.get("false_fail", {})
    level = f"{100 * float(found.get('confidence', 0.95)):g}%"
    return (
        f"Judged pass rates corrected for the judge's measured errors: false pass "
        f"{fp.get('errors')}/{fp.get('trials')}, false fail {ff.get('errors')}/"
        f"{ff.get('trials')} (from {rates.get('source', 'unnamed source')}). "
        f"Method: {found.get('method', '')}. Intervals at {level}."
    )


def judged_markdown(report: Report) -> list[str]:
    """The section's Markdown lines; none for a report without corrected figures."""
    found = judge_correction_of(report)
    if found is None:
        return []
    out = ["", "## Corrected for the judge", "", cell(_intro(found), 2000), ""]
    return out + markdown_table(
        _HEADER,
        [":--", ":--", "--:", "--:", "--:", "--:"],
        [[cell(c) for c in _cells(row)] for row in found["rows"]],
    )


def judged_html(report: Report) -> list[str]:
    """The section's HTML parts; none for a report without corrected figures."""
    found = judge_correction_of(report)
    if found is None:
        return []
    head = "".join(f"<th>{_e(h)}</th>" for h in _HEADER)
    parts = [
        '<section id="judge-correction"><h2>Corrected for the judge</h2>',
        f"<p>{_e(_intro(found))}</p>",
        f"<table><tr>{head}</tr>",
    ]
    for row in found["rows"]:
        cells = _cells(row)
        text = "".join(f"<td>{_e(c)}</td>" for c in cells[:2])
        numbers = "".join(f'<td class="n">{_e(c)}</td>' for c in cells[2:])
        parts.append(f"<tr>{text}{numbers}</tr>")
    parts.append("</table></section>")
    return parts


def judged_junit(report: Report) -> list[str]:
    """``<property>`` lines of the JUnit test suite, one per corrected figure; none without."""
    found = judge_correction_of(report)
    if found is None:
        return []
    lines = ["    <properties>"]
    for row in found["rows"]:
        check, tag, passed, raw, corrected, interval = _cells(row)
        name = f"judge-corrected {check}" + ("" if row.get("tag") is None else f" [{tag}]")
        value = f"raw {raw} ({passed}), corrected {corrected} ({interval})"
        lines.append(f"      <property name={quoteattr(name)} value={quoteattr(value)}/>")
    return [*lines, "    </properties>"]


def judged_text(report: Report) -> str:
    """The overall figure of each check for a terminal (the per-tag ones are in the reports);
    empty for a report without corrected figures."""
    found = judge_correction_of(report)
    if found is None:
        return ""
    rates = found.get("rates", {})
    fp, ff = rates.get("false_pass", {}), rates.get("false_fail", {})
    head = (
        f"corrected for the judge (false pass {fp.get('errors')}/{fp.get('trials')}, false "
        f"fail {ff.get('errors')}/{ff.get('trials')}; "
        f"{100 * float(found.get('confidence', 0.95)):g}% intervals)\n"
    )
    rows = [_cells(row)[:1] + _cells(row)[2:] for row in found["rows"] if row.get("tag") is None]
    header = [h.lower() for h in _HEADER if h != "Tag"]
    tags = len(found["rows"]) - len(rows)
    note = f"(and {tags} per tag in the reports)\n" if tags else ""
    return head + table(header, rows, right=[1, 2, 3, 4]) + note
