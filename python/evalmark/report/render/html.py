"""The HTML report format: one self-contained page (inline CSS, no scripts, nothing fetched).

Every text that comes from a run (names, outputs, explanations) is escaped, so a model reply
holding ``<script>`` shows as text.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from evalmark.report.render.common import number, percent, stamp
from evalmark.report.render.conversation import html_section

if TYPE_CHECKING:
    from evalmark.report.model import Report
    from evalmark.report.values import Tally

__all__ = ["render"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1b1f24;max-width:72rem}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem}
th,td{border:1px solid #d0d7de;padding:0.3rem 0.6rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td.v{color:#b3261e;font-weight:600} tr.pass td.v{color:#1a7f37}
tr.error td.v{color:#9a6700;font-weight:600}
pre{white-space:pre-wrap;margin:0;font-size:0.85rem;max-width:40rem}
.score{font-size:1.4rem;font-weight:600}
""".strip()


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _summary_cells(summary: Tally) -> str:
    return (
        f'<td class="n">{percent(summary.score)}</td><td class="n">{summary.passed}</td>'
        f'<td class="n">{summary.failed}</td><td class="n">{summary.errors}</td>'
        f'<td class="n">{number(summary.mean)}</td>'
    )


_SUMMARY_HEAD = (
    "<tr><th>{}</th><th>Pass rate</th><th>Passed</th><th>Failed</th><th>Errors</th>"
    "<th>Mean score</th></tr>"
)


def render(report: Report, *, max_rows: int | None = None, timestamp: bool | str = False) -> str:
    """The HTML page. ``max_rows`` caps the sample table; ``timestamp=True`` (or a text) adds
    a "Generated" line."""
    s = report.summary
    when = stamp(timestamp)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        f"<title>Evaluation report: {_e(report.name)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Evaluation report: {_e(report.name)}</h1>",
        *([f"<p>Generated {_e(when)}.</p>"] if when else []),
        f'<p class="score">Score: {percent(s.score)}</p>',
        f"<p>{s.passed} passed, {s.failed} failed, {s.errors} errors of {s.evaluations} "
        f"evaluations ({len(report)} samples, {len(report.strategies)} strategies).</p>",
    ]
    if report.skipped:
        skipped = ", ".join(_e(k.name) for k in report.skipped)
        parts.append(f"<p>Skipped samples whose function raised: {skipped}</p>")
    parts += ["<h2>Strategies</h2>", "<table>", _SUMMARY_HEAD.format("Strategy")]
    for name, summary in report.by_strategy().items():
        parts.append(f"<tr><td>{_e(name)}</td>{_summary_cells(summary)}</tr>")
    parts += ["</table>", "<h2>Metric means</h2>", "<table><tr><th>Metric</th><th>Mean</th></tr>"]
    for name, value in report.metric_means().items():
        parts.append(f'<tr><td>{_e(name)}</td><td class="n">{number(value, 4)}</td></tr>')
    parts.append("</table>")
    tags = report.by_tag()
    if tags:
        parts += ["<h2>Tags</h2>", "<table>", _SUMMARY_HEAD.format("Tag")]
        for tag, summary in tags.items():
            parts.append(f"<tr><td>{_e(tag)}</td>{_summary_cells(summary)}</tr>")
        parts.append("</table>")
    guardrails = report.guardrails()
    if guardrails:
        parts += [
            "<h2>Guardrails</h2><p>REJECT is the positive class.</p><table>",
            "<tr><th>Strategy</th><th>Accuracy</th><th>Precision</th><th>Recall</th>"
            "<th>False-positive rate</th><th>False-negative rate</th><th>Undecided</th></tr>",
        ]
        for name, g in guardrails.items():
            cells = "".join(
                f'<td class="n">{number(v)}</td>'
                for v in (
                    g.accuracy,
                    g.precision,
                    g.recall,
                    g.false_positive_rate,
                    g.false_negative_rate,
                )
            )
            parts.append(f'<tr><td>{_e(name)}</td>{cells}<td class="n">{g.undecided}</td></tr>')
        parts.append("</table>")
    parts += [
        "<h2>Samples</h2>",
        "<table><tr><th>Sample</th><th>Tags</th><th>Verdict</th><th>Score</th><th>Output</th>"
        "<th>Explanation</th></tr>",
    ]
    count = len(report) if max_rows is None else min(max_rows, len(report))
    for index in range(count):
        row = report.row(index)
        output = "" if row.output is None else f"<pre>{_e(row.output)}</pre>"
        parts.append(
            f'<tr class="{row.verdict}"><td>{_e(row.name)}</td><td>{_e(", ".join(row.tags))}</td>'
            f'<td class="v">{row.verdict}</td><td class="n">{number(row.score)}</td>'
            f"<td>{output}</td><td><pre>{_e(row.explanation)}</pre></td></tr>"
        )
    parts.append("</table>")
    if count < len(report):
        parts.append(f"<p>… and {len(report) - count} more samples.</p>")
    parts += html_section(report)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
