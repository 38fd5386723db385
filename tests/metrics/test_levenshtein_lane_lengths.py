"""The lane batches take each text's length in code points from its source (a list of str, or
a TextColumn, whose lengths are counted): the ASCII test (as many code points as bytes), the
normalized forms' denominators and every distance agree with RapidFuzz for both sources, on
ASCII, mostly-ASCII and wide texts, with and without a cut-off."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

import evalmark.metrics as em

WORDS = [
    ["the", "cat", "sat", "on", "a", "mat"],
    ["the", "Zürich", "café", "東京", "run", "ran"],
    ["\U0001f300", "\U0001f301x", "東京", "é"],
]


@st.composite
def rows(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Up to 40 pairs of word texts, each side from any of the word lists."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    count = draw(st.integers(1, 40))

    def text() -> str:
        words = rng.choice(WORDS)
        return " ".join(rng.choices(words, k=rng.randint(0, 30)))

    return [text() for _ in range(count)], [text() for _ in range(count)]


@settings(max_examples=60, deadline=None)
@given(rows(), st.sampled_from([None, 2]))
def test_lane_batches_from_lists_and_columns_equal_rapidfuzz(
    batch: tuple[list[str], list[str]], cutoff: int | None
) -> None:
    exp, act = batch
    pairs = list(zip(exp, act, strict=True))
    columns = (em.TextColumn.from_strings(exp), em.TextColumn.from_strings(act))
    want = {
        "distance": [Levenshtein.distance(e, a, score_cutoff=cutoff) for e, a in pairs],
        "weights": [Levenshtein.distance(e, a, weights=(2, 2, 5)) for e, a in pairs],
        "normalized": [Levenshtein.normalized_distance(e, a) for e, a in pairs],
        "similarity": [Levenshtein.normalized_similarity(e, a) for e, a in pairs],
        "indel": [Indel.distance(e, a, score_cutoff=cutoff) for e, a in pairs],
        "indel normalized": [Indel.normalized_distance(e, a) for e, a in pairs],
    }
    for left, right in ((exp, act), columns):
        for workers in (1, 2):
            got = {
                "distance": em.levenshtein_distance_batch(
                    left, right, score_cutoff=cutoff, workers=workers
                ),
                "weights": em.levenshtein_distance_batch(
                    left, right, weights=(2, 2, 5), workers=workers
                ),
                "normalized": em.levenshtein_normalized_distance_batch(
                    left, right, workers=workers
                ),
                "similarity": em.levenshtein_similarity_batch(left, right, workers=workers),
                "indel": em.indel_distance_batch(left, right, score_cutoff=cutoff, workers=workers),
                "indel normalized": em.indel_normalized_distance_batch(
                    left, right, workers=workers
                ),
            }
            for name, values in got.items():
                assert values.tolist() == want[name], name
