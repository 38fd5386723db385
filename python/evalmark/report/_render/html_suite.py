"""The HTML page of a whole suite (a :class:`~evalmark.report.SuiteReport`, e.g. a pytest run):
the suite's counts, a table of its reports with their gates, then each report with the pieces of
the single-report page (gate, summary, checks, tags, conversations, cases).

It keeps the single-report page's rules: one self-contained file, the same Content Security
Policy (nothing fetched; this page runs no script at all), every text from a run escaped, and
the same suite gives the same bytes. Each report's element ids carry the prefix ``rN-`` so the
ids stay unique on the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from evalmark.report._render import html as single
from evalmark.report._render.common import html_text as _e
from evalmark.report._render.common import percent, stamp
from evalmark.report._render.conversation import html_section
from evalmark.report._render.html_assets import CONTENT_SECURITY_POLICY, STYLE
from evalmark.report._render.html_cases import CaseRenderer, case_order
from evalmark.report._render.html_inputs import samples_by_name
from evalmark.report._wording import plural

if TYPE_CHECKING:
    from evalmark.report._model import Report
    from evalmark.report._suite import SuiteReport

__all__ = ["render_suite"]


def _nested(parts: list[str], prefix: str) -> list[str]:
    """Pieces of the single-report page one level down: ids prefixed, ``h2`` as ``h3``. Text
    from a run is escaped in them (no ``"`` or ``<`` of its own), so only markup is changed."""
    return [
        part.replace(' id="', f' id="{prefix}').replace("<h2>", "<h3>").replace("</h2>", "</h3>")
        for part in parts
    ]


def _verdict(report: Report) -> str:
    if not report.gates:
        return "no gate"
    return "passed" if all(gate.passed for gate in report.gates) else "FAILED"


def _overview(suite: SuiteReport) -> list[str]:
    cases, checks = suite.cases(), suite.summary
    rate = f" ({percent(100.0 * cases.pass_rate)})" if cases.cases else ""
    parts = [
        '<section id="summary"><h2>Summary</h2><ul>',
        f"<li><strong>Cases passing every check: {cases.passed} of {cases.cases}{rate}"
        f"</strong>; {cases.failed} failing, {cases.errors} with an error, in "
        f"{plural(len(suite.reports), 'report')}.</li>",
        f"<li>Checks: {checks.passed} of {checks.evaluations} passed "
        f"({percent(100 * checks.check_pass_rate)}).</li></ul>",
        "<table><tr><th>Report</th><th>Cases</th><th>Passed</th><th>Failed</th><th>Errors</th>"
        "<th>Pass rate (cases)</th><th>Gate</th></tr>",
    ]
    for number, report in enumerate(suite.reports, start=1):
        c = report.cases()
        verdict = _verdict(report)
        mark = {"passed": "pass", "FAILED": "fail"}.get(verdict, "none")
        parts.append(
            f'<tr class="{mark}"><td><a href="#r{number}">{_e(report.name)}</a></td>'
            f'<td class="n">{c.cases}</td><td class="n">{c.passed}</td>'
            f'<td class="n">{c.failed}</td><td class="n">{c.errors}</td>'
            f'<td class="n">{percent(100.0 * c.pass_rate)}</td><td class="v">{verdict}</td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _report(report: Report, number: int, inputs: Mapping[str, Any], max_rows: int | None) -> str:
    prefix = f"r{number}-"
    order, code = case_order(report)
    parts = [f'<section class="report" id="r{number}"><h2>Report: {_e(report.name)}</h2>']
    pieces = single._gate(tuple(report.gates))
    pieces += single._summary(report, code)
    pieces += single._checks_table(report)
    pieces += single._tags_table(report, code)
    pieces += html_section(report)
    parts += _nested(pieces, prefix)
    count = len(order) if max_rows is None else min(max_rows, len(order))
    parts.append(f'<section id="{prefix}cases"><h3>Cases</h3>')
    if count < len(order):
        parts.append(
            f"<p>Showing the first {count} of {len(order)} cases (failing cases first).</p>"
        )
    cases = CaseRenderer(report)
    names = report.sample_names
    positions: list[int] = order[:count].tolist()
    shown = cases.render_text(
        positions,
        [single._VERDICTS[v] for v in code[positions].tolist()],
        [inputs.get(names[p]) for p in positions],
        [f"{prefix}case-{p}" for p in positions],
    )
    if shown:
        parts.append(shown)
    parts.append("</section></section>")
    return "\n".join(parts)


def render_suite(
    suite: SuiteReport,
    *,
    max_rows: int | None = None,
    timestamp: bool | str = False,
    samples: Iterable[Any] | Mapping[str, Any] | None = None,
) -> str:
    """The HTML page of ``suite``: its counts, its reports' table and every report in full.

    ``samples`` (a mapping name -> sample, or the samples) adds each case's input and
    expectations; ``max_rows`` caps the cases shown per report (failing ones first);
    ``timestamp=True`` (or a text) adds a "generated" note."""
    if max_rows is not None and (isinstance(max_rows, bool) or max_rows < 0):
        raise ValueError(f"max_rows must be a whole number >= 0 or None, got {max_rows!r}")
    inputs = samples_by_name(samples)
    title = f"Evaluation suite: {_e(suite.name)}"
    when = stamp(timestamp)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
        f"<title>{title}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        *([f'<p class="meta">Generated {_e(when)}</p>'] if when else []),
        *_overview(suite),
    ]
    for number, report in enumerate(suite.reports, start=1):
        parts.append(_report(report, number, inputs, max_rows))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
