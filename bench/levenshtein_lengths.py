"""Levenshtein distance against RapidFuzz by length, alphabet and similarity, in one run.

    python bench/levenshtein_lengths.py                  # the whole table
    python bench/levenshtein_lengths.py --lengths 16 64 --alphabets ascii
    python bench/levenshtein_lengths.py --variants       # weighted, Indel, normalized, cutoff, ...
                                                         # (cut-offs on long pairs too)

Each row times evalmark's ``levenshtein_distance_batch`` with all workers and RapidFuzz's
``process.cpdist(..., scorer=Levenshtein.distance, workers=-1)`` on the same pairs, in the same
process, best of five, and prints pairs/s of both and the ratio RapidFuzz time / evalmark time
(above 1.0 means evalmark is faster), by the wall clock and by CPU time (all threads, steadier
on a shared machine). The two answers are compared: a difference stops the run.

Pairs are seeded. "similar" pairs are one text and a copy with about one edit in twelve
symbols (substitutions, insertions, deletions); "dissimilar" pairs are two independent texts
of the same length. Alphabets: ASCII letters and space; BMP, 3,000 CJK ideographs; astral,
1,000 symbols from U+1F300 on (four UTF-8 bytes each). Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import evalmark.metrics as em

LENGTHS = (16, 64, 256, 1000, 4000, 16000)
ALPHABETS: dict[str, list[str]] = {
    "ascii": [chr(c) for c in range(ord("a"), ord("z") + 1)] + [" "],
    "bmp": [chr(0x4E00 + i) for i in range(3000)],
    "astral": [chr(0x1F300 + i) for i in range(1000)],
}


def pair_count(length: int, budget: int) -> int:
    """Pairs per row: about ``budget`` symbol pairs of work (n * m) in all, at least 6."""
    return max(6, min(50_000, budget // (length * length // 64 + length)))


def make_pairs(
    length: int, alphabet: Sequence[str], similar: bool, count: int, seed: int
) -> tuple[list[str], list[str]]:
    """``count`` seeded pairs of ``length`` symbols each (the edited copy may differ by a few)."""
    rng = random.Random(f"{seed}-{length}-{len(alphabet)}-{similar}")
    left, right = [], []
    for _ in range(count):
        a = rng.choices(alphabet, k=length)
        if similar:
            b = list(a)
            for _ in range(max(1, length // 12)):
                k = rng.randrange(len(b) + 1)
                op = rng.random()
                if op < 0.5 and k < len(b):
                    b[k] = rng.choice(alphabet)
                elif op < 0.75:
                    b.insert(k, rng.choice(alphabet))
                elif k < len(b):
                    del b[k]
        else:
            b = rng.choices(alphabet, k=length)
        left.append("".join(a))
        right.append("".join(b))
    return left, right


def best_of(fn: Callable[[], Any], rounds: int = 3) -> tuple[float, float, Any]:
    """Wall seconds and CPU seconds (all threads) of the fastest of ``rounds`` calls, each
    its own best, and the last answer."""
    wall, cpu, out = [], [], None
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu), out


def compare(
    label: str,
    count: int,
    ours: Callable[[], Any],
    theirs: Callable[[], Any],
    rounds: int,
) -> float:
    """Time both, check the answers agree, print one row; returns the wall-clock ratio."""
    w_ours, c_ours, a = best_of(ours, rounds)
    w_theirs, c_theirs, b = best_of(theirs, rounds)
    if not np.array_equal(np.asarray(a), np.asarray(b)):
        sys.exit(f"{label}: evalmark and RapidFuzz disagree")
    ratio = w_theirs / w_ours
    print(
        f"{label:<34} {count:>7} {count / w_ours:>13,.0f} {count / w_theirs:>13,.0f}"
        f" {ratio:>7.2f} {c_theirs / c_ours:>7.2f}",
        flush=True,
    )
    return ratio


def header(first: str) -> None:
    """The column titles: pairs/s by the wall clock, and the ratios by the wall clock and by
    the CPU time of all threads (steadier on a shared machine)."""
    print(
        f"{first:<34} {'pairs':>7} {'evalmark/s':>13} {'rapidfuzz/s':>13} {'ratio':>7} {'cpu':>7}"
    )


def lengths_table(args: argparse.Namespace) -> list[float]:
    """The distance table by length, alphabet and similarity."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    header("length alphabet pairs")
    ratios = []
    for length in args.lengths:
        for name in args.alphabets:
            for similar in (True, False):
                count = pair_count(length, args.budget)
                left, right = make_pairs(length, ALPHABETS[name], similar, count, args.seed)
                label = f"{length:>5} {name:<6} {'similar' if similar else 'dissimilar'}"
                ours = functools.partial(em.levenshtein_distance_batch, left, right, workers=-1)
                theirs = functools.partial(
                    process.cpdist, left, right, scorer=Levenshtein.distance, workers=-1
                )
                ratios.append(compare(label, count, ours, theirs, args.rounds))
    return ratios


