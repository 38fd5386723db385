"""The HTML report format: one self-contained page for a reviewer.

From the top: the report's name, the gate's verdict and its conditions (``report.gates``, or
"no gate applied"), the counts per check and per tag, then every case, failing and errored
ones first, each with its input, expected answer, facts and context (when ``samples=`` gives
them), its actual output and one row per check (verdict, score, reason; a judge's raw text
kept behind a ``<details>``). Filters by tag, by check and "failing only" come from a small
inline script allowed by its hash in the page's Content Security Policy; nothing is fetched,
and with scripts off the page shows everything. Every text that comes from a run is escaped.
The same report gives the same bytes (no timestamp unless asked).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evalmark._files.text import escape_surrogates
from evalmark.report._render.common import html_text as _e
from evalmark.report._render.common import number, percent, stamp
from evalmark.report._render.conversation import html_section
from evalmark.report._render.fill import Filled
from evalmark.report._render.html_assets import CONTENT_SECURITY_POLICY, SCRIPT, STYLE
from evalmark.report._render.html_cases import CaseRenderer, case_order
from evalmark.report._render.html_inputs import samples_by_name
from evalmark.report._render.judged import judged_html
from evalmark.report._render.repeats import repeats_html
from evalmark.report._wording import plural

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["render", "render_escaped"]

_VERDICTS = ("pass", "fail", "error")


def _gate_value(value: float, unit: str) -> str:
    return f"{value:.0f}" if unit == "count" else percent(100.0 * value)


def _gate(gates: Sequence[Any]) -> list[str]:
    if not gates:
        return [
            '<section id="gate" class="none"><h2>No gate applied</h2>',
            "<p>No pass-rate requirement was checked for this report.</p></section>",
        ]
    held = all(bool(g.passed) for g in gates)
    state = "passed" if held else "failed"
    parts = [
        f'<section id="gate" class="{state}"><h2>Gate {state.upper()}</h2>',
        "<table><tr><th>Condition</th><th>Actual</th><th>Required</th><th>Result</th>"
        "<th>Detail</th></tr>",
    ]
    for g in gates:
        unit = getattr(g, "unit", "rate")
        bound = "≤" if unit == "count" else "≥"
        mark = "pass" if g.passed else "fail"
        parts.append(
            f'<tr class="{mark}"><td>{_e(g.label)}</td>'
            f'<td class="n">{_gate_value(g.actual, unit)}</td>'
            f'<td class="n">{bound} {_gate_value(g.required, unit)}</td>'
            f'<td class="v">{"passed" if g.passed else "FAILED"}</td>'
            f"<td>{_e(getattr(g, 'detail', ''))}</td></tr>"
        )
    parts.append("</table></section>")
    return parts


def _case_counts(code: npt.NDArray[np.int8]) -> tuple[int, int, int]:
    counts = np.bincount(code, minlength=3)
    return int(counts[0]), int(counts[1]), int(counts[2])


def _summary(report: Report, code: npt.NDArray[np.int8]) -> list[str]:
    passing, failing, errored = _case_counts(code)
    cases = len(report)
    s = report.summary
    case_rate = f" ({percent(100.0 * passing / cases)})" if cases else ""
    return [
        '<section id="summary"><h2>Summary</h2><ul>',
        f"<li><strong>Cases passing every check: {passing} of {cases}{case_rate}</strong>; "
        f"{failing} failing, {errored} with an error.</li>",
        f"<li>Checks: {s.passed} of {s.evaluations} passed ({percent(100 * s.check_pass_rate)}), "
        f"{s.failed} failed, {plural(s.errors, 'error')} "
        f"({plural(len(report.strategies), 'check')} on each case).</li>",
        *_usage_items(report),
        "</ul></section>",
    ]


def _usage_items(report: Report) -> list[str]:
    means = report.metric_means()
    totals = report.totals()
    items = []
    if "latency_ms" in means:
        items.append(f"mean latency {number(means['latency_ms'], 0)} ms")
    if "tokens" in means:
        items.append(f"mean tokens {number(means['tokens'], 0)}")
    if "cost" in totals:
        items.append(f"total cost {_e(totals['cost'])}")
    return [f"<li>Usage: {', '.join(items)}.</li>"] if items else []


def _checks_table(report: Report) -> list[str]:
    parts = [
        '<section id="checks"><h2>Checks</h2><table><tr><th>Check</th><th>Passed</th>'
        "<th>Failed</th><th>Errors</th><th>Pass rate</th><th>Mean score</th></tr>"
    ]
    for name, t in report.by_strategy().items():
        parts.append(
            f'<tr><td>{_e(name)}</td><td class="n">{t.passed} of {t.evaluations}</td>'
            f'<td class="n">{t.failed}</td><td class="n">{t.errors}</td>'
            f'<td class="n">{percent(100 * t.check_pass_rate)}</td>'
            f'<td class="n">{number(t.mean)}</td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _tags_table(report: Report, code: npt.NDArray[np.int8]) -> list[str]:
    tags = report.tags
    if not tags:
        return []
    parts = [
        '<section id="tags"><h2>Tags</h2><p>Cases per tag (a case passes when every check '
        "passes it).</p><table><tr><th>Tag</th><th>Cases</th><th>Passing</th><th>Failing</th>"
        "<th>Errors</th><th>Pass rate</th></tr>"
    ]
    for tag in tags:
        passing, failing, errored = _case_counts(code[report.tag_mask(tag)])
        total = passing + failing + errored
        parts.append(
            f'<tr><td>{_e(tag)}</td><td class="n">{total}</td><td class="n">{passing}</td>'
            f'<td class="n">{failing}</td><td class="n">{errored}</td>'
            f'<td class="n">{percent(100.0 * passing / total if total else 0.0)}</td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _guardrails(report: Report) -> list[str]:
    guardrails = report.guardrails()
    if not guardrails:
        return []
    positive = " / ".join(sorted({g.positive for g in guardrails.values()}))
    parts = [
        '<section id="guardrails"><h2>Guardrails</h2>'
        f"<p>{_e(positive)} is the positive class.</p><table><tr><th>Check</th>"
        "<th>Positive class</th><th>Accuracy</th><th>Precision</th><th>Recall</th>"
        "<th>False-positive rate</th><th>False-negative rate</th><th>Undecided</th></tr>"
    ]
    for name, g in guardrails.items():
        rates = (g.accuracy, g.precision, g.recall, g.false_positive_rate, g.false_negative_rate)
        cells = "".join(f'<td class="n">{number(v)}</td>' for v in rates)
        parts.append(
            f"<tr><td>{_e(name)}</td><td>{_e(g.positive)}</td>{cells}"
            f'<td class="n">{g.undecided}</td></tr>'
        )
    parts.append("</table></section>")
    return parts


def _options(values: Iterable[str], every: str) -> str:
    found = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)
    return f'<option value="">{every}</option>{found}'


def _filters(report: Report) -> str:
    return (
        '<form id="filters" hidden><label>Tag <select id="filter-tag">'
        f"{_options(report.tags, 'every tag')}</select></label>"
        '<label>Check <select id="filter-strategy">'
        f"{_options(report.strategies, 'every check')}</select></label>"
        '<label><input type="checkbox" id="filter-failing"> failing only</label>'
        '<output id="filter-shown" aria-live="polite"></output></form>'
    )


def _header(report: Report, when: str | None) -> list[str]:
    title = f"Evaluation report: {_e(report.name)}"
    meta = [
        f"{_e(key)} {_e(report.metadata[key])}"
        for key in ("suite", "build")
        if isinstance(report.metadata.get(key), str | int | float)
    ]
    if when:
        meta.append(f"Generated {_e(when)}")
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
        f"<title>{title}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        *([f'<p class="meta">{" · ".join(meta)}</p>'] if meta else []),
    ]


def render(
    report: Report,
    *,
    max_rows: int | None = None,
    timestamp: bool | str = False,
    samples: Iterable[Any] | Mapping[str, Any] | None = None,
) -> str:
    """The HTML page of ``report`` (see :func:`_page`)."""
    return _page(report, max_rows, timestamp, samples).text


def render_escaped(
    report: Report,
    *,
    max_rows: int | None = None,
    timestamp: bool | str = False,
    samples: Iterable[Any] | Mapping[str, Any] | None = None,
) -> str:
    """:func:`render`'s page with each lone surrogate written as ``\\udcff``; a page written
    by the native extension is known to hold none, and is not scanned again."""
    page = _page(report, max_rows, timestamp, samples)
    return page.text if page.clean else escape_surrogates(page.text)


def _page(
    report: Report,
    max_rows: int | None,
    timestamp: bool | str,
    samples: Iterable[Any] | Mapping[str, Any] | None,
) -> Filled:
    """The HTML page of ``report``.

    ``samples`` (the run's samples or test cases, or a mapping name -> sample) adds each case's
    input, expected answer, expected facts and context; ``max_rows`` caps the cases shown
    (failing ones come first, so they are kept); ``timestamp=True`` (or a text) adds a
    "generated" note. The gate is read from ``report.gates`` when the report has it.
    """
    if max_rows is not None and (isinstance(max_rows, bool) or max_rows < 0):
        raise ValueError(f"max_rows must be a whole number >= 0 or None, got {max_rows!r}")
    inputs = samples_by_name(samples)
    order, code = case_order(report)
    gates: Sequence[Any] = tuple(getattr(report, "gates", None) or ())
    parts = _header(report, stamp(timestamp))
    parts += _gate(gates)
    parts += _summary(report, code)
    parts += _checks_table(report)
    parts += _tags_table(report, code)
    parts += _guardrails(report)
    parts += repeats_html(report)
    parts += judged_html(report)
    if report.skipped:
        skipped = "".join(f"<li>{_e(k.name)}: {_e(k.error)}</li>" for k in report.skipped)
        parts.append(
            '<section id="skipped"><h2>Skipped</h2><p>Samples left out because the function '
            f"under test raised:</p><ul>{skipped}</ul></section>"
        )
    parts += html_section(report)  # conversations: per conversation, per turn, transcripts
    count = len(order) if max_rows is None else min(max_rows, len(order))
    parts += ['<section id="cases"><h2>Cases</h2>', _filters(report)]
    if count < len(order):
        parts.append(
            f"<p>Showing the first {count} of {len(order)} cases (failing cases first); "
            "the filters apply to those shown.</p>"
        )
    cases = CaseRenderer(report)
    names = report.sample_names
    positions: list[int] = order[:count].tolist()
    ending = f"</section>\n<script>{SCRIPT}</script>\n</body></html>\n"
    # the page is written by the cases' formatting, around them (no copy of the whole page)
    return cases.render_filled(
        positions,
        list(map(_VERDICTS.__getitem__, code[positions].tolist())),
        [inputs.get(names[p]) for p in positions] if inputs else [None] * len(positions),
        [f"case-{p}" for p in positions],
        ("\n".join(parts) + "\n", ("\n" if positions else "") + ending),
    )
