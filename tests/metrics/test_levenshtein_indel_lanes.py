"""The Indel distance in the lanes of the batch kernels (one pair per lane, the LCS recurrence),
and the weights that route to it (equal insert and delete costs, a substitution costing at
least both: the distance is that cost times the Indel distance), against RapidFuzz and the
one-pair functions, bit for bit: shorter sides at the lane-width boundaries, longer sides
around the longest text a lane takes, every alphabet, cut-offs, one and two workers."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

import evalmark.metrics as em
from edit_pairs import edited_pairs

ALPHABETS = [
    "abcd efgh",
    "".join(chr(0x4E00 + i) for i in range(30)) + "aé",
    "".join(chr(0x1F300 + i) for i in range(30)) + "b\u00e9\ud800",
    "ab\u00e9\u4e00\U0001f300",
]
SIDES = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200]
# Weights that are a multiple of the Indel distance, and neighbours that are not.
INDEL_WEIGHTS = [(1, 1, 2), (1, 1, 7), (2, 2, 4), (3, 3, 9)]
OTHER_WEIGHTS = [(2, 2, 3), (1, 2, 2), (2, 1, 4)]


def pairs() -> st.SearchStrategy[tuple[str, str]]:
    """A pair at a lane boundary: an edited copy of a text, or another text."""
    return edited_pairs(ALPHABETS, SIDES)


@settings(max_examples=120, deadline=None)
@given(st.lists(pairs(), min_size=1, max_size=40), st.sampled_from([None, 0, 3, 40]))
def test_indel_batches_equal_rapidfuzz(rows: list[tuple[str, str]], cutoff: int | None) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    want = [Indel.distance(e, a, score_cutoff=cutoff) for e, a in rows]
    for workers in (1, 2):
        got = em.indel_distance_batch(exp, act, score_cutoff=cutoff, workers=workers)
        assert got.tolist() == want
    fraction = None if cutoff is None else cutoff / 50
    want_norm = [Indel.normalized_distance(e, a, score_cutoff=fraction) for e, a in rows]
    got_norm = em.indel_normalized_distance_batch(exp, act, score_cutoff=fraction, workers=2)
    assert got_norm.tolist() == want_norm
    pair_norm = [em.indel_normalized_distance(e, a, score_cutoff=fraction) for e, a in rows]
    assert pair_norm == want_norm


@settings(max_examples=80, deadline=None)
@given(
    st.lists(pairs(), min_size=1, max_size=30),
    st.sampled_from(INDEL_WEIGHTS + OTHER_WEIGHTS),
    st.sampled_from([None, 2, 25]),
)
def test_weighted_batches_equal_rapidfuzz(
    rows: list[tuple[str, str]], weights: tuple[int, int, int], cutoff: int | None
) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    want = [Levenshtein.distance(e, a, weights=weights, score_cutoff=cutoff) for e, a in rows]
    for workers in (1, 2):
        got = em.levenshtein_distance_batch(
            exp, act, weights=weights, score_cutoff=cutoff, workers=workers
        )
        assert got.tolist() == want
    want_norm = [Levenshtein.normalized_distance(e, a, weights=weights) for e, a in rows]
    got_norm = em.levenshtein_normalized_distance_batch(exp, act, weights=weights)
    assert got_norm.tolist() == want_norm
    pair_norm = [em.levenshtein_normalized_distance(e, a, weights=weights) for e, a in rows]
    assert pair_norm == want_norm


def test_a_large_mixed_batch_equals_rapidfuzz_and_the_pair_functions() -> None:
    rng = random.Random(30)
    exp, act = [], []
    for i in range(3001):
        alphabet = ALPHABETS[i % len(ALPHABETS)]
        n = rng.choice(SIDES)
        exp.append("".join(rng.choices(alphabet, k=n)))
        act.append("".join(rng.choices(alphabet, k=max(0, n + rng.randint(-3, 3)))))
    rows = list(zip(exp, act, strict=True))
    want = [Indel.distance(e, a) for e, a in rows]
    assert em.indel_distance_batch(exp, act).tolist() == want
    assert [em.indel_distance(e, a) for e, a in rows[:300]] == want[:300]
    assert em.levenshtein_distance_batch(exp, act, weights=(2, 2, 5)).tolist() == [
        2 * d for d in want
    ]
    want_norm = [Indel.normalized_distance(e, a) for e, a in rows]
    assert em.indel_normalized_distance_batch(exp, act).tolist() == want_norm


# Long pairs: the LCS of a pattern over 64 symbols, from a table by symbol when the pair has
# few distinct non-ASCII code points (at most 128) and from the slots otherwise.
LONG_SIDES = [65, 127, 128, 129, 256, 511, 512, 513, 1000]
LONG_ALPHABETS = [
    "abcd efgh",
    "abcdefgh" + "".join(chr(0x4E00 + i) for i in range(5)),
    "".join(chr(0x4E00 + i) for i in range(127)) + "ab",
    "".join(chr(0x4E00 + i) for i in range(129)) + "ab",
    "".join(chr(0x1F300 + i) for i in range(400)),
]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(LONG_ALPHABETS),
    st.sampled_from(LONG_SIDES),
    st.sampled_from(LONG_SIDES),
    st.integers(0, 2**32),
)
def test_long_indel_equals_rapidfuzz(alphabet: str, la: int, lb: int, seed: int) -> None:
    rng = random.Random(seed)
    exp, act = [], []
    for _ in range(4):
        a = rng.choices(alphabet, k=la)
        b = rng.choices(alphabet, k=lb) if rng.random() < 0.5 else list(a)
        for _ in range(rng.randrange(20)):
            b.insert(rng.randrange(len(b) + 1), rng.choice(alphabet))
        exp.append("".join(a))
        act.append("".join(b))
    want = [Indel.distance(e, a) for e, a in zip(exp, act, strict=True)]
    assert em.indel_distance_batch(exp, act, workers=2).tolist() == want
    assert [em.indel_distance(e, a) for e, a in zip(exp, act, strict=True)] == want
