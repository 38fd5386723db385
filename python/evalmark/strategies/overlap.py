"""N-gram overlap strategies over the batch kernels: ROUGE-N, ROUGE-Lsum, BLEU and chrF.

Each scores the output against the expected output with the kernel of the same name in
:mod:`evalmark.metrics` (equal to rouge-score and sacrebleu; every score in [0, 1]) and passes
at ``threshold``, like :class:`~evalmark.strategies.metric.RougeL`.
"""

from __future__ import annotations

from evalmark import metrics
from evalmark.strategies.metric import FloatArray, MetricStrategy

__all__ = ["Bleu", "Chrf", "RougeLsum", "RougeN"]


class RougeN(MetricStrategy):
    """ROUGE-N (n-gram overlap, as rouge-score's ``rouge{n}``); ``stemmer="porter"`` stems
    as ``use_stemmer=True`` does."""

    label = "ROUGE-N"

    def __init__(
        self,
        threshold: float | None = None,
        *,
        n: int = 1,
        stemmer: metrics.Stemmer | None = None,
        measure: metrics.Measure = "fmeasure",
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"RougeN: n must be a whole number >= 1, got {n!r}")
        super().__init__(threshold, name=name, workers=workers)
        self.n = n
        self.stemmer = stemmer
        self.measure: metrics.Measure = measure

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        return metrics.rouge_n_batch(
            expected,
            actual,
            n=self.n,
            stemmer=self.stemmer,
            measure=self.measure,
            workers=self.workers,
        )


class RougeLsum(MetricStrategy):
    """ROUGE-Lsum (union LCS over newline-separated sentences, as rouge-score)."""

    label = "ROUGE-Lsum"

    def __init__(
        self,
        threshold: float | None = None,
        *,
        stemmer: metrics.Stemmer | None = None,
        measure: metrics.Measure = "fmeasure",
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        super().__init__(threshold, name=name, workers=workers)
        self.stemmer = stemmer
        self.measure: metrics.Measure = measure

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        return metrics.rouge_lsum_batch(
            expected, actual, stemmer=self.stemmer, measure=self.measure, workers=self.workers
        )


class Bleu(MetricStrategy):
    """Sentence BLEU with sacrebleu's defaults (13a tokenizer, exponential smoothing), / 100."""

    label = "BLEU"

    def __init__(
        self,
        threshold: float | None = None,
        *,
        tokenizer: metrics.BleuTokenizer = "13a",
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        super().__init__(threshold, name=name, workers=workers)
        self.tokenizer: metrics.BleuTokenizer = tokenizer

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        return metrics.bleu_batch(expected, actual, tokenizer=self.tokenizer, workers=self.workers)


class Chrf(MetricStrategy):
    """Sentence chrF (``word_order=2``: chrF++) as sacrebleu computes it, / 100."""

    label = "chrF"

    def __init__(
        self,
        threshold: float | None = None,
        *,
        word_order: int = 0,
        name: str | None = None,
        workers: int | None = None,
    ) -> None:
        if word_order not in (0, 1, 2):
            raise ValueError(f"Chrf: word_order must be 0, 1 or 2 (chrF++), got {word_order!r}")
        super().__init__(threshold, name=name, workers=workers)
        self.word_order = word_order

    def _kernel(self, expected: list[str], actual: list[str]) -> FloatArray:
        return metrics.chrf_batch(
            expected, actual, word_order=self.word_order, workers=self.workers
        )
