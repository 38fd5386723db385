"""``levenshtein_similarity(..., weights, score_cutoff)`` is RapidFuzz's
``Levenshtein.normalized_similarity`` with the same options (weights (1, 1, 2): Indel's
``normalized_similarity``), in the function, batch, strategy and suite-kind forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel, Levenshtein

from evalmark import metrics
from evalmark.errors import MetricInputError
from evalmark.strategies import LevenshteinSimilarity
from evalmark.strategies._registry import build_strategy

TEXTS = st.text(alphabet="abcé😀", max_size=12)
WEIGHTS = st.sampled_from(
    [(1, 1, 1), (1, 1, 2), (1, 2, 3), (2, 2, 2), (0, 1, 1), (3, 1, 1), (1, 1, 5)]
)
CUTOFFS = st.one_of(st.none(), st.floats(0.0, 1.0))


def _away_from_the_edge(
    a: str, b: str, weights: tuple[int, int, int], cutoff: float | None
) -> bool:
    """RapidFuzz turns a fractional cutoff into a whole-number bound with a 1e-5 allowance, so
    a score within that of the cutoff may go either way there; evalmark keeps a score that
    reaches the cutoff."""
    score = Levenshtein.normalized_similarity(a, b, weights=weights)
    return cutoff is None or abs(score - cutoff) > 1e-4


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXTS, TEXTS), min_size=1, max_size=8), WEIGHTS, CUTOFFS)
def test_similarity_options_are_rapidfuzz(
    pairs: list[tuple[str, str]], weights: tuple[int, int, int], cutoff: float | None
) -> None:
    pairs = [(a, b) for a, b in pairs if _away_from_the_edge(a, b, weights, cutoff)]
    want = [
        Levenshtein.normalized_similarity(a, b, weights=weights, score_cutoff=cutoff)
        for a, b in pairs
    ]
    got = [
        metrics.levenshtein_similarity(a, b, weights=weights, score_cutoff=cutoff) for a, b in pairs
    ]
    assert got == want
    left, right = [a for a, _ in pairs], [b for _, b in pairs]
    batch = metrics.levenshtein_similarity_batch(left, right, weights=weights, score_cutoff=cutoff)
    assert batch.tolist() == want


@settings(max_examples=200, deadline=None)
@given(TEXTS, TEXTS, CUTOFFS)
def test_weights_1_1_2_are_indel_normalized_similarity(
    a: str, b: str, cutoff: float | None
) -> None:
    if not _away_from_the_edge(a, b, (1, 1, 2), cutoff):
        return
    got = metrics.levenshtein_similarity(a, b, weights=(1, 1, 2), score_cutoff=cutoff)
    assert got == Indel.normalized_similarity(a, b, score_cutoff=cutoff)


def test_token_sequences_take_the_options() -> None:
    a, b = ["the", "cat", "sat"], ["the", "dog", "sat", "down"]
    want = Levenshtein.normalized_similarity(a, b, weights=(1, 2, 3), score_cutoff=0.2)
    assert metrics.levenshtein_similarity(a, b, weights=(1, 2, 3), score_cutoff=0.2) == want


def test_the_strategy_and_suite_kind_take_the_options() -> None:
    check = LevenshteinSimilarity(weights=(1, 1, 2), score_cutoff=0.5)
    assert (check.weights, check.score_cutoff) == ((1, 1, 2), 0.5)
    kind = build_strategy("levenshtein-similarity", {"name": "l", "score-cutoff": 0.5}, None)
    assert kind.score_cutoff == 0.5


def test_bad_options_are_refused() -> None:
    with pytest.raises(MetricInputError, match="score_cutoff must be at least 0"):
        metrics.levenshtein_similarity("a", "b", score_cutoff=-0.1)
    with pytest.raises(TypeError, match="weights must be a tuple of three ints"):
        metrics.levenshtein_similarity_batch(["a"], ["b"], weights=(1, 1))  # type: ignore[arg-type]
