"""The Markdown report format (GitHub-flavoured, fit for a pull-request comment)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from evalmark.report.model import Report, Summary

__all__ = ["cell", "percent", "render"]

_SPACE = re.compile(r"\s+")


def cell(text: object, limit: int = 300) -> str:
    """``text`` made safe for one table cell: one line, pipes and HTML escaped, cut at
    ``limit`` characters."""
    value = _SPACE.sub(" ", str(text)).strip()
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def percent(value: float | None) -> str:
    """``value`` (0–100) with one decimal and a percent sign; an em dash for None."""
    return "—" if value is None else f"{value:.1f}%"


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _counts(summary: Summary) -> list[str]:
    return [
        percent(summary.score),
        str(summary.passed),
        str(summary.failed),
        str(summary.errors),
        _number(summary.mean),
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
    from evalmark.report.formatters import stamp

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
    out += _table(
        ["Strategy", "Pass rate", "Passed", "Failed", "Errors", "Mean score"],
        [":--", "--:", "--:", "--:", "--:", "--:"],
        [[cell(name), *_counts(summary)] for name, summary in report.by_strategy().items()],
    )
    means = report.metric_means()
    out += ["", "## Metric means", ""]
    out += _table(
        ["Metric", "Mean"],
        [":--", "--:"],
        [[cell(name), _number(value, 4)] for name, value in means.items()],
    )
    tags = report.by_tag()
    if tags:
        out += ["", "## Tags", ""]
        out += _table(
            ["Tag", "Pass rate", "Passed", "Failed", "Errors", "Mean score"],
            [":--", "--:", "--:", "--:", "--:", "--:"],
            [[cell(tag), *_counts(summary)] for tag, summary in tags.items()],
        )
    guardrails = report.guardrails()
    if guardrails:
        out += ["", "## Guardrails", "", "REJECT is the positive class.", ""]
        out += _table(
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
                    _number(g.accuracy),
                    _number(g.precision),
                    _number(g.recall),
                    _number(g.false_positive_rate),
                    _number(g.false_negative_rate),
                    str(g.undecided),
                ]
                for name, g in guardrails.items()
            ],
        )
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
                            _number(result.score),
                            cell(result.explanation or "—"),
                        ]
                    )
        shown = rows if max_rows is None else rows[:max_rows]
        out += _table(
            ["Sample", "Strategy", "Verdict", "Score", "Explanation"],
            [":--", ":--", ":--", "--:", ":--"],
            shown,
        )
        if len(shown) < len(rows):
            out += ["", f"… and {len(rows) - len(shown)} more."]
    if samples:
        out += ["", "## Samples", ""]
        all_rows = (
            list(report.rows())
            if max_rows is None
            else [report.row(i) for i in range(min(max_rows, len(report)))]
        )
        out += _table(
            ["Sample", "Tags", "Verdict", "Score", *(cell(n) for n in report.strategies)],
            [":--", ":--", ":--", "--:", *("--:" for _ in report.strategies)],
            [
                [
                    cell(r.name),
                    cell(", ".join(r.tags)),
                    r.verdict,
                    _number(r.score),
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
