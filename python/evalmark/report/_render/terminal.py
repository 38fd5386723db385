"""Plain-text renderings for a terminal: aligned tables, a report's per-case table and
averages, a failing case with the checks that caught it, and a comparison with a baseline.

``evalmark run``, ``evalmark report diff`` and the pytest plugin's summary print these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalmark.report._render.conversation import failing_turns

if TYPE_CHECKING:
    from evalmark.report._comparison import Comparison, Delta
    from evalmark.report._model import Report
    from evalmark.report._values import SampleRow

__all__ = [
    "VERDICT",
    "averages",
    "case_table",
    "comparison_text",
    "failing_turns_text",
    "failure_text",
    "one_line",
    "result_mark",
    "table",
]

VERDICT = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}
_VERDICT_LINE = re.compile(r"\s*\bVERDICT:\s*(yes|no)\s*$", re.IGNORECASE)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """A plain-text table: columns padded to their widest cell, ``right`` columns aligned right,
    a rule under the header."""
    widths = [len(cell) for cell in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.rjust(width) if index in right else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(row) for row in rows)]) + "\n"


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, without a judge's trailing verdict line, cut at ``limit``."""
    # A judge's explanation ends with its verdict line, which the tables already show.
    flat = _VERDICT_LINE.sub("", " ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def result_mark(result: Any) -> str:
    """``pass 0.93``, ``FAIL 0.20`` or ``ERROR`` for one result."""
    if result.error is not None:
        return "ERROR"
    return f"{'pass' if result.passed else 'FAIL'} {result.score:.2f}"


def case_table(report: Report) -> str:
    """One line per case: each check's mark, the case's mean score and its verdict."""
    checks = list(report.strategies)
    rows = []
    for row in report.rows():
        cells = [row.name, *(result_mark(row.results[c]) for c in checks)]
        cells += [f"{row.score:.2f}", VERDICT.get(row.verdict, row.verdict)]
        rows.append(cells)
    return table(["case", *checks, "score", "verdict"], rows, right=range(1, len(checks) + 2))


def averages(report: Report) -> str:
    """Per check, then over the cases (a case passes when every check passes): passed, pass
    rate, mean score and errors."""
    means = report.metric_means()
    named = [(check, tally, means.get(check)) for check, tally in report.by_strategy().items()]
    rows = [
        [
            check,
            f"{tally.passed}/{tally.evaluations}",
            f"{100 * tally.check_pass_rate:.1f}%",
            "-" if mean is None else f"{mean:.3f}",
            str(tally.errors),
        ]
        for check, tally, mean in named
    ]
    cases, mean = report.cases(), report.summary.mean
    rows.append(
        [
            "all (cases)",
            f"{cases.passed}/{cases.cases}",
            f"{cases.pass_rate:.1%}",
            "-" if mean is None else f"{mean:.3f}",
            str(cases.errors),
        ]
    )
    return "averages\n" + table(
        ["check", "passed", "pass rate (cases)", "mean score", "errors"], rows, right=[1, 2, 3, 4]
    )


def failure_text(row: SampleRow) -> str:
    """A failing case: each check that failed it with its reason, or the application's error
    shown once when the application raised."""
    bad = [name for name, result in row.results.items() if not result.passed]
    good = [name for name, result in row.results.items() if result.passed]
    lines = [f"  {row.name}  ({VERDICT.get(row.verdict, row.verdict)})"]
    errors = [row.results[name].error for name in bad]
    if bad and all(e is not None and e.kind == "function" for e in errors):
        # The application raised: every check carries the same error; show it once, whole.
        first = errors[0]
        assert first is not None
        lines.append(f"    the application raised {first.type}:")
        lines += [f"      {line}" for line in first.message.splitlines()]
        return "\n".join(lines) + "\n"
    for name in bad:
        result = row.results[name]
        text = result.explanation or (result.error.message if result.error else "failed")
        lines.append(f"    {name}: {one_line(text)}")
    if len(bad) == 1 and good:
        lines.append(f"    caught only by {bad[0]} ({', '.join(good)} passed it)")
    return "\n".join(lines) + "\n"


def failing_turns_text(report: Report) -> str:
    """One line per failure in a conversation report: the conversation, the turn, the check
    and its reason (``-`` for a check no turn could be named for); empty for other reports."""
    rows = [
        [name, "-" if turn is None else str(turn), check, one_line(reason, 160)]
        for name, turn, check, reason in failing_turns(report)
    ]
    if not rows:
        return ""
    text = table(["conversation", "turn", "check", "reason"], rows, right=[1])
    return "".join(f"  {line}\n" for line in text.splitlines())


def _points(delta: Delta) -> list[str]:
    before = "-" if delta.before is None else f"{delta.before:.1%}"
    after = "-" if delta.after is None else f"{delta.after:.1%}"
    change = "-" if delta.change is None else f"{delta.change * 100:+.1f}"
    return [before, after, change]


def comparison_text(
    comparison: Comparison, before: str | None = None, after: str | None = None
) -> str:
    """A comparison with a baseline: pass-rate deltas, then the changed cases. ``before`` and
    ``after`` label the two runs (default: the reports' names)."""
    rows = [["overall (cases)", *_points(comparison.pass_rate)]]
    rows += [[f"check {k}", *_points(d)] for k, d in comparison.strategies.items()]
    rows += [[f"tag {k}", *_points(d)] for k, d in comparison.tags.items()]
    out = [f"{before or comparison.baseline_name} -> {after or comparison.name}\n"]
    out.append(table(["pass rate", "before", "after", "points"], rows, right=[1, 2, 3]))
    for title, changes in (
        ("regressions (pass -> fail)", comparison.regressions),
        ("fixes (fail -> pass)", comparison.fixes),
    ):
        out.append(f"\n{title}: {len(changes)}\n")
        out += [
            f"  {c.sample} [{c.strategy}] {c.before} -> {c.after}"
            + (f": {one_line(c.explanation)}" if c.explanation else "")
            + "\n"
            for c in changes
        ]
    if comparison.vanished:
        out.append(f"\nonly in the earlier run: {', '.join(comparison.vanished)}\n")
    if comparison.new:
        out.append(f"\nonly in the later run: {', '.join(comparison.new)}\n")
    return "".join(out)
