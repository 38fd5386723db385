"""The Markdown report format (GitHub-flavoured, fit for a pull-request comment): a report
(:func:`render`), a suite of reports (:func:`render_suite`) and a comparison with a baseline
(:func:`render_comparison`). Every one names its pass rate by what it counts (cases, see
:mod:`evalmark.report._cases`) and shows the gate applied, condition by condition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from evalmark._files.text import escape_surrogates
from evalmark.report._cases import pass_rate_label
from evalmark.report._render.common import cell, markdown_table, number, percent, stamp
from evalmark.report._render.conversation import markdown_section, markdown_transcripts
from evalmark.report._render.fill import Table, fill_lines
from evalmark.report._render.judged import judged_markdown
from evalmark.report._render.markdown_rows import failure_lines, sample_lines
from evalmark.report._render.repeats import repeats_markdown
from evalmark.report._wording import gate_cells, plural

if TYPE_CHECKING:
    from evalmark.report._cases import CaseTally
    from evalmark.report._comparison import Comparison, Delta
    from evalmark.report._gate_result import GateResult
    from evalmark.report._model import Report
    from evalmark.report._suite import SuiteReport
    from evalmark.report._values import Tally

__all__ = ["render", "render_comparison", "render_escaped", "render_suite"]


def _counts(summary: Tally) -> list[str]:
    return [
        percent(100 * summary.check_pass_rate),
        str(summary.passed),
        str(summary.failed),
        str(summary.errors),
        number(summary.mean),
    ]


def _headline(cases: CaseTally, checks: Tally) -> str:
    label = pass_rate_label(cases.pass_rate)
    return (
        f"**{label[0].upper()}{label[1:]}** — {cases.passed} of {plural(cases.cases, 'case')} "
        f"passed every check ({cases.failed} failed, {plural(cases.errors, 'error')}); "
        f"{checks.passed} of {plural(checks.evaluations, 'check')} (sample × strategy) passed."
    )


def gate_section(gates: Sequence[tuple[GateResult, str]]) -> list[str]:
    """The ``## Gate`` section: each condition (with the report it applied to, when given)
    measured against its threshold, and the verdict; says so when no gate applied."""
    out = ["", "## Gate", ""]
    if not gates:
        return [*out, "No gate applied to this run."]
    passed = all(gate.passed for gate, _ in gates)
    out += [f"**Gate {'passed' if passed else 'FAILED'}**", ""]
    named = any(where for _, where in gates)
    header = ["Report"] if named else []
    rows = [
        [*([cell(where)] if named else []), cell(g.label), *gate_cells(g), cell(g.detail or "—")]
        for g, where in gates
    ]
    return out + markdown_table(
        [*header, "Condition", "Measured", "Required", "Verdict", "Detail"],
        [*([":--"] if named else []), ":--", "--:", "--:", ":--", ":--"],
        rows,
    )


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
    return fill_lines(_lines(report, max_rows, samples, timestamp)).text


def render_escaped(
    report: Report,
    *,
    max_rows: int | None = None,
    samples: bool = True,
    timestamp: bool | str = False,
) -> str:
    """:func:`render`'s text with each lone surrogate written as ``\\udcff``; a text written
    by the native extension is known to hold none, and is not scanned again."""
    text, clean = fill_lines(_lines(report, max_rows, samples, timestamp))
    return text if clean else escape_surrogates(text)


def _lines(
    report: Report, max_rows: int | None, samples: bool, timestamp: bool | str
) -> list[str | Table]:
    """The report's lines, its long tables given as tables to write."""
    out: list[str | Table] = [f"# Evaluation report: {cell(report.name)}", ""]
    when = stamp(timestamp)
    if when:
        out += [f"Generated {cell(when)}.", ""]
    overall = report.summary  # figured once: it is read twice
    out.append(_headline(report.cases(), overall))
    if report.skipped:
        out.append("")
        out.append(
            f"Skipped {plural(len(report.skipped), 'sample')} whose function raised: "
            + ", ".join(f"`{cell(k.name)}`" for k in report.skipped)
        )
    out += gate_section([(gate, "") for gate in report.gates])
    out += ["", "## Strategies", ""]
    out += markdown_table(
        ["Strategy", "Pass rate (cases)", "Passed", "Failed", "Errors", "Mean score"],
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
        rows = []
        for tag, summary in tags.items():
            cases = report.cases(tag=tag)
            rows.append(
                [
                    cell(tag),
                    percent(100 * cases.pass_rate),
                    f"{cases.passed} of {cases.cases}",
                    str(cases.errors),
                    number(summary.mean),
                ]
            )
        out += markdown_table(
            ["Tag", "Pass rate (cases)", "Cases passed", "Errors", "Mean score"],
            [":--", "--:", "--:", "--:", "--:"],
            rows,
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
    out += judged_markdown(report)
    lines, shown_checks, checks, failing = failure_lines(report, max_rows)
    if not failing:
        out += ["", "## Failures: none", "", "Every check of every case passed."]
    else:
        bad = overall.failed + overall.errors
        out += ["", f"## Failures: {plural(bad, 'check')} in {plural(failing, 'case')}", ""]
        out += markdown_table(
            ["Sample", "Strategy", "Verdict", "Score", "Explanation"],
            [":--", ":--", ":--", "--:", ":--"],
            [],
        )
        if lines is not None:
            out.append(lines)
        if shown_checks < checks:
            out += ["", f"… and {checks - shown_checks} more."]
    out += markdown_section(report)
    if samples:
        out += ["", "## Samples", ""]
        shown = len(report) if max_rows is None else max(0, min(max_rows, len(report)))
        out += markdown_table(
            ["Sample", "Tags", "Verdict", "Score", *(cell(n) for n in report.strategies)],
            [":--", ":--", ":--", "--:", *("--:" for _ in report.strategies)],
            [],
        )
        table = sample_lines(report, shown)
        if table is not None:
            out.append(table)
        if shown < len(report):
            out += ["", f"… and {plural(len(report) - shown, 'more sample')}."]
    out.append("")  # the closing line break
    return out


def render_suite(suite: SuiteReport) -> str:
    """The suite overview, its gate and each report's failing cases (with the transcript of
    every failing conversation), in Markdown."""
    cases, checks = suite.cases(), suite.summary
    out = [
        f"# Evaluation suite: {cell(suite.name)}",
        "",
        _headline(cases, checks) + f" {plural(len(suite.reports), 'report')}.",
        "",
        "| Report | Pass rate (cases) | Cases passed | Failed | Errors | Gate |",
        "|:--|--:|--:|--:|--:|:--|",
    ]
    gates: list[tuple[GateResult, list[str]]] = []
    for report in suite.reports:
        c = report.cases()
        verdict = "—"
        if report.gates:
            verdict = "passed" if all(g.passed for g in report.gates) else "FAILED"
        out.append(
            f"| {cell(report.name)} | {percent(100 * c.pass_rate)} | {c.passed} of {c.cases} | "
            f"{c.failed} | {c.errors} | {verdict} |"
        )
        for gate in report.gates:
            found = next((entry for entry in gates if entry[0] == gate), None)
            if found is None:
                gates.append((gate, [report.name]))
            else:
                found[1].append(report.name)
    everyone = len(suite.reports) > 1
    out += gate_section(
        [
            (gate, "every report" if everyone and len(names) == len(suite) else ", ".join(names))
            for gate, names in gates
        ]
    )
    failing_reports = [(report, report.failing_rows()) for report in suite.reports]
    failing_reports = [(report, rows) for report, rows in failing_reports if rows]
    if not failing_reports:
        out += ["", "## Failing cases: none", "", "Every case of every report passed."]
    for report, failing in failing_reports:
        out += ["", f"## {cell(report.name)}: {plural(len(failing), 'failing case')}"]
        out += ["", "| Case | Verdict | Explanation |", "|:--|:--|:--|"]
        out += [
            f"| {cell(row.name)} | {row.verdict} | {cell(row.explanation or '—')} |"
            for row in failing
        ]
        out += markdown_transcripts(report, level=3)
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
        "| overall (cases) | " + " | ".join(_points(c.pass_rate)) + " |",
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
