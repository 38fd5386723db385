"""Word and character error rates, as ``jiwer.wer`` and ``jiwer.cer`` with their default
transforms: edits between reference (``expected``) and hypothesis (``actual``) over words or
characters, per reference word or character. An empty reference scores the hypothesis's
length (each of its units an insertion), as jiwer does."""

from __future__ import annotations

import numpy as np

from evalmark.metrics._args import FloatArray, resolve_workers, texts_arg
from evalmark.metrics._column import Texts
from evalmark.metrics._native import core as _core


def wer(expected: str, actual: str, *, max_chars: int | None = None) -> float:
    """Word error rate of ``actual`` against the reference ``expected``: ``jiwer.wer``."""
    return _core.wer(expected, actual, max_chars)


def wer_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Word error rate for each pair of a batch."""
    return _core.wer_batch(
        texts_arg(expected), texts_arg(actual), resolve_workers(workers), max_chars
    )


def cer(expected: str, actual: str, *, max_chars: int | None = None) -> float:
    """Character error rate of ``actual`` against the reference ``expected``:
    ``jiwer.cer``."""
    return _core.cer(expected, actual, max_chars)


def cer_batch(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> FloatArray:
    """Character error rate for each pair of a batch."""
    return _core.cer_batch(
        texts_arg(expected), texts_arg(actual), resolve_workers(workers), max_chars
    )


def _corpus(
    expected: Texts, actual: Texts, unit: str, workers: int | None, max_chars: int | None
) -> float:
    counts = _core.error_counts(
        texts_arg(expected), texts_arg(actual), unit, resolve_workers(workers), max_chars
    )
    totals = np.asarray(counts, dtype=np.int64).sum(axis=0)
    errors, reference, hypothesis = int(totals[0]), int(totals[1]), int(totals[2])
    return float(hypothesis) if reference == 0 else errors / reference


def corpus_wer(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Word error rate of a corpus, all edits over all reference words:
    ``jiwer.wer(list_of_references, list_of_hypotheses)``."""
    return _corpus(expected, actual, "word", workers, max_chars)


def corpus_cer(
    expected: Texts,
    actual: Texts,
    *,
    workers: int | None = None,
    max_chars: int | None = None,
) -> float:
    """Character error rate of a corpus: ``jiwer.cer(list_of_references,
    list_of_hypotheses)``."""
    return _corpus(expected, actual, "char", workers, max_chars)
