"""Re-scoring inspect_ai's ``match`` and ``includes`` over a column: the Python definition
alone (``_python_found``, the whole column as ``inspect_match_column`` computed it before the
native kernel) against ``inspect_match_column`` (``_core.inspect_match_batch``: ASCII by byte
rules, other characters by a table of Python's own ``casefold`` and ``isspace``), in one run,
on the same pairs.

    python bench/inspect_match.py                  # 100,000 workload pairs, every option
    python bench/inspect_match.py --n 20000 --repeat 3

The pairs are bench/workload.py's ``text_pairs`` (the actual answer against the expected one,
one target each; 11% of the pairs hold a non-ASCII text). Each figure is the least process
CPU time (all threads) of ``--repeat`` calls, and the wall time of that call; prints the ratio
before/after per option. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from operator import itemgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workload
from evalmark.strategies import _inspect
from evalmark.strategies._inspect import inspect_match_column


def python_column(
    answers: Sequence[str],
    targets: Sequence[Sequence[str]],
    *,
    scorer: str,
    location: str,
    ignore_case: bool,
) -> list[bool]:
    """``inspect_match_column`` as it was before the kernel: its one-target reading of the
    column, then every pair by the Python definition."""
    if not set(map(len, targets)) <= {1}:
        raise SystemExit("the workload has one target a pair")
    flat = list(map(itemgetter(0), targets))
    return _inspect._python_found(answers, flat, scorer, location, ignore_case)


def timed(call: Callable[[], list[bool]], repeat: int) -> tuple[float, float, list[bool]]:
    """The least CPU time of ``repeat`` calls, that call's wall time, and its result."""
    best = (float("inf"), float("inf"))
    result: list[bool] = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        result = call()
        took = (time.process_time() - cpu, time.perf_counter() - wall)
        best = min(best, took)
    return best[0], best[1], result


def main() -> None:
    """Time both ways over each option and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    expected, actual = workload.text_pairs(args.n, seed=args.seed)
    targets = [[text] for text in expected]
    options = [("match", location, True) for location in _inspect.INSPECT_LOCATIONS]
    options += [("match", "end", False), ("includes", "any", True), ("includes", "any", False)]
    print(f"{args.n} pairs, CPU seconds (least of {args.repeat}), wall in brackets")
    print(f"{'scorer':9} {'location':8} {'case':5} {'python':>15} {'native':>15} {'ratio':>6}")
    for scorer, location, ignore_case in options:
        kw = {"scorer": scorer, "location": location, "ignore_case": ignore_case}
        before = timed(lambda kw=kw: python_column(actual, targets, **kw), args.repeat)
        after = timed(lambda kw=kw: inspect_match_column(actual, targets, **kw), args.repeat)
        if before[2] != after[2]:
            raise SystemExit(f"{scorer} {location} {ignore_case}: the verdicts differ")
        print(
            f"{scorer:9} {location:8} {'fold' if ignore_case else 'keep':5} "
            f"{before[0]:7.4f} ({before[1]:.4f}) {after[0]:7.4f} ({after[1]:.4f}) "
            f"{before[0] / after[0]:5.1f}x"
        )


if __name__ == "__main__":
    main()
