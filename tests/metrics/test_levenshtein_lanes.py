"""Batched Levenshtein distances of short pairs, which run several pairs at once (one per
vector lane), against RapidFuzz: shorter sides at the lane-width boundaries (1, 15, 16, 17,
31, 32, 33, 63, 64, 65), longer sides around the longest text a lane takes, every alphabet,
and batches that mix all of these (and end part-way through a group of lanes)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em

ALPHABETS = {
    "ascii": "abcd efgh",
    "bmp": "".join(chr(0x4E00 + i) for i in range(30)) + "aé",
    "astral": "".join(chr(0x1F300 + i) for i in range(30)) + "b\u00e9\ud800",
    "mixed": "ab\u00e9\u4e00\U0001f300",
}
SHORT = [1, 15, 16, 17, 31, 32, 33, 63, 64, 65]
LONG = [0, 1, 16, 64, 65, 127, 128, 129, 200]


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A pair whose shorter side sits at a lane boundary: an edited copy, or another text."""
    alphabet = ALPHABETS[draw(st.sampled_from(sorted(ALPHABETS)))]
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = [rng.choice(alphabet) for _ in range(draw(st.sampled_from(SHORT)))]
    if draw(st.booleans()):
        size = len(a) + draw(st.sampled_from(LONG))
        b = [rng.choice(alphabet) for _ in range(size)]
    else:
        b = list(a)
        for _ in range(draw(st.integers(0, 12))):
            k = rng.randrange(len(b) + 1)
            if k < len(b) and rng.random() < 0.5:
                b[k] = rng.choice(alphabet)
            else:
                b.insert(k, rng.choice(alphabet))
    if draw(st.booleans()):
        a, b = b, a
    return "".join(a), "".join(b)


@settings(max_examples=120, deadline=None)
@given(st.lists(pairs(), min_size=1, max_size=40))
def test_batched_distances_equal_rapidfuzz(rows: list[tuple[str, str]]) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    want = [Levenshtein.distance(e, a) for e, a in rows]
    assert em.levenshtein_distance_batch(exp, act, workers=1).tolist() == want
    assert em.levenshtein_distance_batch(exp, act, workers=2).tolist() == want
    assert em.levenshtein_distance_batch(exp, act, weights=(3, 3, 3)).tolist() == [
        3 * d for d in want
    ]
    assert em.levenshtein_distance_batch(exp, act, score_cutoff=5).tolist() == [
        Levenshtein.distance(e, a, score_cutoff=5) for e, a in rows
    ]


def test_a_large_mixed_batch_equals_rapidfuzz_and_the_pair_function() -> None:
    rng = random.Random(36)
    exp, act = [], []
    for i in range(3001):
        alphabet = list(ALPHABETS.values())[i % len(ALPHABETS)]
        n = rng.choice(SHORT + LONG)
        exp.append("".join(rng.choices(alphabet, k=n)))
        act.append("".join(rng.choices(alphabet, k=max(0, n + rng.randint(-3, 3)))))
    want = [Levenshtein.distance(e, a) for e, a in zip(exp, act, strict=True)]
    assert em.levenshtein_distance_batch(exp, act).tolist() == want
    pairs = zip(exp[:300], act[:300], strict=True)
    assert [em.levenshtein_distance(e, a) for e, a in pairs] == want[:300]
