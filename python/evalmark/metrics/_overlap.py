"""Token F1 and the ROUGE family (ROUGE-L, ROUGE-N, ROUGE-Lsum), as SQuAD and rouge-score."""

from __future__ import annotations

from evalmark.metrics._args import (
    FloatArray,
    Measure,
    Normalizer,
    Stemmer,
    Tokenizer,
    resolve_workers,
    texts_arg,
)
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core


def token_f1(
    expected: str,
    actual: str,
    *,
    normalizer: Normalizer = "squad",
    max_chars: int | None = None,
) -> float:
    """Token F1 of ``actual`` against ``expected`` (SQuAD's ``compute_f1`` by default)."""
    return _core.token_f1(expected, actual, normalizer, max_chars)


def token_f1_batch(
    expected: Texts,
    actual: Texts,
    *,
    normalizer: Normalizer = "squad",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Token F1 for each pair of a batch."""
    return _core.token_f1_batch(
        texts_arg(expected), texts_arg(actual), normalizer, resolve_workers(workers), max_chars
    )


def rouge_l(
    expected: str,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    max_chars: int | None = None,
) -> float:
    """ROUGE-L of ``actual`` (prediction) against ``expected`` (target), as rouge-score;
    ``stemmer="porter"`` is rouge-score's ``use_stemmer=True``."""
    return _core.rouge_l(expected, actual, tokenizer, measure, stemmer, max_chars)


def rouge_l_batch(
    expected: Texts,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    measure: Measure = "fmeasure",
    stemmer: Stemmer | None = None,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-L for each pair of a batch."""
    return _core.rouge_l_batch(
        texts_arg(expected),
        texts_arg(actual),
        tokenizer,
        measure,
        stemmer,
        resolve_workers(workers),
        max_chars,
    )


def rouge_n(
    expected: str,
    actual: str,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-N of ``actual`` (prediction) against ``expected`` (target), as rouge-score's
    ``rouge{n}``; ``stemmer="porter"`` is its ``use_stemmer=True``."""
    return _core.rouge_n(expected, actual, n, tokenizer, stemmer, measure, max_chars)


def rouge_n_batch(
    expected: Texts,
    actual: Texts,
    *,
    n: int = 1,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-N for each pair of a batch."""
    return _core.rouge_n_batch(
        texts_arg(expected),
        texts_arg(actual),
        n,
        tokenizer,
        stemmer,
        measure,
        resolve_workers(workers),
        max_chars,
    )


def rouge_lsum(
    expected: str,
    actual: str,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    max_chars: int | None = None,
) -> float:
    """ROUGE-Lsum (summary-level LCS over newline-separated sentences), as rouge-score."""
    return _core.rouge_lsum(expected, actual, tokenizer, stemmer, measure, max_chars)


def rouge_lsum_batch(
    expected: Texts,
    actual: Texts,
    *,
    tokenizer: Tokenizer = "rouge",
    stemmer: Stemmer | None = None,
    measure: Measure = "fmeasure",
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """ROUGE-Lsum for each pair of a batch."""
    return _core.rouge_lsum_batch(
        texts_arg(expected),
        texts_arg(actual),
        tokenizer,
        stemmer,
        measure,
        resolve_workers(workers),
        max_chars,
    )
