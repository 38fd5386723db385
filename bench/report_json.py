"""``render_report(report, "json")`` on 300,000 evaluations: the column writer against the
reference path, measured in one run.

    python bench/report_json.py                 # 100,000 samples x 3 strategies
    python bench/report_json.py --n 20000 --rounds 5

The report is the one bench/scorer.py builds: 100,000 answers from bench/workload.py scored
with TokenF1, RougeL and Levenshtein. "reference" is
:func:`evalmark.report._render.json.reference_render` (the whole document as Python values,
encoded by msgspec, re-indented, decoded), "new" is ``render_report(report, "json")`` (each row
a template of its shape, values encoded a column at a time, the document formatted and decoded
once).
Each round times both, in turn, on fresh reports (a report caches the rows it has read), for
each indent; the best round is kept. The texts are compared: the ratio is only printed when
they are identical. The last row times ``render_report(suite, "json")`` of a suite of that one
report against ``dumps`` of the suite's whole document. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workload  # noqa: E402
from evalmark import Sample, Scorer  # noqa: E402
from evalmark.report import (  # noqa: E402
    Report,
    SuiteReport,
    render_report,
)
from evalmark.report._document import dumps  # noqa: E402
from evalmark.report._render.json import reference_render  # noqa: E402
from evalmark.strategies import LevenshteinSimilarity, RougeL, TokenF1  # noqa: E402


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one call (the CPU time of this process: on a shared machine
    it does not count the time other processes held the core), and its result."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="samples (100,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, best kept (3)")
    args = parser.parse_args()
    expected, actual = workload.text_pairs(args.n, seed=0)
    samples = [
        Sample(name=f"text-{i}", parameters=[i], expected_output=text)
        for i, text in enumerate(expected)
    ]
    strategies = (TokenF1(0.5), RougeL(0.5), LevenshteinSimilarity(0.8))
    scorer = Scorer()

    def fresh() -> Report:
        return scorer.evaluate_outputs(samples, actual, *strategies, name="text")

    evaluations = args.n * len(strategies)
    print(
        f"Report.to_json, {args.n:,} samples x {len(strategies)} strategies = "
        f"{evaluations:,} evaluations, best of {args.rounds} rounds "
        f"(1-minute load average {os.getloadavg()[0]:.1f})\n"
    )
    print(
        f"{'indent':<8}{'MB':>5}{'reference s':>13}{'new s':>8}{'ratio':>8}"
        f"{'reference cpu':>15}{'new cpu':>9}{'ratio':>8}  identical"
    )
    for indent in (2, None):
        compare(
            str(indent),
            args.rounds,
            fresh,
            lambda r, i=indent: reference_render(r, indent=i),
            lambda r, i=indent: render_report(r, "json", indent=i),
        )
    compare(  # SuiteReport.to_json against dumps of its whole document
        "suite",
        args.rounds,
        fresh,
        lambda r: dumps(SuiteReport([r], name="suite").to_dict()),
        lambda r: render_report(SuiteReport([r], name="suite"), "json"),
    )
    print("\ntarget: at least 5x the reference, byte-identical (best round of each column)")


def compare(
    label: str,
    rounds: int,
    fresh: Callable[[], Report],
    reference: Callable[[Report], str],
    new: Callable[[Report], str],
) -> None:
    """Print the best of ``rounds`` of each writer, each round on fresh reports."""
    wall = [float("inf")] * 2
    cpu = [float("inf")] * 2
    same = True
    size = 0
    for _ in range(rounds):
        old_report, new_report = fresh(), fresh()
        w_old, c_old, old_text = timed(lambda r=old_report: reference(r))
        w_new, c_new, new_text = timed(lambda r=new_report: new(r))
        wall = [min(wall[0], w_old), min(wall[1], w_new)]
        cpu = [min(cpu[0], c_old), min(cpu[1], c_new)]
        same = same and old_text == new_text
        size = len(new_text.encode("utf-8"))
        del old_text, new_text, old_report, new_report
    print(
        f"{label:<8}{size / 1e6:>5.0f}{wall[0]:>13.2f}{wall[1]:>8.2f}"
        f"{wall[0] / wall[1]:>7.1f}x{cpu[0]:>15.2f}{cpu[1]:>9.2f}{cpu[0] / cpu[1]:>7.1f}x"
        f"  {'yes' if same else 'NO: the texts differ'}"
    )


if __name__ == "__main__":
    main()
