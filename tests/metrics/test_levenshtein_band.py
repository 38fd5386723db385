"""Levenshtein around the kernel's band of 64 diagonals, against rapidfuzz, value by value."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em


def near_duplicates(alphabet: str, n: int) -> tuple[list[str], list[str]]:
    """``n`` pairs of about one, two or three words of code points (64, 128, 192), the second a
    few edits (0 to 90) of the first: inside, at and beyond the limit of the kernel's band."""
    rng = random.Random(sum(map(ord, alphabet)))
    exp, act = [], []
    for _ in range(n):
        size = rng.choice([rng.randint(60, 70), rng.randint(120, 136), rng.randint(180, 270)])
        a = [rng.choice(alphabet) for _ in range(size)]
        b = list(a)
        for _ in range(rng.randint(0, 90)):
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


@pytest.mark.parametrize("alphabet", ["ab", "abcdefghij ", "a\u00e9\u6771 z", "xy\U0001f600\ud800"])
def test_levenshtein_near_duplicates_around_the_band(alphabet: str) -> None:
    exp, act = near_duplicates(alphabet, 600)
    pairs = list(zip(exp, act, strict=True))
    assert em.levenshtein_distance_batch(exp, act).tolist() == [
        Levenshtein.distance(e, a) for e, a in pairs
    ]
    assert em.levenshtein_similarity_batch(exp, act).tolist() == [
        Levenshtein.normalized_similarity(e, a) for e, a in pairs
    ]
