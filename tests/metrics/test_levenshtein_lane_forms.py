"""The batch forms that share the lanes of ``levenshtein_distance_batch`` (similarity and the
normalized distance, with equal weights and any cut-off) against RapidFuzz and against the
one-pair functions, bit for bit: shorter sides at the lane-width boundaries, longer sides
around the longest text a lane takes, every alphabet, batches ending part-way through a group."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em
from edit_pairs import edited_pairs

ALPHABETS = [
    "abcd efgh",
    "".join(chr(0x4E00 + i) for i in range(30)) + "aé",
    "".join(chr(0x1F300 + i) for i in range(30)) + "b\u00e9",
    "ab\u00e9\u4e00\U0001f300",
]
SIDES = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300]


def pairs() -> st.SearchStrategy[tuple[str, str]]:
    """A pair at a lane boundary: an edited copy of a text, or another text."""
    return edited_pairs(ALPHABETS, SIDES)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(pairs(), min_size=1, max_size=30),
    st.sampled_from([1, 2]),
    st.sampled_from([None, 0.0, 0.2, 0.5, 1.0]),
    st.sampled_from([1, 3]),
)
def test_similarity_and_normalized_batches_equal_rapidfuzz(
    rows: list[tuple[str, str]], workers: int, cutoff: float | None, weight: int
) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    similar = [Levenshtein.normalized_similarity(e, a) for e, a in rows]
    assert em.levenshtein_similarity_batch(exp, act, workers=workers).tolist() == similar
    w = (weight, weight, weight)
    normalized = [
        Levenshtein.normalized_distance(e, a, weights=w, score_cutoff=cutoff) for e, a in rows
    ]
    got = em.levenshtein_normalized_distance_batch(
        exp, act, weights=w, score_cutoff=cutoff, workers=workers
    )
    assert got.tolist() == normalized


def test_a_large_mixed_batch_equals_the_pair_functions() -> None:
    rng = random.Random(30)
    exp, act = [], []
    for i in range(2003):
        alphabet = ALPHABETS[i % len(ALPHABETS)]
        n = rng.choice(SIDES)
        exp.append("".join(rng.choices(alphabet, k=n)))
        act.append("".join(rng.choices(alphabet, k=max(0, n + rng.randint(-3, 3)))))
    rows = list(zip(exp, act, strict=True))
    assert em.levenshtein_similarity_batch(exp, act).tolist() == [
        em.levenshtein_similarity(e, a) for e, a in rows
    ]
    for weights, cutoff in (((1, 1, 1), None), ((2, 2, 2), 0.3)):
        assert em.levenshtein_normalized_distance_batch(
            exp, act, weights=weights, score_cutoff=cutoff
        ).tolist() == [
            em.levenshtein_normalized_distance(e, a, weights=weights, score_cutoff=cutoff)
            for e, a in rows
        ]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(pairs(), min_size=1, max_size=30),
    st.sampled_from([1, 2]),
    st.sampled_from([0, 1, 3, 5, 20, 100]),
    st.sampled_from([1, 2, 3]),
)
def test_distance_batches_with_a_cutoff_equal_rapidfuzz(
    rows: list[tuple[str, str]], workers: int, cutoff: int, weight: int
) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    w = (weight, weight, weight)
    want = [Levenshtein.distance(e, a, weights=w, score_cutoff=cutoff) for e, a in rows]
    got = em.levenshtein_distance_batch(exp, act, weights=w, score_cutoff=cutoff, workers=workers)
    assert got.tolist() == want
