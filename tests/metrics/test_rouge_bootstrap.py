"""ROUGE bootstrap intervals equal rouge-score's BootstrapAggregator for a numpy seed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import evalmark.metrics as em
from evalmark.errors import MetricInputError

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
scoring = pytest.importorskip("rouge_score.scoring")

WORDS = ("the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away", "home", "Then")


def _rows(seed: int, n: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))

    return [text() for _ in range(n)], [text() for _ in range(n)]


@pytest.mark.parametrize(("seed", "resamples", "ci"), [(0, 1000, 0.95), (42, 300, 0.9)])
def test_equals_bootstrap_aggregator(seed: int, resamples: int, ci: float) -> None:
    expected, actual = _rows(seed, 120)
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    aggregator = scoring.BootstrapAggregator(confidence_interval=ci, n_samples=resamples)
    for e, a in zip(expected, actual, strict=True):
        aggregator.add_scores(scorer.score(e, a))
    np.random.seed(seed)
    want = aggregator.aggregate()
    got = em.rouge_bootstrap(
        expected, actual, types, resamples=resamples, confidence_interval=ci, seed=seed
    )
    assert list(got) == types
    for name in types:
        for bound in ("low", "mid", "high"):
            ours, theirs = getattr(got[name], bound), getattr(want[name], bound)
            for measure in ("precision", "recall", "fmeasure"):
                assert getattr(ours, measure) == pytest.approx(getattr(theirs, measure), abs=1e-12)


def test_seeded_and_ordered() -> None:
    expected, actual = _rows(1, 30)
    one = em.rouge_bootstrap(expected, actual, resamples=50, seed=3)
    assert one == em.rouge_bootstrap(expected, actual, resamples=50, seed=3)
    assert one != em.rouge_bootstrap(expected, actual, resamples=50, seed=4)
    for agg in one.values():
        assert agg.low.fmeasure <= agg.mid.fmeasure <= agg.high.fmeasure


@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("One. Two! Three? four", "One.\nTwo!\nThree? four"),
        ('He said "stop." Then left.', 'He said "stop."\nThen left.'),
        ("Pi is 3.14 here. Yes", "Pi is 3.14 here.\nYes"),
        ("Wait... what?! (Really.) Ok", "Wait... what?!\n(Really.)\nOk"),
        ("kept\nlines. As is", "kept\nlines.\nAs is"),
        ("a.b , end.", "a.b , end."),
        ("", ""),
    ],
)
def test_split_summaries_rule(text: str, split: str) -> None:
    assert em.split_summaries(text) == split


def test_split_summaries_feeds_rouge_lsum() -> None:
    target = "The cat sat. The dog ran far away."
    prediction = "The dog ran. The cat sat far away."
    scorer = rouge_scorer.RougeScorer(["rougeLsum"])
    want = scorer.score(target.replace(". ", ".\n"), prediction.replace(". ", ".\n"))["rougeLsum"]
    got = em.rouge_lsum(em.split_summaries(target), em.split_summaries(prediction))
    assert got == pytest.approx(want.fmeasure, abs=1e-12)


def test_bad_input() -> None:
    with pytest.raises(MetricInputError, match="unknown ROUGE type"):
        em.rouge_bootstrap(["a"], ["a"], ["rougeW"])
    with pytest.raises(MetricInputError, match="at least one row"):
        em.rouge_bootstrap([], [])
    with pytest.raises(MetricInputError, match="confidence_interval"):
        em.rouge_bootstrap(["a"], ["a"], confidence_interval=1.5)
