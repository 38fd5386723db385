"""ROUGE-N, ROUGE-Lsum, BLEU and chrF as strategies and suite kinds: the kernels' numbers, the
threshold, and the options a suite file can give."""

from __future__ import annotations

import pytest

import evalmark as em
from evalmark import metrics
from evalmark.strategies import Bleu, Chrf, RougeLsum, RougeN
from evalmark.strategies._registry import build_strategy

EXPECTED = "The cats are running to the mat.\nThey sit there."
ACTUAL = "The cat runs to the mat.\nIt sits there."


def samples() -> em.Samples:
    return em.Samples(
        [
            em.Sample(name="close", parameters=("q",), expected_output=EXPECTED),
            em.Sample(name="far", parameters=("r",), expected_output="Completely unrelated words."),
        ]
    )


@pytest.mark.parametrize(
    ("strategy", "kernel"),
    [
        (RougeN(n=1, stemmer="porter"), lambda e, a: metrics.rouge_n(e, a, n=1, stemmer="porter")),
        (RougeN(n=2), lambda e, a: metrics.rouge_n(e, a, n=2)),
        (RougeLsum(stemmer="porter"), lambda e, a: metrics.rouge_lsum(e, a, stemmer="porter")),
        (Bleu(), metrics.bleu),
        (Chrf(word_order=2), lambda e, a: metrics.chrf(e, a, word_order=2)),
    ],
)
def test_each_strategy_gives_its_kernel_score(strategy: object, kernel: object) -> None:
    report = em.Scorer().evaluate(samples(), lambda q: ACTUAL, strategy)
    rows = {row.name: next(iter(row.results.values())) for row in report.rows()}
    assert rows["close"].score == kernel(EXPECTED, ACTUAL)  # type: ignore[operator]
    assert rows["far"].score == kernel("Completely unrelated words.", ACTUAL)  # type: ignore[operator]
    assert rows["close"].score > rows["far"].score


def test_the_threshold_decides() -> None:
    score = metrics.rouge_n(EXPECTED, ACTUAL, n=1)
    below = em.Scorer().evaluate(samples()[:1], lambda q: ACTUAL, RougeN(score + 0.01))
    at = em.Scorer().evaluate(samples()[:1], lambda q: ACTUAL, RougeN(score))
    assert not next(iter(below.rows())).passed
    assert next(iter(at.rows())).passed


def test_suite_kinds_take_their_options() -> None:
    rouge = build_strategy("rouge-n", {"name": "r2", "n": 2, "stemmer": "porter"}, None)
    assert (rouge.n, rouge.stemmer) == (2, "porter")
    chrf = build_strategy("chrf", {"name": "c", "word-order": 2}, None)
    assert chrf.word_order == 2
    assert build_strategy("bleu", {"name": "b", "tokenize": "intl"}, None).tokenize == "intl"
    assert build_strategy("rouge-lsum", {"name": "l"}, None).stemmer is None


def test_bad_options_are_value_errors() -> None:
    with pytest.raises(ValueError, match="n must be a whole number >= 1"):
        RougeN(n=0)
    with pytest.raises(ValueError, match="word_order must be 0, 1 or 2"):
        Chrf(word_order=3)
