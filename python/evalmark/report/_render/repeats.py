"""The pass@k / pass^k section of a report made with repeated runs (``Scorer(repeats=n)``),
for the Markdown and HTML reports and the terminal: the overall figures, then one row per case.
All read the report's ``metadata["repeats"]``; a report without it gets no section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evalmark.report._render.common import cell, markdown_table, number
from evalmark.report._render.common import html_text as _e
from evalmark.report._render.terminal import table

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["repeats_html", "repeats_markdown", "repeats_of", "repeats_text"]


def repeats_of(report: Report) -> Mapping[str, Any] | None:
    """The report's repeated-runs figures (n, k, pass_at_k, pass_hat_k, cases), or None."""
    repeats: Any = report.metadata.get("repeats")
    return repeats if isinstance(repeats, Mapping) else None


def _explanation(n: object, k: object) -> str:
    return (
        f"The application answered each case {n} times. pass@{k}: the chance that at least one "
        f"of {k} runs passes; pass^{k}: the chance that all {k} pass (unbiased estimates from "
        f"{n} runs)."
    )


def repeats_markdown(report: Report) -> list[str]:
    """The section's Markdown lines; none for a report without repeats."""
    repeats = repeats_of(report)
    if repeats is None:
        return []
    n, k = repeats.get("n"), repeats.get("k")
    out = [
        "",
        f"## Repeated runs: pass@{k} and pass^{k}",
        "",
        f"{_explanation(n, k)} Overall: pass@{k} **{number(repeats.get('pass_at_k'))}**, pass^{k} "
        f"**{number(repeats.get('pass_hat_k'))}**.",
        "",
    ]
    cases: Mapping[str, Mapping[str, Any]] = repeats.get("cases", {})
    out += markdown_table(
        ["Case", "Runs passed", f"pass@{k}", f"pass^{k}"],
        [":--", "--:", "--:", "--:"],
        [
            [cell(name), f"{c['passes']} of {n}", number(c["pass_at_k"]), number(c["pass_hat_k"])]
            for name, c in cases.items()
        ],
    )
    return out


def repeats_html(report: Report) -> list[str]:
    """The section's HTML parts; none for a report without repeats."""
    repeats = repeats_of(report)
    if repeats is None:
        return []
    n, k = _e(repeats.get("n")), _e(repeats.get("k"))
    parts = [
        f'<section id="repeats"><h2>Repeated runs: pass@{k} and pass^{k}</h2>',
        f"<p>{_explanation(n, k)}</p>",
        f"<p><strong>Overall: pass@{k} {number(repeats.get('pass_at_k'))}, pass^{k} "
        f"{number(repeats.get('pass_hat_k'))}</strong></p>",
        f"<table><tr><th>Case</th><th>Runs passed</th><th>pass@{k}</th><th>pass^{k}</th></tr>",
    ]
    cases: Mapping[str, Mapping[str, Any]] = repeats.get("cases", {})
    for name, c in cases.items():
        parts.append(
            f'<tr><td>{_e(name)}</td><td class="n">{_e(c["passes"])} of {n}</td>'
            f'<td class="n">{number(c["pass_at_k"])}</td>'
            f'<td class="n">{number(c["pass_hat_k"])}</td></tr>'
        )
    parts.append("</table></section>")
    return parts


def repeats_text(report: Report) -> str:
    """The figures for a terminal: one line overall, then a table per case; empty for a report
    without repeats."""
    repeats = repeats_of(report)
    if repeats is None:
        return ""
    n, k = repeats.get("n"), repeats.get("k")
    cases: Mapping[str, Mapping[str, Any]] = repeats.get("cases", {})
    rows = [
        [str(name), f"{c['passes']}/{n}", number(c["pass_at_k"]), number(c["pass_hat_k"])]
        for name, c in cases.items()
    ]
    head = (
        f"repeated runs: {n} per case; pass@{k} {number(repeats.get('pass_at_k'))}, "
        f"pass^{k} {number(repeats.get('pass_hat_k'))}\n"
    )
    return head + table(["case", "runs passed", f"pass@{k}", f"pass^{k}"], rows, right=[1, 2, 3])
