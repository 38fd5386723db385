"""inspect_ai's scorer loop on the engine benchmark's samples: run with a Python that has
inspect_ai installed (the bench extra); ``bench/engine_batch.py --inspect-python PATH`` runs it
and prints the ratio.

    python bench/inspect_scorer_loop.py --n 20000 --repeat 3

Each sample becomes a ``TaskState`` holding the precomputed output as a ``mockllm/model``
reply (``ModelOutput.from_content``) and its expected answer as the ``Target`` (setup, outside
the timing); then every sample is scored by inspect_ai's own scorers ``exact()``,
``includes()``, ``f1()`` and ``match("any")``, one ``await`` per (sample, scorer) pair, as an
inspect_ai task scores a sample. No model is called and no token is counted. inspect_ai has no
ROUGE-L or expected-facts scorer, so this suite has four checks to evalmark's five. Prints one
line: ``samples_per_second <figure>``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Target, exact, f1, includes, match
from inspect_ai.solver import TaskState

import workload


def states(n: int, seed: int) -> list[tuple[TaskState, Target]]:
    """One task state and target per workload pair (setup)."""
    expected, actual = workload.text_pairs(n, seed=seed)
    model = ModelName("mockllm/model")
    found = []
    for i, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
        state = TaskState(model, i, 1, f"question {i}", [])
        state.output = ModelOutput.from_content("mockllm/model", got)
        found.append((state, Target(wanted)))
    return found


async def score_all(pairs: list[tuple[TaskState, Target]]) -> int:
    """Every scorer on every sample, in turn; the number of scores made."""
    scorers = [exact(), includes(), f1(), match("any")]
    made = 0
    for state, target in pairs:
        for scorer in scorers:
            await scorer(state, target)
            made += 1
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pairs = states(args.n, args.seed)
    asyncio.run(score_all(pairs[:100]))  # warm up
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        asyncio.run(score_all(pairs))
        best = min(best, time.perf_counter() - start)
    print(f"samples_per_second {args.n / best:.0f}")


if __name__ == "__main__":
    main()
