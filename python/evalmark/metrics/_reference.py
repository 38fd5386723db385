"""BLEU and chrF against one or more references per row, as sacrebleu."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evalmark.errors import MetricInputError
from evalmark.metrics._args import (
    BleuTokenizer,
    FloatArray,
    Smooth,
    bool_arg,
    resolve_workers,
    texts_arg,
)
from evalmark.metrics._bleu_text import batch_args, sentence_args
from evalmark.metrics._column import TextColumn, Texts
from evalmark.metrics._native import core as _core

References = str | Sequence[str]
"""A row's references: one ``str``, or a sequence of them (multi-reference)."""
ReferenceBatch = Sequence[References] | TextColumn


def _references(expected: ReferenceBatch, actual: Texts) -> Any:
    """The references of a batch, refusing sacrebleu's stream layout with a hint."""
    if isinstance(expected, TextColumn):
        return expected._parts()
    if (
        not isinstance(expected, str)
        and isinstance(expected, Sequence)
        and len(expected) != len(actual)
        and len(expected) > 0
        and all(
            not isinstance(r, str) and isinstance(r, Sequence) and len(r) == len(actual)
            for r in expected
        )
    ):
        raise MetricInputError(
            f"expected has {len(expected)} rows for {len(actual)} hypotheses, each as long as "
            "actual: this looks like sacrebleu's reference streams (one list per reference); "
            "evalmark takes one entry per row (a str or a list of that row's references): "
            "pass list(zip(*streams))"
        )
    return expected


def _smooth_value(value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"smooth_value must be a number or None, got {type(value).__name__}")
    return float(value)


MAX_NGRAM_ORDER = 10
"""The highest BLEU ``max_ngram_order`` accepted (sacrebleu's default is 4)."""


def _order(value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"max_ngram_order must be an int, got {type(value).__name__}")
    if not 1 <= value <= MAX_NGRAM_ORDER:
        raise MetricInputError(f"max_ngram_order must be 1 to {MAX_NGRAM_ORDER}, got {value}")
    return value


def bleu(
    expected: References,
    actual: str,
    *,
    tokenize: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth_method: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = 4,
    max_chars: int | None = None,
) -> float:
    """Sentence BLEU of ``actual`` (the hypothesis) against ``expected`` (one reference or a
    list), in [0, 1]: sacrebleu's ``sentence_bleu(actual, refs).score / 100``;
    ``max_ngram_order`` (1 to 10) is its ``BLEU(max_ngram_order=...)``."""
    refs, hyp, kernel_tokenize, low = sentence_args(
        expected, actual, tokenize, bool_arg("lowercase", lowercase)
    )
    return _core.bleu(
        refs,
        hyp,
        kernel_tokenize,
        low,
        smooth_method,
        _smooth_value(smooth_value),
        bool_arg("effective_order", effective_order),
        _order(max_ngram_order),
        max_chars,
    )


def bleu_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    tokenize: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth_method: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
    max_ngram_order: int = 4,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Sentence BLEU for each row; row i's references are ``expected[i]``."""
    refs, hyps, kernel_tokenize, low = batch_args(
        expected, actual, tokenize, bool_arg("lowercase", lowercase)
    )
    return _core.bleu_batch(
        _references(refs, hyps),
        texts_arg(hyps),
        kernel_tokenize,
        low,
        smooth_method,
        _smooth_value(smooth_value),
        bool_arg("effective_order", effective_order),
        _order(max_ngram_order),
        resolve_workers(workers),
        max_chars,
    )


def corpus_bleu(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    tokenize: BleuTokenizer = "13a",
    lowercase: bool = False,
    smooth_method: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Corpus BLEU in [0, 1]: sacrebleu's ``corpus_bleu`` / 100, with references given per row
    (``expected[i]`` for ``actual[i]``), not as sacrebleu's streams."""
    refs, hyps, kernel_tokenize, low = batch_args(
        expected, actual, tokenize, bool_arg("lowercase", lowercase)
    )
    return _core.corpus_bleu(
        _references(refs, hyps),
        texts_arg(hyps),
        kernel_tokenize,
        low,
        smooth_method,
        _smooth_value(smooth_value),
        bool_arg("effective_order", effective_order),
        _order(max_ngram_order),
        resolve_workers(workers),
        max_chars,
    )


def _chrf_args(
    char_order: int,
    word_order: int,
    beta: int,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> tuple[int, int, int, bool, bool, bool]:
    return (
        char_order,
        word_order,
        beta,
        bool_arg("whitespace", whitespace),
        bool_arg("eps_smoothing", eps_smoothing),
        bool_arg("lowercase", lowercase),
    )


def chrf(
    expected: References,
    actual: str,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    max_chars: int | None = None,
) -> float:
    """Sentence chrF (``word_order=2``: chrF++) of ``actual`` against ``expected`` (one
    reference or a list), in [0, 1]: sacrebleu's ``sentence_chrf(actual, refs).score / 100``."""
    return _core.chrf(
        expected,
        actual,
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        max_chars,
    )


def chrf_batch(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Sentence chrF for each row; row i's references are ``expected[i]``."""
    return _core.chrf_batch(
        _references(expected, actual),
        texts_arg(actual),
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        resolve_workers(workers),
        max_chars,
    )


def corpus_chrf(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    lowercase: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Corpus chrF in [0, 1]: sacrebleu's ``corpus_chrf`` / 100, references given per row."""
    return _core.corpus_chrf(
        _references(expected, actual),
        texts_arg(actual),
        *_chrf_args(char_order, word_order, beta, whitespace, eps_smoothing, lowercase),
        resolve_workers(workers),
        max_chars,
    )


def bleu_statistics(
    expected: ReferenceBatch,
    actual: Texts,
    *,
    tokenize: BleuTokenizer = "13a",
    lowercase: bool = False,
    workers: int | None = None,
    max_chars: int | None = None,
    max_ngram_order: int = 4,
) -> npt.NDArray[np.int64]:
    """BLEU's sufficient statistics of each row, an (n, 2 + 2·max_ngram_order) int64 array
    laid out as sacrebleu's ``BLEU(max_ngram_order=...)._extract_corpus_statistics``:
    hypothesis length, reference length, clipped matches of each order, hypothesis n-grams of
    each order ((n, 10) by default). Rows add up: the statistics of shards, stacked, give the
    corpus score through :func:`bleu_from_statistics`."""
    refs, hyps, kernel_tokenize, low = batch_args(
        expected, actual, tokenize, bool_arg("lowercase", lowercase)
    )
    return _core.bleu_statistics(
        _references(refs, hyps),
        texts_arg(hyps),
        kernel_tokenize,
        low,
        resolve_workers(workers),
        max_chars,
        _order(max_ngram_order),
    )


def bleu_from_statistics(
    statistics: npt.ArrayLike,
    *,
    smooth_method: Smooth = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
) -> float:
    """BLEU in [0, 1] from the column sums of :func:`bleu_statistics` rows (sacrebleu's
    ``BLEU._compute_score_from_stats(sums).score / 100``); the defaults are corpus BLEU's, so
    the stacked statistics of every shard give :func:`corpus_bleu` of the whole corpus. The
    statistics must be counted to ``max_ngram_order`` at least (more orders are ignored)."""
    table = np.ascontiguousarray(np.atleast_2d(np.asarray(statistics)), dtype=np.int64)
    return _core.bleu_from_statistics(
        table,
        smooth_method,
        _smooth_value(smooth_value),
        bool_arg("effective_order", effective_order),
        _order(max_ngram_order),
    )
