"""Benchmark of the code sandboxes: what one sandboxed run costs, and runs per second.

    .venv/bin/python bench/code.py [--runs 40] [--concurrency 2]

Runs the same small task (a function and two tests, through the test harness) ``--runs``
times in each sandbox, serially and ``--concurrency`` at a time, and prints runs per second,
the time of one run, and the cost of bwrap's namespaces against the ``local`` sandbox (a
plain subprocess with the same rlimits) and against a bare ``python -c pass`` subprocess.
There is no peer library: the ratios are against evalmark's own unsandboxed baselines.
"""

from __future__ import annotations

import argparse
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from evalmark.code import run_tests
from evalmark.code._sandbox import (
    BwrapSandbox,
    Limits,
    LocalSandbox,
    Sandbox,
    bwrap_unavailable_reason,
    default_python,
)

CODE = "def add(a, b):\n    return a + b\n"
TESTS = (
    "def test_small():\n    assert add(1, 2) == 3\n\n"
    "def test_words():\n    assert add('a', 'b') == 'ab'\n"
)


def runs_per_second(box: Sandbox, runs: int, concurrency: int) -> float:
    limits = Limits()

    def one(_: int) -> bool:
        return run_tests(CODE, TESTS, sandbox=box, limits=limits).passed

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        verdicts = list(pool.map(one, range(runs)))
    elapsed = time.perf_counter() - started
    assert all(verdicts), "a benchmark run failed"
    return runs / elapsed


def bare_per_second(runs: int) -> float:
    python = default_python()
    started = time.perf_counter()
    for _ in range(runs):
        subprocess.run([python, "-c", "pass"], check=True)
    return runs / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    boxes: list[Sandbox] = [LocalSandbox()]
    reason = bwrap_unavailable_reason()
    if reason is None:
        boxes.append(BwrapSandbox())
    else:
        print(f"bwrap skipped: {reason}")
    runs_per_second(boxes[-1], 4, 1)  # warm up (and probe bwrap once)
    bare = bare_per_second(args.runs)
    print(f"bare `python -c pass` subprocess: {bare:8.1f} runs/s ({1000 / bare:6.1f} ms each)")
    serial: dict[str, float] = {}
    for box in boxes:
        one = runs_per_second(box, args.runs, 1)
        many = runs_per_second(box, args.runs, args.concurrency)
        serial[box.name] = one
        print(
            f"{box.name:>5} sandbox, 1 at a time: {one:8.1f} runs/s ({1000 / one:6.1f} ms each); "
            f"{args.concurrency} at a time: {many:8.1f} runs/s ({many / one:4.2f}x)"
        )
    if "bwrap" in serial:
        ratio = serial["local"] / serial["bwrap"]
        extra = 1000 / serial["bwrap"] - 1000 / serial["local"]
        print(f"bwrap costs {ratio:4.2f}x the local sandbox per run ({extra:+.1f} ms)")


if __name__ == "__main__":
    main()
