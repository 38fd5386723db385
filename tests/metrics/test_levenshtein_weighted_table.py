"""Weights that are neither a multiple of the unit nor of the Indel distance take the table
kernel (one row at a time, 32-bit cells while the largest cell fits, 64-bit past that),
against RapidFuzz bit for bit: every alphabet (lone surrogates too), lengths around the
lane widths, small and huge weights, cut-offs, normalized forms, one and two workers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em
from edit_pairs import edited_pairs

ALPHABETS = [
    "ab",
    "the cat sat",
    "ab\u00e9 \u4e00\u4eac\U0001f300",
    "".join(chr(0x4E00 + i) for i in range(30)) + "a\ud800",
]
SIDES = [0, 1, 2, 15, 16, 17, 63, 64, 65, 130]
# Small weights keep 32-bit cells; the large ones pass 2**32 - 1 within a few cells; a
# substitution dearer than a deletion and an insertion is never taken.
WEIGHTS = [
    (1, 2, 3),
    (3, 2, 1),
    (2, 3, 3),
    (5, 1, 7),
    (1, 2, 0),
    (2**31, 3, 2**31 + 5),
    (1, 2, 2**40),
]


def pairs() -> st.SearchStrategy[tuple[str, str]]:
    """A pair at a lane boundary: an edited copy of a text, or another text."""
    return edited_pairs(ALPHABETS, SIDES, 8)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(pairs(), min_size=1, max_size=30),
    st.sampled_from(WEIGHTS),
    st.sampled_from([None, 0, 5, 2**33]),
)
def test_weighted_table_equals_rapidfuzz(
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
    assert [
        em.levenshtein_distance(e, a, weights=weights, score_cutoff=cutoff) for e, a in rows
    ] == want
    want_norm = [Levenshtein.normalized_distance(e, a, weights=weights) for e, a in rows]
    got_norm = em.levenshtein_normalized_distance_batch(exp, act, weights=weights, workers=2)
    assert got_norm.tolist() == want_norm
