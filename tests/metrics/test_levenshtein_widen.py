"""Levenshtein on long pairs, where the kernel bounds the cost and widens the bound in steps,
against rapidfuzz value by value: lengths around the 64-symbol words, edit counts around each
bound it tries (128, 256, ...), and dissimilar pairs that end in the full recurrence."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em

LENGTHS = (257, 320, 511, 512, 513, 1023, 1025, 2000, 4097)
EDITS = (0, 1, 40, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 400, 513, 1100)


def edited(rng: random.Random, a: list[str], edits: int, alphabet: str) -> list[str]:
    """``a`` after ``edits`` random substitutions, insertions and deletions."""
    b = list(a)
    for _ in range(edits):
        k, op = rng.randrange(len(b) + 1), rng.random()
        if op < 0.4 and k < len(b):
            b[k] = rng.choice(alphabet)
        elif op < 0.7 or k == len(b):
            b.insert(k, rng.choice(alphabet))
        else:
            del b[k]
    return b


def long_pairs(alphabet: str, seed: int) -> tuple[list[str], list[str]]:
    """Seeded pairs of every length in LENGTHS with every edit count in EDITS that fits, some
    edits bunched at one end (so the alignment leaves the middle diagonals), plus one
    independent pair per length."""
    rng = random.Random(seed)
    exp, act = [], []
    for n in LENGTHS:
        a = [rng.choice(alphabet) for _ in range(n)]
        for edits in EDITS:
            if edits > n:
                continue
            exp.append("".join(a))
            act.append("".join(edited(rng, a, edits, alphabet)))
            # The same number of edits inside the first eighth only.
            head = edited(rng, a[: n // 8], min(edits, n // 8), alphabet)
            exp.append("".join(a))
            act.append("".join(head + a[n // 8 :]))
        exp.append("".join(a))
        act.append("".join(rng.choice(alphabet) for _ in range(rng.randint(n - 70, n + 300))))
    return exp, act


@pytest.mark.parametrize(
    ("alphabet", "seed"),
    [("ab", 1), ("abcdefghijklmnopqrstuvwxyz ", 2), ("a\u00e9\u6771 z\U0001f600", 3)],
)
def test_long_pairs_match_rapidfuzz_around_each_widening_step(alphabet: str, seed: int) -> None:
    exp, act = long_pairs(alphabet, seed)
    want = [Levenshtein.distance(e, a) for e, a in zip(exp, act, strict=True)]
    assert em.levenshtein_distance_batch(exp, act).tolist() == want
    # Either side as the pattern.
    assert em.levenshtein_distance_batch(act, exp).tolist() == want


@pytest.mark.parametrize("cutoff", [0, 1, 2, 3, 4, 63, 64, 127, 128, 129, 300])
def test_long_pairs_with_a_cutoff_match_rapidfuzz(cutoff: int) -> None:
    exp, act = long_pairs("abcdefghijklmnopqrstuvwxyz ", 4)
    want = [Levenshtein.distance(e, a, score_cutoff=cutoff) for e, a in zip(exp, act, strict=True)]
    got = em.levenshtein_distance_batch(exp, act, score_cutoff=cutoff).tolist()
    assert got == want
    # Weights of equal cost scale the cut-off: twice the unit distance, cut at the same value.
    want = [
        Levenshtein.distance(e, a, weights=(2, 2, 2), score_cutoff=cutoff)
        for e, a in zip(exp, act, strict=True)
    ]
    got = em.levenshtein_distance_batch(exp, act, weights=(2, 2, 2), score_cutoff=cutoff)
    assert got.tolist() == want
