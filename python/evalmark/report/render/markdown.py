"""The Markdown report format (GitHub-flavoured, fit for a pull-request comment): a report
(:func:`render`), a suite of reports (:func:`render_suite`) and a comparison with a baseline
(:func:`render_comparison`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalmark.report.render.common import cell, markdown_table, number, percent, stamp
from evalmark.report.render.conversation import markdown_section
from evalmark.report.render.repeats import repeats_markdown

if TYPE_CHECKING:
    from evalmark.report.baseline import Comparison, Delta
    from evalmark.report.model import Report
    from evalmark.report.suite import SuiteReport
    from evalmark.report.values import Tally

__all__ = ["render", "render_comparison", "render_suite"]


def _counts(summary: Tally) -> list[str]:
    return [
        percent(summary.score),
        str(summary.passed),
        str(summary.failed),
        str(summary.errors),
        number(summary.mean),
    ]


def render(
    report: Report,
    *,
    max_rows: int | None = None,
    samples: bool = True,
    timestamp: bool | str = False,
) -> str:
    """The Markdown report. ``max_rows`` caps the failure and sample tables (the rest are
    counted); ``samples=False`` leaves the per-sample table out; ``timestamp=True`` (or a text)
    adds a "Generated" line."""
    s = report.summary
    out = [f"# Evaluation report: {cell(report.name)}", ""]
    when = stamp(timestamp)
    if when:
        out += [f"Generated {cell(when)}.", ""]
    out.append(
        f"**Score: {percent(s.score)}** — {s.passed} passed, {s.failed} failed, {s.errors} "
        f"errors of {s.evaluations} evaluations ({len(report)} samples, "
        f"{len(report.strategies)} strategies)."
    )
    if report.skipped:
        out.append("")
        out.append(
            f"Skipped {len(report.skipped)} samples whose function raised: "
            + ", ".join(f"`{cell(k.name)}`" for k in report.skipped)
        )
    out += ["", "## Strategies", ""]
    out += markdown_table(
        ["Strategy", "Pass rate", "Passed", "Failed", "Errors", "Mean score"],
        [":--", "--:", "--:", "--:", "--:", "--:"],
        [[cell(name), *_counts(summary)] for name, summary in report.by_strategy().items()],
    )
    means = report.metric_means()
    out += ["", "## Metric means", ""]
    out += markdown_table(
        ["Metric", "Mean"],
        [":--", "--:"],
        [[cell(name), number(value, 4)] for name, value in means.items()],
    )
    tags = report.by_tag()
    if tags:
        out += ["", "## Tags", ""]
        out += markdown_table(
            ["Tag", "Pass rate", "Passed", "Failed", "Errors", "Mean score"],
            [":--", "--:", "--:", "--:", "--:", "--:"],
            [[cell(tag), *_counts(summary)] for tag, summary in tags.items()],
        )
    guardrails = report.guardrails()
    if guardrails:
        positive = " / ".join(sorted({g.positive for g in guardrails.values()}))
        out += ["", "## Guardrails", "", f"{positive} is the positive class.", ""]
        out += markdown_table(
            [
                "Strategy",
                "Accuracy",
                "Precision",
                "Recall",
                "False-positive rate",
                "False-negative rate",
                "Undecided",
            ],
            [":--", "--:", "--:", "--:", "--:", "--:", "--:"],
            [
                [
                    cell(name),
                    number(g.accuracy),
                    number(g.precision),
                    number(g.recall),
                    number(g.false_positive_rate),
                    number(g.false_negative_rate),
                    str(g.undecided),
                ]
                for name, g in guardrails.items()
            ],
        )
    out += repeats_markdown(report)
    failing = report.failing_rows()
    bad = report.summary.failed + report.summary.errors
    out += ["", f"## Failures: {bad} evaluations in {len(failing)} samples", ""]
    if not failing:
        out.append("None: every evaluation passed.")
    else:
        rows = []
        for row in failing:
            for name, result in row.results.items():
                if not result.passed:
                    rows.append(
                        [
                            cell(row.name),
                            cell(name),
                            result.verdict,
                            number(result.score),
                            cell(result.explanation or "—"),
                        ]
                    )
        shown = rows if max_rows is None else rows[:max_rows]
        out += markdown_table(
            ["Sample", "Strategy", "Verdict", "Score", "Explanation"],
            [":--", ":--", ":--", "--:", ":--"],
            shown,
        )
        if len(shown) < len(rows):
            out += ["", f"… and {len(rows) - len(shown)} more."]
    out += markdown_section(report)
    if samples:
        out += ["", "## Samples", ""]
        all_rows = (
            list(report.rows())
            if max_rows is None
            else [report.row(i) for i in range(min(max_rows, len(report)))]
        )
        out += markdown_table(
            ["Sample", "Tags", "Verdict", "Score", *(cell(n) for n in report.strategies)],
            [":--", ":--", ":--", "--:", *("--:" for _ in report.strategies)],
            [
                [
                    cell(r.name),
                    cell(", ".join(r.tags)),
                    r.verdict,
                    number(r.score),
                    *(_mark(r.results[n].verdict, r.results[n].score) for n in report.strategies),
                ]
                for r in all_rows
            ],
        )
        if len(all_rows) < len(report):
            out += ["", f"… and {len(report) - len(all_rows)} more samples."]
    return "\n".join(out) + "\n"


def _mark(verdict: str, score: float) -> str:
    symbol = {"pass": "✅", "fail": "❌", "error": "⚠️"}[verdict]
    return f"{symbol} {score:.3f}"


def render_suite(suite: SuiteReport) -> str:
    """The suite overview and each report's failures, in Markdown."""
    s = suite.summary
    out = [
        f"# Evaluation suite: {cell(suite.name)}",
        "",
        f"**Score: {percent(s.score)}** — {s.passed} passed, {s.failed} failed, {s.errors} "
        f"errors of {s.evaluations} evaluations in {len(suite.reports)} reports.",
        "",
        "| Report | Score | Passed | Failed | Errors | Samples |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    for report in suite.reports:
        r = report.summary
        out.append(
            f"| {cell(report.name)} | {percent(r.score)} | {r.passed} | {r.failed} | "
            f"{r.errors} | {len(report)} |"
        )
    for report in suite.reports:
        failing = report.failing_rows()
        out += ["", f"## {cell(report.name)}: {len(failing)} failing samples"]
        if failing:
            out += ["", "| Sample | Verdict | Explanation |", "|:--|:--|:--|"]
            out += [
                f"| {cell(row.name)} | {row.verdict} | {cell(row.explanation or '—')} |"
                for row in failing
            ]
    return "\n".join(out) + "\n"


def _points(delta: Delta) -> list[str]:
    return [
        "—" if delta.before is None else f"{delta.before:.1%}",
        "—" if delta.after is None else f"{delta.after:.1%}",
        "—" if delta.change is None else f"{delta.change * 100:+.1f}",
    ]


def _means(delta: Delta) -> list[str]:
    return [
        "—" if delta.before is None else f"{delta.before:.4f}",
        "—" if delta.after is None else f"{delta.after:.4f}",
        "—" if delta.change is None else f"{delta.change:+.4f}",
    ]


def render_comparison(comparison: Comparison) -> str:
    """A Markdown summary of a comparison with a baseline, fit for a pull-request comment."""
    c = comparison
    out = [
        f"# Comparison: {cell(c.name)} against {cell(c.baseline_name)}",
        "",
        "| Pass rate | Baseline | Current | Change (points) |",
        "|:--|--:|--:|--:|",
        "| overall | " + " | ".join(_points(c.pass_rate)) + " |",
    ]
    out += [
        f"| strategy {cell(k)} | " + " | ".join(_points(d)) + " |" for k, d in c.strategies.items()
    ]
    out += [f"| tag {cell(k)} | " + " | ".join(_points(d)) + " |" for k, d in c.tags.items()]
    out += ["", "| Metric mean | Baseline | Current | Change |", "|:--|--:|--:|--:|"]
    out += [f"| {cell(k)} | " + " | ".join(_means(d)) + " |" for k, d in c.metrics.items()]
    for title, changes in (
        ("Regressions (pass → fail)", c.regressions),
        ("Fixes (fail → pass)", c.fixes),
    ):
        out += ["", f"## {title}: {len(changes)}"]
        if changes:
            out += ["", "| Sample | Strategy | Now | Explanation |", "|:--|:--|:--|:--|"]
            out += [
                f"| {cell(x.sample)} | {cell(x.strategy)} | {x.after} | "
                f"{cell(x.explanation or '—')} |"
                for x in changes
            ]
    out += ["", f"## Vanished cases: {len(c.vanished)}"]
    if c.vanished:
        out += ["", ", ".join(f"`{cell(n)}`" for n in c.vanished)]
    out += ["", f"## New cases: {len(c.new)}"]
    if c.new:
        out += ["", ", ".join(f"`{cell(n)}`" for n in c.new)]
    return "\n".join(out) + "\n"
