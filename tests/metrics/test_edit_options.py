"""Edit distances with RapidFuzz's options: weights, score_cutoff, normalized distances, Indel,
the alignment (editops), cdist and extract, equal to RapidFuzz on generated texts."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import Indel, Levenshtein

import evalmark as em
from evalmark import metrics


def texts(seed: int, count: int, alphabet: str = "abcé 東", most: int = 30) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, most))) for _ in range(count)
    ]


LEFT, RIGHT = texts(1, 600), texts(2, 600)
LONG_LEFT, LONG_RIGHT = texts(3, 40, most=300), texts(4, 40, most=300)
WEIGHTS = [(1, 1, 1), (1, 1, 2), (2, 2, 1), (1, 2, 3), (3, 1, 1), (0, 0, 1), (2, 2, 2), (5, 5, 20)]


@pytest.mark.parametrize("weights", WEIGHTS)
def test_weighted_distance_is_rapidfuzz(weights: tuple[int, int, int]) -> None:
    left, right = LEFT + LONG_LEFT, RIGHT + LONG_RIGHT
    want = [Levenshtein.distance(a, b, weights=weights) for a, b in zip(left, right, strict=True)]
    assert metrics.levenshtein_distance_batch(left, right, weights=weights).tolist() == want
    norm = [
        Levenshtein.normalized_distance(a, b, weights=weights)
        for a, b in zip(left, right, strict=True)
    ]
    got = metrics.levenshtein_normalized_distance_batch(left, right, weights=weights)
    assert got.tolist() == norm
    assert [
        metrics.levenshtein_distance(a, b, weights=weights)
        for a, b in zip(left, right, strict=True)
    ] == want


def test_normalized_distance_is_one_division() -> None:
    assert metrics.levenshtein_normalized_distance("abcde", "abcdf") == 0.2
    assert Levenshtein.normalized_distance("abcde", "abcdf") == 0.2
    assert metrics.levenshtein_normalized_distance("", "") == 0.0


@pytest.mark.parametrize("cutoff", [0, 1, 3, 10])
def test_score_cutoff_is_rapidfuzz(cutoff: int) -> None:
    want = [
        Levenshtein.distance(a, b, score_cutoff=cutoff) for a, b in zip(LEFT, RIGHT, strict=True)
    ]
    assert metrics.levenshtein_distance_batch(LEFT, RIGHT, score_cutoff=cutoff).tolist() == want
    want = [Indel.distance(a, b, score_cutoff=cutoff) for a, b in zip(LEFT, RIGHT, strict=True)]
    assert metrics.indel_distance_batch(LEFT, RIGHT, score_cutoff=cutoff).tolist() == want
    for fraction in (cutoff / 10, 0.35):
        want_f = [
            Levenshtein.normalized_distance(a, b, score_cutoff=fraction)
            for a, b in zip(LEFT, RIGHT, strict=True)
        ]
        got = metrics.levenshtein_normalized_distance_batch(LEFT, RIGHT, score_cutoff=fraction)
        assert got.tolist() == want_f
        want_f = [
            Indel.normalized_distance(a, b, score_cutoff=fraction)
            for a, b in zip(LEFT, RIGHT, strict=True)
        ]
        got = metrics.indel_normalized_distance_batch(LEFT, RIGHT, score_cutoff=fraction)
        assert got.tolist() == want_f


def test_indel_is_rapidfuzz() -> None:
    left, right = LEFT + LONG_LEFT, RIGHT + LONG_RIGHT
    want = [Indel.distance(a, b) for a, b in zip(left, right, strict=True)]
    assert metrics.indel_distance_batch(left, right).tolist() == want
    assert [metrics.indel_distance(a, b) for a, b in zip(left, right, strict=True)] == want
    norm = [Indel.normalized_distance(a, b) for a, b in zip(left, right, strict=True)]
    assert metrics.indel_normalized_distance_batch(left, right).tolist() == norm


def apply(ops: list[tuple[str, int, int]], source: str, target: str) -> str:
    out, i = [], 0
    for tag, s, d in ops:
        out.append(source[i:s])
        i = s
        if tag == "insert":
            out.append(target[d])
        elif tag == "replace":
            out.append(target[d])
            i += 1
        else:
            i += 1
    out.append(source[i:])
    return "".join(out)


def test_editops_are_rapidfuzz_alignment() -> None:
    small = texts(5, 3000, alphabet="abc", most=12)
    left, right = small[:1500] + LEFT + LONG_LEFT, small[1500:] + RIGHT + LONG_RIGHT
    for a, b in zip(left, right, strict=True):
        ops = metrics.levenshtein_editops(a, b)
        assert ops == Levenshtein.editops(a, b).as_list(), (a, b)
        assert len(ops) == Levenshtein.distance(a, b)
        assert apply(ops, a, b) == b


def test_cdist_and_extract_are_rapidfuzz() -> None:
    queries, choices = LEFT[:50], RIGHT[:70]
    for weights in ((1, 1, 1), (1, 2, 3)):
        want = process.cdist(
            queries, choices, scorer=Levenshtein.distance, scorer_kwargs={"weights": weights}
        )
        got = metrics.levenshtein_cdist(queries, choices, weights=weights, workers=2)
        assert got.dtype == np.int64 and got.shape == (50, 70)
        np.testing.assert_array_equal(got, want)
    assert metrics.levenshtein_cdist([], choices).shape == (0, 70)
    for query in queries[:20]:
        for limit in (5, 1, None):
            want_x = process.extract(query, choices, scorer=Levenshtein.distance, limit=limit)
            got_x = metrics.levenshtein_extract(query, choices, limit=limit)
            assert got_x == [tuple(x) for x in want_x]
        want_x = process.extract(
            query, choices, scorer=Levenshtein.distance, limit=None, score_cutoff=12
        )
        assert metrics.levenshtein_extract(query, choices, limit=None, score_cutoff=12) == [
            tuple(x) for x in want_x
        ]


def test_bad_options_are_typed_errors() -> None:
    with pytest.raises(em.errors.MetricInputError, match="weights must be at least 0"):
        metrics.levenshtein_distance("a", "b", weights=(1, -1, 1))
    with pytest.raises(TypeError, match="weights must be a tuple of three ints"):
        metrics.levenshtein_distance("a", "b", weights=(1, 1))  # type: ignore[arg-type]
    with pytest.raises(em.errors.MetricInputError, match="score_cutoff must be at least 0"):
        metrics.indel_distance("a", "b", score_cutoff=-1)
    with pytest.raises(em.errors.MetricInputError, match="limit"):
        metrics.levenshtein_extract("a", ["b"], limit=-1)
