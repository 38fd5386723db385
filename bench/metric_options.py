"""Throughput of the RapidFuzz options, SQuAD exact match, multi-target ROUGE and WER/CER against
their reference packages, measured in one run.

    python bench/metric_options.py            # 20,000 pairs per metric
    python bench/metric_options.py --n 5000

For each metric it prints evalmark's pairs/s on one thread and on all cores, the reference's
pairs/s on the same inputs in the same process (a Python loop over the reference's scalar
function unless it has a batch form of its own, named in the row), and the two ratios. Slow
references are timed on a subset, which the row says. Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import string
import sys
import time
from collections.abc import Callable
from typing import Any

import evalmark.metrics as em


def texts(seed: int, count: int, most: int) -> list[str]:
    rng = random.Random(seed)
    words = ["the", "cat", "sat", "on", "a", "mat", "Zürich", "café", "東京", "run", "ran"]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, most))) for _ in range(count)]


def best_of(fn: Callable[[], Any], rounds: int = 3) -> float:
    """Seconds of the fastest of ``rounds`` calls."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


_PUNCT = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def squad_exact(gold: str, pred: str) -> int:
    """The SQuAD v2.0 script's compute_exact, as written there."""

    def norm(s: str) -> str:
        s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
        return " ".join(_ARTICLES.sub(" ", s).split())

    return int(norm(gold) == norm(pred))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="pairs per metric")
    n = parser.parse_args(argv).n
    try:
        import jiwer
        from rapidfuzz import process
        from rapidfuzz.distance import Indel, Levenshtein
        from rouge_score import rouge_scorer
    except ImportError as exc:  # pragma: no cover - a bench, not a test
        print(f"reference not installed: {exc.name}")
        return 0
    left, right = texts(1, n, 12), texts(2, n, 12)
    left_tokens, right_tokens = [t.split() for t in left], [t.split() for t in right]
    sub = max(n // 10, 200)
    targets = [[a, b] for a, b in zip(left, texts(3, n, 12), strict=True)]
    scorer = rouge_scorer.RougeScorer(["rougeL"])

    def loop(fn: Callable[[str, str], Any], count: int = n) -> Callable[[], Any]:
        return lambda: [fn(a, b) for a, b in zip(left[:count], right[:count], strict=True)]

    cases: list[tuple[str, Callable[..., Any], str, Callable[[], Any], int]] = [
        (
            "levenshtein_distance weights=(1,1,2)",
            lambda w: em.levenshtein_distance_batch(left, right, weights=(1, 1, 2), workers=w),
            "Levenshtein.distance loop",
            loop(lambda a, b: Levenshtein.distance(a, b, weights=(1, 1, 2))),
            n,
        ),
        (
            "levenshtein_distance weights=(1,2,3)",
            lambda w: em.levenshtein_distance_batch(left, right, weights=(1, 2, 3), workers=w),
            "Levenshtein.distance loop",
            loop(lambda a, b: Levenshtein.distance(a, b, weights=(1, 2, 3))),
            n,
        ),
        (
            "levenshtein_normalized_distance",
            lambda w: em.levenshtein_normalized_distance_batch(left, right, workers=w),
            "Levenshtein.normalized_distance loop",
            loop(Levenshtein.normalized_distance),
            n,
        ),
        (
            "indel_distance",
            lambda w: em.indel_distance_batch(left, right, workers=w),
            "Indel.distance loop",
            loop(Indel.distance),
            n,
        ),
        (
            "indel_normalized_distance",
            lambda w: em.indel_normalized_distance_batch(left, right, workers=w),
            "Indel.normalized_distance loop",
            loop(Indel.normalized_distance),
            n,
        ),
        (
            "levenshtein_editops (scalar loop)",
            lambda w: [em.levenshtein_editops(a, b) for a, b in zip(left, right, strict=True)],
            "Levenshtein.editops(...).as_list() loop",
            loop(lambda a, b: Levenshtein.editops(a, b).as_list()),
            n,
        ),
        (
            "levenshtein_editops form=opcodes (loop)",
            lambda w: [
                em.levenshtein_editops(a, b, form="opcodes")
                for a, b in zip(left, right, strict=True)
            ],
            "Levenshtein.opcodes(...).as_list() loop",
            loop(lambda a, b: Levenshtein.opcodes(a, b).as_list()),
            n,
        ),
        (
            "levenshtein_distance, token lists",
            lambda w: em.levenshtein_distance_batch(left_tokens, right_tokens, workers=w),
            "Levenshtein.distance loop on the lists",
            lambda: [
                Levenshtein.distance(a, b) for a, b in zip(left_tokens, right_tokens, strict=True)
            ],
            n,
        ),
        (
            "levenshtein_cdist 300x300, token lists",
            lambda w: em.levenshtein_cdist(left_tokens[:300], right_tokens[:300], workers=w),
            "process.cdist on the lists, 1 thread",
            lambda: process.cdist(
                left_tokens[:300], right_tokens[:300], scorer=Levenshtein.distance, workers=1
            ),
            90_000,
        ),
        (
            "levenshtein_cdist 300x300 weights=(1,2,3)",
            lambda w: em.levenshtein_cdist(left[:300], right[:300], weights=(1, 2, 3), workers=w),
            "process.cdist, 1 thread",
            lambda: process.cdist(
                left[:300],
                right[:300],
                scorer=Levenshtein.distance,
                scorer_kwargs={"weights": (1, 2, 3)},
                workers=1,
            ),
            90_000,
        ),
        (
            "levenshtein_cdist 300x300",
            lambda w: em.levenshtein_cdist(left[:300], right[:300], workers=w),
            "process.cdist, 1 thread",
            lambda: process.cdist(left[:300], right[:300], scorer=Levenshtein.distance, workers=1),
            90_000,
        ),
        (
            "levenshtein_extract (1 query, n choices)",
            lambda w: em.levenshtein_extract(left[0], right, limit=5, workers=w),
            "process.extract",
            lambda: process.extract(left[0], right, scorer=Levenshtein.distance, limit=5),
            1,
        ),
        (
            "squad_exact_match",
            lambda w: em.squad_exact_match_batch(left, right, workers=w),
            "SQuAD v2.0 compute_exact loop",
            loop(squad_exact, sub),
            sub,
        ),
        (
            "rouge_l, 2 targets per row",
            lambda w: em.rouge_l_batch(targets, right, workers=w),
            "RougeScorer.score_multi loop",
            lambda: [
                scorer.score_multi(t, p) for t, p in zip(targets[:sub], right[:sub], strict=True)
            ],
            sub,
        ),
        (
            "wer",
            lambda w: em.wer_batch(left, right, workers=w),
            "jiwer.wer loop",
            loop(jiwer.wer, sub),
            sub,
        ),
        (
            "cer",
            lambda w: em.cer_batch(left, right, workers=w),
            "jiwer.cer loop",
            loop(jiwer.cer, sub),
            sub,
        ),
        (
            "corpus_wer",
            lambda w: em.corpus_wer(left, right, workers=w),
            "jiwer.wer(list, list)",
            lambda: jiwer.wer(left, right),
            n,
        ),
    ]
    print(f"{'metric':44} {'ours 1 thread':>14} {'ours all':>12} {'reference':>12}  ratio 1/all")
    for name, ours, peer, reference, peer_pairs in cases:
        pairs = 90_000 if "cdist" in name else 1 if "extract" in name else n
        serial = pairs / best_of(functools.partial(ours, 1))
        every = pairs / best_of(functools.partial(ours, -1))
        theirs = peer_pairs / best_of(reference, rounds=1 if peer_pairs == sub else 3)
        note = f"  [{peer}" + (f", timed on {peer_pairs}" if peer_pairs != pairs else "") + "]"
        print(
            f"{name:44} {serial:14,.0f} {every:12,.0f} {theirs:12,.0f}  "
            f"{serial / theirs:5.1f}× / {every / theirs:5.1f}×{note}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
