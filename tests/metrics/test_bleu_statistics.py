"""BLEU's sufficient statistics are sacrebleu's, and the score computed from summed statistics is
corpus BLEU: a corpus score can be built from shards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

import evalmark as em
from evalmark import metrics

WORDS = ["the", "cat", "sat", "on", "a", "mat", ".", "dog", "ran", "far", "Zürich", "café,"]


def rows(seed: int, count: int) -> tuple[list[list[str]], list[str]]:
    rng = random.Random(seed)

    def one() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 15)))

    refs = [[one() for _ in range(2)] for _ in range(count)]
    return refs, [one() for _ in range(count)]


def test_statistics_are_sacrebleus() -> None:
    refs, hyps = rows(1, 300)
    streams = [list(s) for s in zip(*refs, strict=True)]
    want = BLEU()._extract_corpus_statistics(hyps, streams)
    got = metrics.bleu_statistics(refs, hyps)
    assert got.shape == (300, 10) and got.dtype == np.int64
    assert got.tolist() == [list(map(int, row)) for row in want]


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_summed_statistics_give_corpus_bleu(smooth: str) -> None:
    refs, hyps = rows(2, 400)
    shards = [
        metrics.bleu_statistics(refs[i : i + 100], hyps[i : i + 100]) for i in (0, 100, 200, 300)
    ]
    whole = metrics.corpus_bleu(refs, hyps, smooth_method=smooth)  # type: ignore[arg-type]
    assert metrics.bleu_from_statistics(np.vstack(shards), smooth_method=smooth) == whole  # type: ignore[arg-type]
    summed = np.sum(np.vstack(shards), axis=0)
    assert metrics.bleu_from_statistics(summed, smooth_method=smooth) == whole  # type: ignore[arg-type]
    streams = [list(s) for s in zip(*refs, strict=True)]
    sacre = BLEU(smooth_method=smooth).corpus_score(hyps, streams).score / 100
    assert whole == pytest.approx(sacre, abs=1e-12)


def test_one_row_of_statistics_is_sentence_bleu_with_its_options() -> None:
    refs, hyps = rows(3, 50)
    stats = metrics.bleu_statistics(refs, hyps)
    for row, r, h in zip(stats, refs, hyps, strict=True):
        assert metrics.bleu_from_statistics(row, effective_order=True) == metrics.bleu(r, h)


def test_bad_statistics_are_refused() -> None:
    for width in (9, 1, 24):
        with pytest.raises(em.errors.MetricInputError, match="2 \\+ 2·m columns"):
            metrics.bleu_from_statistics(np.zeros((2, width), dtype=np.int64))
    # Statistics counted to order 4 cannot give BLEU of order 5.
    with pytest.raises(em.errors.MetricInputError, match="max_ngram_order=5 <= m"):
        metrics.bleu_from_statistics(np.zeros((2, 10), dtype=np.int64), max_ngram_order=5)
    with pytest.raises(em.errors.MetricInputError, match="negative"):
        metrics.bleu_from_statistics(-np.ones(10, dtype=np.int64))


@pytest.mark.parametrize("order", range(1, 11))
def test_max_ngram_order_is_sacrebleus(order: int) -> None:
    refs, hyps = rows(4, 300)
    sentence = BLEU(max_ngram_order=order, effective_order=True)
    want = [sentence.sentence_score(h, r).score / 100 for r, h in zip(refs, hyps, strict=True)]
    got = metrics.bleu_batch(refs, hyps, max_ngram_order=order)
    assert got.tolist() == pytest.approx(want, abs=1e-12)
    assert [metrics.bleu(r, h, max_ngram_order=order) for r, h in zip(refs, hyps, strict=True)] == (
        got.tolist()
    )
    streams = [list(s) for s in zip(*refs, strict=True)]
    corpus = BLEU(max_ngram_order=order).corpus_score(hyps, streams).score / 100
    assert metrics.corpus_bleu(refs, hyps, max_ngram_order=order) == pytest.approx(
        corpus, abs=1e-12
    )
    stats = metrics.bleu_statistics(refs, hyps, max_ngram_order=order)
    want_stats = BLEU(max_ngram_order=order)._extract_corpus_statistics(hyps, streams)
    assert stats.shape == (300, 2 + 2 * order)
    assert stats.tolist() == [list(map(int, row)) for row in want_stats]
    assert metrics.bleu_from_statistics(stats, max_ngram_order=order) == metrics.corpus_bleu(
        refs, hyps, max_ngram_order=order
    )
    # Statistics counted to a higher order score the lower orders alike.
    wide = metrics.bleu_statistics(refs, hyps, max_ngram_order=10)
    assert metrics.bleu_from_statistics(wide, max_ngram_order=order) == metrics.corpus_bleu(
        refs, hyps, max_ngram_order=order
    )


def test_long_orders_on_long_repetitive_texts_are_sacrebleus() -> None:
    # Few distinct words and long rows, so n-grams of orders 5 to 10 match often.
    rng = random.Random(5)

    def one() -> str:
        return " ".join(rng.choice("ab") for _ in range(rng.randint(0, 40)))

    refs = [[one(), one()] for _ in range(200)]
    hyps = [one() for _ in range(200)]
    for order in (5, 8, 10):
        sentence = BLEU(max_ngram_order=order, effective_order=True)
        want = [sentence.sentence_score(h, r).score / 100 for r, h in zip(refs, hyps, strict=True)]
        got = metrics.bleu_batch(refs, hyps, max_ngram_order=order)
        assert got.tolist() == pytest.approx(want, abs=1e-12)
        streams = [list(s) for s in zip(*refs, strict=True)]
        corpus = BLEU(max_ngram_order=order).corpus_score(hyps, streams).score / 100
        assert metrics.corpus_bleu(refs, hyps, max_ngram_order=order) == pytest.approx(
            corpus, abs=1e-12
        )


def test_max_ngram_order_past_ten_is_refused() -> None:
    with pytest.raises(em.errors.MetricInputError, match="max_ngram_order must be 1 to 10"):
        metrics.bleu("a b", "a b", max_ngram_order=11)
    with pytest.raises(em.errors.MetricInputError, match="max_ngram_order must be 1 to 10"):
        metrics.bleu_statistics(["a b"], ["a b"], max_ngram_order=0)


def test_paired_tests_take_orders_past_four() -> None:
    refs, hyps = rows(6, 60)
    other = list(reversed(hyps))
    got = metrics.paired_bootstrap(refs, hyps, other, resamples=50, seed=3, max_ngram_order=6)
    assert got.baseline.score == metrics.corpus_bleu(refs, hyps, max_ngram_order=6)
    assert got.candidate.score == metrics.corpus_bleu(refs, other, max_ngram_order=6)
