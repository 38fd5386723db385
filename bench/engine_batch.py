"""Throughput of the engine on a suite of deterministic checks, against a plain Python loop.

    python bench/engine_batch.py                 # 20,000 samples, best of 3
    python bench/engine_batch.py --n 50000 --repeat 5

The suite: ExactMatch, Contains, ContainsFacts, TokenF1 and RougeL over the same precomputed
outputs (bench/workload.py text pairs; each sample's facts are two words of its expected
answer), scored through ``Scorer().evaluate_outputs``. The peer, measured in the same run, is
a plain Python loop over the samples calling the same pieces one sample at a time (the text
normalizer for the three text checks, ``token_f1`` and ``rouge_l`` for the metrics) and
keeping only the verdicts: the least work a per-sample evaluator can do. Figures are samples/s;
ratio = engine samples/s / loop samples/s. Beside the wall-clock figures the CPU figures (CPU
time of the process, every thread counted): on a shared machine they swing less. With
``--inspect-python PATH`` (a Python with inspect_ai, e.g. a venv with the bench extra),
inspect_ai's scorer loop on the same samples is measured too, in that interpreter, by
bench/inspect_scorer_loop.py (its docstring says what it runs). Building the Sample objects is
setup, outside every timing. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402
from evalmark import Sample, Scorer  # noqa: E402
from evalmark.strategies import (  # noqa: E402
    Contains,
    ContainsFacts,
    ExactMatch,
    RougeL,
    TokenF1,
)
from evalmark.strategies._text import normalize_text  # noqa: E402

GOAL = 100_000


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, float]:
    """The fastest of ``repeat`` runs: (wall seconds, CPU seconds of the whole process, every
    thread counted), each the least seen."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start)
    return wall, cpu


def build_samples(
    n: int, seed: int, *, prefix: str = "s", tagged: bool = False
) -> tuple[list[Sample], list[str]]:
    """``n`` samples with an expected answer and two facts, and their outputs (setup); named
    ``prefix`` and the row number, and with ``tagged`` each tagged ``even`` or ``odd``."""
    expected, actual = workload.text_pairs(n, seed=seed)
    samples = []
    for i, text in enumerate(expected):
        words = text.split()
        facts = (words[0], words[len(words) // 2])
        tags = (("even",) if i % 2 == 0 else ("odd",)) if tagged else ()
        samples.append(
            Sample(
                name=f"{prefix}{i}",
                parameters=[i],
                expected_output=text,
                expected_facts=facts,
                tags=tags,
            )
        )
    return samples, actual


def plain_loop(samples: list[Sample], outputs: list[str]) -> list[tuple[bool, ...]]:
    """The peer: every check of the suite, one sample at a time, verdicts only."""
    verdicts = []
    for sample, output in zip(samples, outputs, strict=True):
        wanted = sample.expected_output or ""
        exact = normalize_text(output) == normalize_text(wanted)
        loose = normalize_text(output, punctuation=False)
        contains = normalize_text(wanted, punctuation=False) in loose
        facts_text = normalize_text(output)
        facts = all(normalize_text(f) in facts_text for f in sample.expected_facts)
        f1 = em.token_f1(wanted, output) >= 0.5
        rouge = em.rouge_l(wanted, output) >= 0.5
        verdicts.append((exact, contains, facts, f1, rouge))
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="samples (20,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (3)")
    parser.add_argument("--seed", type=int, default=1, help="workload seed (1)")
    parser.add_argument(
        "--inspect-python", help="a Python with inspect_ai: measure its scorer loop too"
    )
    args = parser.parse_args()
    samples, outputs = build_samples(args.n, args.seed)
    suite = (ExactMatch(), Contains(), ContainsFacts(), TokenF1(0.5), RougeL(0.5))
    scorer = Scorer()

    def engine() -> Any:
        return scorer.evaluate_outputs(samples, outputs, *suite, name="suite")

    engine()  # warm the thread pool and the normalizer's tables
    plain_loop(samples[:100], outputs[:100])
    t_engine, cpu_engine = best_of(args.repeat, engine)
    t_loop, cpu_loop = best_of(args.repeat, lambda: plain_loop(samples, outputs))
    rate_engine, rate_loop = args.n / t_engine, args.n / t_loop
    cpu_rate_engine, cpu_rate_loop = args.n / cpu_engine, args.n / cpu_loop
    print(f"engine, 5 deterministic checks, {args.n:,} samples (best of {args.repeat})")
    print(f"{'run':<46}{'seconds':>9}{'samples/s':>13}{'CPU samples/s':>15}")
    print(
        f"{'engine: Scorer().evaluate_outputs':<46}{t_engine:>9.3f}{rate_engine:>13,.0f}"
        f"{cpu_rate_engine:>15,.0f}"
    )
    print(
        f"{'plain Python loop over the same kernels':<46}{t_loop:>9.3f}{rate_loop:>13,.0f}"
        f"{cpu_rate_loop:>15,.0f}"
    )
    print(
        f"ratio engine / loop: {rate_engine / rate_loop:.2f} "
        f"(CPU: {cpu_rate_engine / cpu_rate_loop:.2f})"
    )
    print(
        f"goal {GOAL:,} samples/s: {'met' if rate_engine >= GOAL else 'NOT met'}; "
        f"engine / goal {rate_engine / GOAL:.2f} (CPU samples/s / goal "
        f"{cpu_rate_engine / GOAL:.2f}; the CPU figure counts every thread, so it is the "
        "rate one core would give with the machine to itself)"
    )
    if not args.inspect_python:
        print("inspect_ai scorer loop: not measured in this run (see --inspect-python)")
        return
    command = [args.inspect_python, str(HERE / "inspect_scorer_loop.py"), "--n", str(args.n)]
    command += ["--repeat", str(args.repeat), "--seed", str(args.seed)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600, check=True)
    rate_inspect = float(done.stdout.split()[-1])
    print(f"{'inspect_ai scorer loop (4 of its scorers)':<46}{'':>9}{rate_inspect:>13,.0f}")
    print(f"ratio engine / inspect_ai: {rate_engine / rate_inspect:.1f}")


if __name__ == "__main__":
    main()
