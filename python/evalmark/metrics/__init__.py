"""Metric functions: scalar and batch forms over the Rust kernels in ``evalmark._core``.

:data:`METRICS` is the metric table: every metric name, each one number (a function of
:data:`FUNCTIONS` with some options fixed, such as ``rouge1_stemmed``); the strategies, the
suite kinds and ``evalmark score`` take their metrics from it.

Arguments are always ``(expected, actual)``. Batch forms take sequences of ``str`` (or a
:class:`TextColumn`), or 2-D arrays for vectors, and return 1-D numpy arrays. They release the
GIL and run on ``workers`` threads: ``-1`` every core, ``1`` serial, ``n`` that many; the default
comes from the ``EVALMARK_WORKERS`` environment variable, else ``-1``. Results are bit-identical
for every value of ``workers``. Text functions take ``max_chars``: a text with more code points
raises :class:`TextTooLongError`, whose ``rows`` lists the offending rows of a batch. The
definitions and the cost model are stated in ``evalmark/_core.pyi``.
"""

from __future__ import annotations

import os

from evalmark.errors import ExtensionNotBuiltError, MetricInputError, TextTooLongError

# The first import of the compiled extension on every path that needs it (the metric modules
# below import it after this package): a tree that was never built gets the way to build it.
try:
    from evalmark._core import work_done as work_done
except ModuleNotFoundError as exc:
    if exc.name != "evalmark._core":
        raise
    raise ExtensionNotBuiltError(os.path.dirname(__path__[0])) from None

# Argument types and the workers rule: importable from here, not in ``__all__``.
from evalmark.metrics._args import MAX_WORKERS as MAX_WORKERS
from evalmark.metrics._args import BleuTokenizer as BleuTokenizer
from evalmark.metrics._args import FloatArray as FloatArray
from evalmark.metrics._args import Measure as Measure
from evalmark.metrics._args import Normalizer as Normalizer
from evalmark.metrics._args import Numbers as Numbers
from evalmark.metrics._args import Smooth as Smooth
from evalmark.metrics._args import Stemmer as Stemmer
from evalmark.metrics._args import Tokenizer as Tokenizer
from evalmark.metrics._args import resolve_workers as resolve_workers
from evalmark.metrics._option import Option as Option
from evalmark.metrics._table import FUNCTIONS, METRICS, Metric, MetricFunction
from evalmark.metrics.column import TextColumn
from evalmark.metrics.column import Texts as Texts
from evalmark.metrics.edit import (
    levenshtein_distance,
    levenshtein_distance_batch,
    levenshtein_similarity,
    levenshtein_similarity_batch,
)
from evalmark.metrics.jsonmatch import canonical_json, json_match, json_match_batch
from evalmark.metrics.overlap import (
    rouge_l,
    rouge_l_batch,
    rouge_lsum,
    rouge_lsum_batch,
    rouge_n,
    rouge_n_batch,
    token_f1,
    token_f1_batch,
)
from evalmark.metrics.reference import ReferenceBatch as ReferenceBatch
from evalmark.metrics.reference import References as References
from evalmark.metrics.reference import (
    bleu,
    bleu_batch,
    chrf,
    chrf_batch,
    corpus_bleu,
    corpus_chrf,
)
from evalmark.metrics.vectors import cosine, cosine_batch, cosine_matrix

__all__ = [
    "FUNCTIONS",
    "METRICS",
    "Metric",
    "MetricFunction",
    "MetricInputError",
    "TextColumn",
    "TextTooLongError",
    "bleu",
    "bleu_batch",
    "canonical_json",
    "chrf",
    "chrf_batch",
    "corpus_bleu",
    "corpus_chrf",
    "cosine",
    "cosine_batch",
    "cosine_matrix",
    "json_match",
    "json_match_batch",
    "levenshtein_distance",
    "levenshtein_distance_batch",
    "levenshtein_similarity",
    "levenshtein_similarity_batch",
    "rouge_l",
    "rouge_l_batch",
    "rouge_lsum",
    "rouge_lsum_batch",
    "rouge_n",
    "rouge_n_batch",
    "token_f1",
    "token_f1_batch",
]
