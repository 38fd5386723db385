"""`levenshtein_cdist` reads the side in the lanes by lane width and writes every distance
back in its place (rows, or columns when the choices take the lanes), on one thread or in
blocks on several: against RapidFuzz's ``process.cdist`` on texts whose lengths straddle the
lane widths in random order, every alphabet, with and without a cutoff and a cost factor."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

import evalmark.metrics as em

ALPHABETS = {
    "ascii": "ab c",
    "letters": "abcdefghijklmnopqrstuvwxyz ",
    "bmp": "".join(chr(0x4E00 + i) for i in range(20)) + "aé",
    "astral": "".join(chr(0x1F300 + i) for i in range(20)) + "b\U0010ffff",
}
# Around every lane width, mostly near the widest (64), and past it.
LENGTHS = [0, 1, 7, 8, 9, 16, 17, 31, 33, 60, 63, 64, 65, 66, 70, 130]


@st.composite
def sides(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Queries and choices over one alphabet, their lengths drawn from ``LENGTHS`` (give or
    take one) in random order; either side may be the larger."""
    alphabet = ALPHABETS[draw(st.sampled_from(sorted(ALPHABETS)))]
    rng = random.Random(draw(st.integers(0, 2**32)))

    def texts(count: int) -> list[str]:
        out = []
        for _ in range(count):
            length = max(0, rng.choice(LENGTHS) + rng.choice((-1, 0, 1)))
            out.append("".join(rng.choice(alphabet) for _ in range(length)))
        return out

    return texts(draw(st.integers(1, 150))), texts(draw(st.integers(1, 150)))


@settings(max_examples=60, deadline=None)
@given(sides(), st.sampled_from([None, 0, 3, 40]), st.sampled_from([1, 2]))
def test_cdist_equals_rapidfuzz(
    texts: tuple[list[str], list[str]], cutoff: int | None, workers: int
) -> None:
    queries, choices = texts
    want = process.cdist(
        queries, choices, scorer=Levenshtein.distance, score_cutoff=cutoff, dtype=np.int64
    )
    got = em.levenshtein_cdist(queries, choices, score_cutoff=cutoff, workers=workers)
    np.testing.assert_array_equal(got, want)
    # The other way round gives the transpose (the other side then takes the lanes).
    back = em.levenshtein_cdist(choices, queries, score_cutoff=cutoff, workers=workers)
    np.testing.assert_array_equal(back, np.asarray(want).T)
    tripled = em.levenshtein_cdist(queries, choices, weights=(3, 3, 3), workers=workers)
    full = process.cdist(queries, choices, scorer=Levenshtein.distance, dtype=np.int64)
    np.testing.assert_array_equal(tripled, 3 * np.asarray(full))
