"""Properties of the corpus intervals the metrics return, over generated systems: a paired
test's ``PairedSignificance`` holds a p-value in (0, 1] and for each system a ``SystemEstimate``
whose score is the corpus metric's and whose interval lies in [0, 1], the same for the same
seed; ``rouge_bootstrap`` gives each ROUGE type a ``RougeAggregate`` whose ``RougeScore``
bounds are ordered low ≤ mid ≤ high in [0, 1], all one when every output is its reference."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.metrics import (
    PairedSignificance,
    RougeAggregate,
    RougeScore,
    SystemEstimate,
    corpus_bleu,
    corpus_chrf,
    paired_approximate_randomization,
    paired_bootstrap,
    rouge_bootstrap,
)

WORD = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "fast", "名"])
SENTENCE = st.lists(WORD, min_size=1, max_size=7).map(" ".join)
# rouge-score's tokenizer keeps only ASCII letters and digits: "名" alone has no tokens
ASCII_SENTENCE = st.lists(WORD.filter(str.isascii), min_size=1, max_size=7).map(" ".join)
ROWS = st.lists(st.tuples(SENTENCE, SENTENCE, SENTENCE), min_size=1, max_size=8)
TESTS = st.sampled_from([paired_bootstrap, paired_approximate_randomization])
CORPUS = {"bleu": corpus_bleu, "chrf": corpus_chrf}


def assert_estimate(estimate: SystemEstimate, score: float) -> None:
    assert isinstance(estimate, SystemEstimate)
    assert estimate.score == pytest.approx(score, abs=1e-9)
    assert 0.0 <= estimate.low <= estimate.high <= 1.0 and 0.0 <= estimate.mean <= 1.0
    assert estimate.ci == pytest.approx((estimate.high - estimate.low) / 2)


@settings(max_examples=examples(60), deadline=None)
@given(ROWS, TESTS, st.sampled_from(["bleu", "chrf"]), st.integers(0, 2**31))
def test_a_paired_test_gives_each_system_its_corpus_score_and_an_interval(
    rows: list[tuple[str, str, str]], test: Any, metric: str, seed: int
) -> None:
    references = [[r] for r, _, _ in rows]
    baseline = [b for _, b, _ in rows]
    candidate = [c for _, _, c in rows]
    result = test(references, baseline, candidate, metric, resamples=40, seed=seed)
    assert isinstance(result, PairedSignificance)
    assert (result.metric, result.resamples, result.seed) == (metric, 40, seed)
    assert result.test == test.__name__
    assert 0.0 < result.p_value <= 1.0
    assert_estimate(result.baseline, CORPUS[metric](references, baseline))
    assert_estimate(result.candidate, CORPUS[metric](references, candidate))
    assert test(references, baseline, candidate, metric, resamples=40, seed=seed) == result


def ordered(low: RougeScore, high: RougeScore) -> bool:
    return (
        low.precision <= high.precision + 1e-12
        and low.recall <= high.recall + 1e-12
        and low.fmeasure <= high.fmeasure + 1e-12
    )


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(ASCII_SENTENCE, SENTENCE), min_size=1, max_size=8), st.floats(0.5, 0.99))
def test_rouge_bounds_are_ordered_and_perfect_outputs_score_one(
    pairs: list[tuple[str, str]], confidence: float
) -> None:
    expected = [e for e, _ in pairs]
    actual = [a for _, a in pairs]
    types = ("rouge1", "rouge2", "rougeL")
    bounds = rouge_bootstrap(expected, actual, types, resamples=30, confidence_interval=confidence)
    assert tuple(bounds) == types
    for aggregate in bounds.values():
        assert isinstance(aggregate, RougeAggregate)
        assert ordered(aggregate.low, aggregate.mid) and ordered(aggregate.mid, aggregate.high)
        for score in (aggregate.low, aggregate.mid, aggregate.high):
            assert isinstance(score, RougeScore)
            assert all(0.0 <= v <= 1.0 for v in (score.precision, score.recall, score.fmeasure))
    perfect = rouge_bootstrap(expected, expected, ("rouge1", "rougeL"), resamples=10)
    ones = RougeScore(1.0, 1.0, 1.0)
    assert all(a == RougeAggregate(ones, ones, ones) for a in perfect.values())
