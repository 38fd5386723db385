"""The unit-cost `levenshtein_cdist`, which runs several texts at once in vector lanes, against
RapidFuzz: lengths around every lane width (8, 16, 32, 64 code points) and past them, ASCII,
BMP and astral alphabets, token lists, few and many queries (the lanes then hold the choices),
a cost factor, a cutoff, one and two workers."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from evalmark import metrics

ALPHABETS = {
    "ascii": "ab c",
    "bmp": "aé東京x",
    "astral": "\U0001f600\U0001f601q\U0010ffff",
}
BOUNDARIES = (0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130)


def texts(rng: random.Random, alphabet: str, count: int) -> list[str]:
    """``count`` texts whose lengths sit on and around the lane widths."""
    out = []
    for _ in range(count):
        length = max(0, rng.choice(BOUNDARIES) + rng.choice((-1, 0, 0, 1)))
        out.append("".join(rng.choice(alphabet) for _ in range(length)))
    return out


def rapidfuzz_cdist(
    queries: list[str] | list[list[str]],
    choices: list[str] | list[list[str]],
    weights: tuple[int, int, int] = (1, 1, 1),
) -> np.ndarray:
    return np.asarray(
        process.cdist(
            queries,
            choices,
            scorer=Levenshtein.distance,
            scorer_kwargs={"weights": weights},
            dtype=np.int64,
        )
    )


@pytest.mark.parametrize("alphabet", sorted(ALPHABETS))
@pytest.mark.parametrize("queries_count", [1, 5, 31, 32, 90])
def test_lanes_equal_rapidfuzz(alphabet: str, queries_count: int) -> None:
    rng = random.Random(f"{alphabet}-{queries_count}")
    queries = texts(rng, ALPHABETS[alphabet], queries_count)
    choices = texts(rng, ALPHABETS[alphabet], 70)
    want = rapidfuzz_cdist(queries, choices)
    for workers in (1, 2):
        got = metrics.levenshtein_cdist(queries, choices, workers=workers)
        np.testing.assert_array_equal(got, want)
    # The other way round: more queries than choices.
    np.testing.assert_array_equal(metrics.levenshtein_cdist(choices, queries), want.T)


def test_cost_factor_cutoff_and_mixed_alphabets() -> None:
    rng = random.Random(7)
    alphabet = "".join(ALPHABETS.values())
    queries, choices = texts(rng, alphabet, 40), texts(rng, alphabet, 50)
    want = rapidfuzz_cdist(queries, choices, weights=(3, 3, 3))
    np.testing.assert_array_equal(
        metrics.levenshtein_cdist(queries, choices, weights=(3, 3, 3)), want
    )
    cut = np.minimum(want, 31)
    got = metrics.levenshtein_cdist(queries, choices, weights=(3, 3, 3), score_cutoff=30)
    np.testing.assert_array_equal(got, cut)


def test_token_lists_and_long_choices() -> None:
    rng = random.Random(11)
    vocabulary = [f"w{i}" for i in range(40)]
    queries = [rng.choices(vocabulary, k=rng.choice(BOUNDARIES)) for _ in range(12)]
    choices = [rng.choices(vocabulary, k=rng.randint(0, 700)) for _ in range(15)]
    want = rapidfuzz_cdist(queries, choices)
    np.testing.assert_array_equal(metrics.levenshtein_cdist(queries, choices), want)
    np.testing.assert_array_equal(metrics.levenshtein_cdist(choices, queries), want.T)


def test_short_mixed_pairs_equal_rapidfuzz() -> None:
    """Pairs whose shorter side is at most 64 code points, with 1 to 20 distinct non-ASCII
    code points among ASCII (the table path takes up to 8), one- to four-byte symbols."""
    rng = random.Random(5)
    left, right = [], []
    for round_ in range(3000):
        others = [chr(c) for c in (0xE9, 0x4E00, 0x1F600, 0x10FFFF, 0x800, 0xFFFF) * 4]
        others = [chr(ord(c) - k) for k, c in enumerate(others[: 1 + round_ % 20])]
        alphabet = others + list("ab z")
        length = max(1, rng.choice(BOUNDARIES))
        left.append("".join(rng.choice(alphabet) for _ in range(length)))
        right.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90))))
    want = process.cpdist(left, right, scorer=Levenshtein.distance, dtype=np.int64)
    np.testing.assert_array_equal(metrics.levenshtein_distance_batch(left, right), want)
    np.testing.assert_array_equal(metrics.levenshtein_distance_batch(right, left), want)
