"""Levenshtein with small cut-offs (0 to 4: the kernel enumerates short edit sequences up to 3)
against rapidfuzz, value by value, on pairs a few edits apart and on unrelated pairs."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em


def nearby_pairs(alphabet: str, seed: int, count: int = 1500) -> tuple[list[str], list[str]]:
    """Seeded pairs of 0 to 150 symbols, the second 0 to 6 edits of the first (one in five
    unrelated)."""
    rng = random.Random(seed)
    exp, act = [], []
    for _ in range(count):
        a = [rng.choice(alphabet) for _ in range(rng.randint(0, 150))]
        if rng.random() < 0.2:
            b = [rng.choice(alphabet) for _ in range(rng.randint(0, 150))]
        else:
            b = list(a)
            for _ in range(rng.randint(0, 6)):
                k, op = rng.randrange(len(b) + 1), rng.random()
                if op < 0.4 and k < len(b):
                    b[k] = rng.choice(alphabet)
                elif op < 0.7 or k == len(b):
                    b.insert(k, rng.choice(alphabet))
                else:
                    del b[k]
        exp.append("".join(a))
        act.append("".join(b))
    return exp, act


@pytest.mark.parametrize(
    ("alphabet", "seed"), [("ab", 1), ("abcdefgh ", 2), ("a\u00e9\u6771 z\U0001f600\ud800", 3)]
)
@pytest.mark.parametrize("cutoff", [0, 1, 2, 3, 4])
def test_small_cutoffs_match_rapidfuzz(alphabet: str, seed: int, cutoff: int) -> None:
    exp, act = nearby_pairs(alphabet, seed)
    pairs = list(zip(exp, act, strict=True))
    want = [Levenshtein.distance(e, a, score_cutoff=cutoff) for e, a in pairs]
    assert em.levenshtein_distance_batch(exp, act, score_cutoff=cutoff).tolist() == want
    assert [em.levenshtein_distance(e, a, score_cutoff=cutoff) for e, a in pairs[:200]] == want[
        :200
    ]
    want = [Levenshtein.distance(e, a, weights=(3, 3, 3), score_cutoff=cutoff) for e, a in pairs]
    got = em.levenshtein_distance_batch(exp, act, weights=(3, 3, 3), score_cutoff=cutoff)
    assert got.tolist() == want