def variants_table(args: argparse.Namespace) -> list[float]:
    """The options of issue 30 against RapidFuzz's equivalents, on mixed ASCII/BMP pairs."""
    from rapidfuzz import process
    from rapidfuzz.distance import Indel, Levenshtein

    rng = random.Random(args.seed)
    words = ["the", "cat", "sat", "on", "a", "mat", "Zürich", "café", "東京", "run", "ran"]
    left = [" ".join(rng.choices(words, k=rng.randint(2, 12))) for _ in range(20_000)]
    right = [" ".join(rng.choices(words, k=rng.randint(2, 12))) for _ in range(20_000)]
    n = len(left)

    def rf(scorer: Any, **kw: Any) -> Callable[[], Any]:
        return lambda: process.cpdist(left, right, scorer=scorer, workers=-1, **kw)

    rows: list[tuple[str, int, Callable[[], Any], Callable[[], Any]]] = [
        (
            "weights=(1,1,2)",
            n,
            lambda: em.levenshtein_distance_batch(left, right, weights=(1, 1, 2)),
            rf(Levenshtein.distance, scorer_kwargs={"weights": (1, 1, 2)}),
        ),
        (
            "weights=(1,2,3)",
            n,
            lambda: em.levenshtein_distance_batch(left, right, weights=(1, 2, 3)),
            rf(Levenshtein.distance, scorer_kwargs={"weights": (1, 2, 3)}),
        ),
        (
            "score_cutoff=3",
            n,
            lambda: em.levenshtein_distance_batch(left, right, score_cutoff=3),
            rf(Levenshtein.distance, score_cutoff=3),
        ),
        (
            "normalized_distance",
            n,
            lambda: em.levenshtein_normalized_distance_batch(left, right),
            rf(Levenshtein.normalized_distance, dtype=np.float64),
        ),
        (
            "indel_distance",
            n,
            lambda: em.indel_distance_batch(left, right),
            rf(Indel.distance),
        ),
        (
            "indel_normalized_distance",
            n,
            lambda: em.indel_normalized_distance_batch(left, right),
            rf(Indel.normalized_distance, dtype=np.float64),
        ),
        (
            "cdist 300x300",
            300 * 300,
            lambda: em.levenshtein_cdist(left[:300], right[:300]),
            lambda: process.cdist(
                left[:300], right[:300], scorer=Levenshtein.distance, workers=-1, dtype=np.int64
            ),
        ),
        (
            "cdist 300x300 weights=(1,2,3)",
            300 * 300,
            lambda: em.levenshtein_cdist(left[:300], right[:300], weights=(1, 2, 3)),
            lambda: process.cdist(
                left[:300],
                right[:300],
                scorer=Levenshtein.distance,
                scorer_kwargs={"weights": (1, 2, 3)},
                workers=-1,
                dtype=np.int64,
            ),
        ),
    ]
    rows.append(
        (
            "cdist 300x300 weights=(2,2,5)",
            300 * 300,
            lambda: em.levenshtein_cdist(left[:300], right[:300], weights=(2, 2, 5)),
            lambda: process.cdist(
                left[:300],
                right[:300],
                scorer=Levenshtein.distance,
                scorer_kwargs={"weights": (2, 2, 5)},
                workers=-1,
                dtype=np.int64,
            ),
        )
    )
    header("variant (20,000 short mixed pairs)")
    ratios = [compare(label, k, ours, theirs, args.rounds) for label, k, ours, theirs in rows]
    # A cut-off on long pairs: the kernel stops once the distance is known to be over it.
    for length, similar in ((1000, True), (1000, False), (4000, True)):
        count = pair_count(length, args.budget)
        long_left, long_right = make_pairs(length, ALPHABETS["ascii"], similar, count, args.seed)
        for cutoff in (3, 100):
            label = f"score_cutoff={cutoff}, {length} {'similar' if similar else 'dissimilar'}"
            ours = functools.partial(
                em.levenshtein_distance_batch, long_left, long_right, score_cutoff=cutoff
            )
            theirs = functools.partial(
                process.cpdist,
                long_left,
                long_right,
                scorer=Levenshtein.distance,
                score_cutoff=cutoff,
                workers=-1,
            )
            ratios.append(compare(label, count, ours, theirs, args.rounds))
    # extract: the answers' shapes differ (tuples vs RapidFuzz's), so compare the distances.
    for limit in (5, 1):
        w_ours, c_ours, got = best_of(
            functools.partial(em.levenshtein_extract, left[0], right, limit=limit), args.rounds
        )
        w_theirs, c_theirs, want = best_of(
            functools.partial(
                process.extract, left[0], right, scorer=Levenshtein.distance, limit=limit
            ),
            args.rounds,
        )
        label = f"extract limit={limit} (1 query)"
        print(
            f"{label:<34} {n:>7} {n / w_ours:>13,.0f} {n / w_theirs:>13,.0f}"
            f" {w_theirs / w_ours:>7.2f} {c_theirs / c_ours:>7.2f}    top distances "
            f"{[g[1] for g in got]} vs {[w[1] for w in want]}"
        )
        ratios.append(w_theirs / w_ours)
    return ratios


def main(argv: list[str] | None = None) -> int:
    """Print the tables; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS))
    parser.add_argument("--alphabets", nargs="+", default=list(ALPHABETS), choices=ALPHABETS)
    parser.add_argument("--budget", type=int, default=40_000_000, help="symbol pairs per row")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--variants", action="store_true", help="the option table instead")
    args = parser.parse_args(argv)
    ratios = variants_table(args) if args.variants else lengths_table(args)
    print(f"lowest ratio {min(ratios):.2f}, geometric mean {np.exp(np.mean(np.log(ratios))):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
