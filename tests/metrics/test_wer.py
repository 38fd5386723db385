"""Word and character error rates equal jiwer's ``wer`` and ``cer`` (default transforms), row by
row and over a corpus, on jiwer's own kinds of examples and on generated texts."""

from __future__ import annotations

import random

import jiwer
import numpy as np

from evalmark import metrics
from evalmark.metrics import TextColumn

EXAMPLES = [
    ("hello world", "hello duck"),
    ("i like python", "i like monty python"),
    ("short", "a much longer hypothesis than the reference"),
    ("  leading and trailing  ", "leading and trailing"),
    ("multiple   spaces here", "multiple spaces here"),
    ("a\tb c", "a b c"),
    ("a \tb", "a b"),
    ("", "inserted words"),
    ("", ""),
    ("words gone", ""),
    ("Zürich café", "zurich café"),
    ("東京 は 大きい", "東京 は とても 大きい"),
]


def generated(seed: int, count: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    pieces = ["the", "cat", "sat", "on", "mat", "é", " ", "  ", "\t", "\n", "東", "a\u00a0b"]

    def one() -> str:
        return "".join(
            rng.choice(pieces) + rng.choice(["", " "]) for _ in range(rng.randint(0, 14))
        )

    return [one() for _ in range(count)], [one() for _ in range(count)]


def test_wer_and_cer_are_jiwer_row_by_row() -> None:
    gen_e, gen_a = generated(11, 1500)
    pairs = EXAMPLES + list(zip(gen_e, gen_a, strict=True))
    expected, actual = [e for e, _ in pairs], [a for _, a in pairs]
    want_w = [jiwer.wer(e, a) for e, a in pairs]
    want_c = [jiwer.cer(e, a) for e, a in pairs]
    assert metrics.wer_batch(expected, actual).tolist() == want_w
    assert metrics.cer_batch(expected, actual).tolist() == want_c
    assert [metrics.wer(e, a) for e, a in pairs] == want_w
    assert [metrics.cer(e, a) for e, a in pairs] == want_c
    column = metrics.wer_batch(TextColumn.from_strings(expected), TextColumn.from_strings(actual))
    np.testing.assert_array_equal(column, want_w)


def test_corpus_rates_are_jiwer_on_lists() -> None:
    expected, actual = generated(12, 800)
    assert metrics.corpus_wer(expected, actual) == jiwer.wer(expected, actual)
    assert metrics.corpus_cer(expected, actual) == jiwer.cer(expected, actual)
    ex, ac = [e for e, _ in EXAMPLES], [a for _, a in EXAMPLES]
    assert metrics.corpus_wer(ex, ac, workers=1) == jiwer.wer(ex, ac)
    assert metrics.corpus_cer(ex, ac) == jiwer.cer(ex, ac)
    assert metrics.corpus_wer(["", ""], ["a b", "c"]) == jiwer.wer(["", ""], ["a b", "c"]) == 3
