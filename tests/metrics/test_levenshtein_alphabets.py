"""Levenshtein distance against RapidFuzz over ASCII, BMP and astral alphabets, at the lengths
where the kernels change path (one word of 64 symbols, two, the band of 64 diagonals), with
pairs of very different sizes in one batch (the symbol-renaming table grows and shrinks)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

import evalmark.metrics as em

ALPHABETS = {
    "ascii": "abcdefgh ",
    "bmp": "".join(chr(0x4E00 + i) for i in range(40)) + "aé",
    "astral": "".join(chr(0x1F300 + i) for i in range(40)) + "b\u00e9\ud800",
    # More than 128 distinct non-ASCII code points: ids past the 256-row table.
    "wide": "".join(chr(0x4E00 + 7 * i) for i in range(400)),
}
BOUNDARIES = [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257]


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A text at or near a boundary length and an edited copy (or an unrelated text)."""
    alphabet = ALPHABETS[draw(st.sampled_from(sorted(ALPHABETS)))]
    size = draw(st.sampled_from(BOUNDARIES)) + draw(st.integers(-1, 1))
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = [rng.choice(alphabet) for _ in range(max(0, size))]
    if draw(st.booleans()):
        return "".join(a), "".join(rng.choice(alphabet) for _ in range(rng.randint(0, size + 3)))
    b = list(a)
    for _ in range(draw(st.integers(0, 80))):
        k = rng.randrange(len(b) + 1)
        op = rng.random()
        if op < 0.4 and k < len(b):
            b[k] = rng.choice(alphabet)
        elif op < 0.7 or k == len(b):
            b.insert(k, rng.choice(alphabet))
        else:
            del b[k]
    return "".join(a), "".join(b)


@settings(max_examples=150, deadline=None)
@given(st.lists(pairs(), min_size=1, max_size=12))
def test_distances_equal_rapidfuzz_at_every_alphabet_and_boundary(
    rows: list[tuple[str, str]],
) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    want = [Levenshtein.distance(e, a) for e, a in rows]
    assert em.levenshtein_distance_batch(exp, act, workers=1).tolist() == want
    assert [em.levenshtein_distance(e, a) for e, a in rows] == want
    assert em.indel_distance_batch(exp, act, workers=1).tolist() == [
        Indel.distance(e, a) for e, a in rows
    ]


def test_a_long_wide_pair_then_short_ones_in_one_worker() -> None:
    # The renaming table grown for the long pair is reused, in part, by the short ones.
    rng = random.Random(7)
    wide = ALPHABETS["wide"]
    exp = ["".join(rng.choice(wide) for _ in range(3000))]
    act = ["".join(rng.choice(wide) for _ in range(2900))]
    for _ in range(300):
        size = rng.choice([5, 40, 64, 65, 130])
        exp.append("".join(rng.choice(ALPHABETS["astral"]) for _ in range(size)))
        act.append("".join(rng.choice(ALPHABETS["astral"]) for _ in range(size - 2)))
    want = [Levenshtein.distance(e, a) for e, a in zip(exp, act, strict=True)]
    assert em.levenshtein_distance_batch(exp, act, workers=1).tolist() == want


@settings(max_examples=100, deadline=None)
@given(
    st.lists(pairs(), min_size=1, max_size=8),
    st.sampled_from([(1, 1, 1), (1, 1, 2), (2, 3, 4), (3, 1, 1), (1, 4, 1)]),
    st.integers(0, 12),
)
def test_a_cutoff_below_the_length_difference_still_equals_rapidfuzz(
    rows: list[tuple[str, str]], weights: tuple[int, int, int], cutoff: int
) -> None:
    exp = [e for e, _ in rows]
    act = [a for _, a in rows]
    got = em.levenshtein_distance_batch(exp, act, weights=weights, score_cutoff=cutoff, workers=1)
    want = [Levenshtein.distance(e, a, weights=weights, score_cutoff=cutoff) for e, a in rows]
    assert got.tolist() == want
    got = em.indel_distance_batch(exp, act, score_cutoff=cutoff, workers=1)
    assert got.tolist() == [Indel.distance(e, a, score_cutoff=cutoff) for e, a in rows]
