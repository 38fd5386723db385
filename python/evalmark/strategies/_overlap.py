"""N-gram overlap strategies over the batch kernels: ROUGE-N, ROUGE-Lsum, BLEU and chrF.

Each scores the output against the expected output with the function of the same name in
:mod:`evalmark.metrics` (equal to rouge-score and sacrebleu; every score in [0, 1]), takes
that function's options, and passes at ``threshold``, like
:class:`~evalmark.strategies._metric.RougeL`.
"""

from __future__ import annotations

from evalmark.metrics._table import FUNCTIONS
from evalmark.strategies._metric import MetricStrategy

__all__ = ["Bleu", "Chrf", "RougeLsum", "RougeN"]


class RougeN(MetricStrategy):
    """ROUGE-N (n-gram overlap, as rouge-score's ``rouge{n}``); ``stemmer="porter"`` stems
    as ``use_stemmer=True`` does."""

    label = "ROUGE-N"
    function = FUNCTIONS["rouge_n"]


class RougeLsum(MetricStrategy):
    """ROUGE-Lsum (union LCS over newline-separated sentences, as rouge-score)."""

    label = "ROUGE-Lsum"
    function = FUNCTIONS["rouge_lsum"]


class Bleu(MetricStrategy):
    """Sentence BLEU with sacrebleu's defaults (13a tokenizer, exponential smoothing), / 100."""

    label = "BLEU"
    function = FUNCTIONS["bleu"]


class Chrf(MetricStrategy):
    """Sentence chrF (``word_order=2``: chrF++) as sacrebleu computes it, / 100."""

    label = "chrF"
    function = FUNCTIONS["chrf"]
