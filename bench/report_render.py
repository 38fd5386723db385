"""Markdown and HTML reports of 100,000 evaluations against naive string building of the same
rows, measured in one run.

    python bench/report_render.py                  # 20,000 samples x 5 checks
    python bench/report_render.py --n 5000 --rounds 5

The report: the suite of bench/engine_batch.py (ExactMatch, Contains, ContainsFacts, TokenF1,
RougeL) over bench/workload.py text pairs, scored by ``Scorer().evaluate_outputs``.
"render" is ``render_report(report, "markdown")`` / ``render_report(report, "html")`` on a
fresh report each round (a report caches the rows it has read). The peer, "naive", is an
f-string per row joined with newlines, over the same values already taken out of the report
as Python lists (outside its timing) and with nothing escaped: the Markdown peer writes the
failure table (one row per failing check) and the sample table (one row per case, one cell
per check); the HTML peer writes each case as a ``<details>`` with its output and one table
row per check. ratio = naive seconds / render seconds (above 1: the renderer is faster), in wall
time and in CPU time (``time.process_time``: both sides run on one thread, so the CPU ratio is
the one a busy machine disturbs least). Each round times both in turn; the best round of each
figure is kept. The digest of each rendered text is
printed so that runs on two versions can be compared byte for byte. Nothing here fails a
build.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from engine_batch import build_samples  # noqa: E402
from evalmark import Scorer  # noqa: E402
from evalmark.report import Report, render_report  # noqa: E402
from evalmark.strategies import (  # noqa: E402
    Contains,
    ContainsFacts,
    ExactMatch,
    RougeL,
    TokenF1,
)

GOAL = 1.0


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one call (both sides run on one thread), and its result."""
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - start, time.process_time() - cpu, result


class Rows:
    """The values the peers write, as plain Python lists (taken out before any timing)."""

    def __init__(self, report: Report) -> None:
        self.strategies = list(report.strategies)
        self.names = list(report.sample_names)
        self.tags = [", ".join(t) for t in report.sample_tags]
        self.outputs = [str(report.output(i)) for i in range(len(report))]
        self.checks: list[list[tuple[str, float, str]]] = [[] for _ in self.names]
        for name in self.strategies:
            column = report.column(name)
            for i in range(len(report)):
                result = column[i]
                verdict = "error" if result.error else ("pass" if result.passed else "fail")
                self.checks[i].append((verdict, result.score, result.explanation or ""))
        self.verdicts = [
            "error"
            if any(c[0] == "error" for c in row)
            else ("fail" if any(c[0] == "fail" for c in row) else "pass")
            for row in self.checks
        ]

    def markdown(self) -> str:
        """The naive Markdown: the failure rows, then the sample rows."""
        marks = {"pass": "✅", "fail": "❌", "error": "⚠️"}
        lines = [
            f"| {name} | {strategy} | {c[0]} | {c[1]:.3f} | {c[2]} |"
            for name, row in zip(self.names, self.checks, strict=True)
            for strategy, c in zip(self.strategies, row, strict=True)
            if c[0] != "pass"
        ]
        lines += [
            f"| {name} | {tags} | {verdict} | {sum(c[1] for c in row) / len(row):.3f} | "
            + " | ".join(f"{marks[c[0]]} {c[1]:.3f}" for c in row)
            + " |"
            for name, tags, verdict, row in zip(
                self.names, self.tags, self.verdicts, self.checks, strict=True
            )
        ]
        return "\n".join(lines) + "\n"

    def html(self) -> str:
        """The naive HTML: each case a ``<details>`` with its output and a row per check."""
        cases = [
            f'<details class="case {verdict}" id="case-{i}"><summary>{name}</summary>'
            f"<pre>{output}</pre><table>"
            + "".join(
                f'<tr class="check {c[0]}"><td>{strategy}</td><td>{c[0]}</td>'
                f"<td>{c[1]:.2f}</td><td><pre>{c[2]}</pre></td></tr>"
                for strategy, c in zip(self.strategies, row, strict=True)
            )
            + "</table></details>"
            for i, (name, verdict, output, row) in enumerate(
                zip(self.names, self.verdicts, self.outputs, self.checks, strict=True)
            )
        ]
        return "\n".join(cases) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="samples (20,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, best kept (3)")
    args = parser.parse_args()
    samples, actual = build_samples(args.n, 0, prefix="text-", tagged=True)
    suite = (ExactMatch(), Contains(), ContainsFacts(), TokenF1(0.5), RougeL(0.5))
    scorer = Scorer()

    def fresh() -> Report:
        return scorer.evaluate_outputs(samples, actual, *suite, name="text")

    rows = Rows(fresh())
    evaluations = args.n * len(suite)
    print(
        f"report rendering, {args.n:,} samples x {len(suite)} checks = {evaluations:,} "
        f"evaluations, best of {args.rounds} rounds "
        f"(1-minute load average {os.getloadavg()[0]:.1f})\n"
    )
    print(
        f"{'format':<10}{'MB':>6}{'render s':>10}{'naive s':>9}{'ratio':>7}"
        f"{'render cpu':>12}{'naive cpu':>11}{'ratio':>7}  sha256 of the text"
    )
    for fmt, naive in (("markdown", rows.markdown), ("html", rows.html)):
        render_wall = render_cpu = naive_wall = naive_cpu = float("inf")
        text = ""
        for _ in range(args.rounds):
            report = fresh()
            wall, cpu, text = timed(lambda r=report, f=fmt: render_report(r, f))  # type: ignore[misc]
            render_wall, render_cpu = min(render_wall, wall), min(render_cpu, cpu)
            wall, cpu, _ = timed(naive)
            naive_wall, naive_cpu = min(naive_wall, wall), min(naive_cpu, cpu)
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        print(
            f"{fmt:<10}{len(text.encode('utf-8', 'surrogatepass')) / 1e6:>6.1f}"
            f"{render_wall:>10.3f}{naive_wall:>9.3f}{naive_wall / render_wall:>7.2f}"
            f"{render_cpu:>12.3f}{naive_cpu:>11.3f}{naive_cpu / render_cpu:>7.2f}  {digest}"
        )
    print(f"\ngoal: ratio >= {GOAL:.1f} for both formats")


if __name__ == "__main__":
    main()
