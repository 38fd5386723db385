"""Metric functions: scalar and batch forms over the Rust kernels in ``evalmark._core``.

:data:`METRICS` is the metric table: every metric name, each one number (a function of
:data:`~evalmark.metrics._table.FUNCTIONS` with some options fixed, such as ``rouge1_stemmed``);
the strategies, the suite kinds and ``evalmark score`` take their metrics from it.

Arguments are always ``(expected, actual)``. Batch forms take sequences of ``str`` (or a
:class:`TextColumn`), or 2-D arrays for vectors, and return 1-D numpy arrays. They release the
GIL and run on ``workers`` threads: ``-1`` every core, ``1`` serial, ``n`` that many; the default
comes from the ``EVALMARK_WORKERS`` environment variable, else ``-1``. Results are bit-identical
for every value of ``workers``. Text functions take ``max_chars``: a text with more code points
raises :class:`~evalmark.errors.TextTooLongError`, whose ``rows`` lists the offending rows of a
batch. The definitions and the cost model are stated in ``evalmark/_core.pyi``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark._core import work_done as work_done

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
    from evalmark.metrics._column import TextColumn
    from evalmark.metrics._column import Texts as Texts
    from evalmark.metrics._edit import (
        indel_distance,
        indel_distance_batch,
        indel_normalized_distance,
        indel_normalized_distance_batch,
        levenshtein_cdist,
        levenshtein_distance,
        levenshtein_distance_batch,
        levenshtein_editops,
        levenshtein_extract,
        levenshtein_normalized_distance,
        levenshtein_normalized_distance_batch,
        levenshtein_similarity,
        levenshtein_similarity_batch,
    )
    from evalmark.metrics._jsonmatch import canonical_json, json_match, json_match_batch
    from evalmark.metrics._nlg import (
        bertscore,
        bertscore_batch,
        corpus_gleu,
        gleu,
        gleu_batch,
        meteor,
        meteor_batch,
    )
    from evalmark.metrics._option import Option as Option
    from evalmark.metrics._overlap import (
        rouge_l,
        rouge_l_batch,
        rouge_lsum,
        rouge_lsum_batch,
        rouge_n,
        rouge_n_batch,
        squad_exact_match,
        squad_exact_match_batch,
        token_f1,
        token_f1_batch,
    )
    from evalmark.metrics._reference import ReferenceBatch as ReferenceBatch
    from evalmark.metrics._reference import References as References
    from evalmark.metrics._reference import (
        bleu,
        bleu_batch,
        bleu_from_statistics,
        bleu_statistics,
        chrf,
        chrf_batch,
        corpus_bleu,
        corpus_chrf,
    )
    from evalmark.metrics._retrieval import retrieval_metrics, retrieval_metrics_batch
    from evalmark.metrics._rouge_ci import RougeAggregate, RougeScore, rouge_bootstrap
    from evalmark.metrics._sentences import split_summaries
    from evalmark.metrics._significance import (
        PairedSignificance,
        SystemEstimate,
        paired_approximate_randomization,
        paired_bootstrap,
    )
    from evalmark.metrics._table import METRICS
    from evalmark.metrics._vectors import cosine, cosine_batch, cosine_matrix, cosine_top_k
    from evalmark.metrics._wer import cer, cer_batch, corpus_cer, corpus_wer, wer, wer_batch


# Every name of this face, by the module that defines it: imported on first use, so reading the
# metric table (``evalmark score --help``) loads neither numpy nor the compiled extension.
_HOMES: dict[str, str] = {
    "work_done": "evalmark._core",
    "BleuTokenizer": "evalmark.metrics._args",
    "FloatArray": "evalmark.metrics._args",
    "MAX_WORKERS": "evalmark.metrics._args",
    "Measure": "evalmark.metrics._args",
    "Normalizer": "evalmark.metrics._args",
    "Numbers": "evalmark.metrics._args",
    "resolve_workers": "evalmark.metrics._args",
    "Smooth": "evalmark.metrics._args",
    "Stemmer": "evalmark.metrics._args",
    "Tokenizer": "evalmark.metrics._args",
    "Option": "evalmark.metrics._option",
    "METRICS": "evalmark.metrics._table",
    "TextColumn": "evalmark.metrics._column",
    "Texts": "evalmark.metrics._column",
    "levenshtein_distance": "evalmark.metrics._edit",
    "levenshtein_distance_batch": "evalmark.metrics._edit",
    "levenshtein_similarity": "evalmark.metrics._edit",
    "levenshtein_similarity_batch": "evalmark.metrics._edit",
    "canonical_json": "evalmark.metrics._jsonmatch",
    "json_match": "evalmark.metrics._jsonmatch",
    "json_match_batch": "evalmark.metrics._jsonmatch",
    "bertscore": "evalmark.metrics._nlg",
    "bertscore_batch": "evalmark.metrics._nlg",
    "corpus_gleu": "evalmark.metrics._nlg",
    "gleu": "evalmark.metrics._nlg",
    "gleu_batch": "evalmark.metrics._nlg",
    "meteor": "evalmark.metrics._nlg",
    "meteor_batch": "evalmark.metrics._nlg",
    "rouge_l": "evalmark.metrics._overlap",
    "rouge_l_batch": "evalmark.metrics._overlap",
    "rouge_lsum": "evalmark.metrics._overlap",
    "rouge_lsum_batch": "evalmark.metrics._overlap",
    "rouge_n": "evalmark.metrics._overlap",
    "rouge_n_batch": "evalmark.metrics._overlap",
    "token_f1": "evalmark.metrics._overlap",
    "token_f1_batch": "evalmark.metrics._overlap",
    "bleu": "evalmark.metrics._reference",
    "bleu_batch": "evalmark.metrics._reference",
    "bleu_from_statistics": "evalmark.metrics._reference",
    "bleu_statistics": "evalmark.metrics._reference",
    "chrf": "evalmark.metrics._reference",
    "chrf_batch": "evalmark.metrics._reference",
    "corpus_bleu": "evalmark.metrics._reference",
    "corpus_chrf": "evalmark.metrics._reference",
    "ReferenceBatch": "evalmark.metrics._reference",
    "References": "evalmark.metrics._reference",
    "cosine": "evalmark.metrics._vectors",
    "cosine_batch": "evalmark.metrics._vectors",
    "cosine_matrix": "evalmark.metrics._vectors",
    "cosine_top_k": "evalmark.metrics._vectors",
    "indel_distance": "evalmark.metrics._edit",
    "indel_distance_batch": "evalmark.metrics._edit",
    "indel_normalized_distance": "evalmark.metrics._edit",
    "indel_normalized_distance_batch": "evalmark.metrics._edit",
    "levenshtein_cdist": "evalmark.metrics._edit",
    "levenshtein_editops": "evalmark.metrics._edit",
    "levenshtein_extract": "evalmark.metrics._edit",
    "levenshtein_normalized_distance": "evalmark.metrics._edit",
    "levenshtein_normalized_distance_batch": "evalmark.metrics._edit",
    "squad_exact_match": "evalmark.metrics._overlap",
    "squad_exact_match_batch": "evalmark.metrics._overlap",
    "wer": "evalmark.metrics._wer",
    "wer_batch": "evalmark.metrics._wer",
    "cer": "evalmark.metrics._wer",
    "cer_batch": "evalmark.metrics._wer",
    "corpus_wer": "evalmark.metrics._wer",
    "corpus_cer": "evalmark.metrics._wer",
    "PairedSignificance": "evalmark.metrics._significance",
    "SystemEstimate": "evalmark.metrics._significance",
    "paired_approximate_randomization": "evalmark.metrics._significance",
    "paired_bootstrap": "evalmark.metrics._significance",
    "RougeAggregate": "evalmark.metrics._rouge_ci",
    "RougeScore": "evalmark.metrics._rouge_ci",
    "rouge_bootstrap": "evalmark.metrics._rouge_ci",
    "split_summaries": "evalmark.metrics._sentences",
    "retrieval_metrics": "evalmark.metrics._retrieval",
    "retrieval_metrics_batch": "evalmark.metrics._retrieval",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'evalmark.metrics' has no attribute {name!r}")
    if home == "evalmark._core":
        home = "evalmark.metrics._native"
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "METRICS",
    "PairedSignificance",
    "RougeAggregate",
    "RougeScore",
    "SystemEstimate",
    "TextColumn",
    "bertscore",
    "bertscore_batch",
    "bleu",
    "bleu_batch",
    "bleu_from_statistics",
    "bleu_statistics",
    "canonical_json",
    "cer",
    "cer_batch",
    "chrf",
    "chrf_batch",
    "corpus_bleu",
    "corpus_cer",
    "corpus_chrf",
    "corpus_gleu",
    "corpus_wer",
    "cosine",
    "cosine_batch",
    "cosine_matrix",
    "cosine_top_k",
    "gleu",
    "gleu_batch",
    "indel_distance",
    "indel_distance_batch",
    "indel_normalized_distance",
    "indel_normalized_distance_batch",
    "json_match",
    "json_match_batch",
    "levenshtein_cdist",
    "levenshtein_distance",
    "levenshtein_distance_batch",
    "levenshtein_editops",
    "levenshtein_extract",
    "levenshtein_normalized_distance",
    "levenshtein_normalized_distance_batch",
    "levenshtein_similarity",
    "levenshtein_similarity_batch",
    "meteor",
    "meteor_batch",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "retrieval_metrics",
    "retrieval_metrics_batch",
    "rouge_bootstrap",
    "rouge_l",
    "rouge_l_batch",
    "rouge_lsum",
    "rouge_lsum_batch",
    "rouge_n",
    "rouge_n_batch",
    "split_summaries",
    "squad_exact_match",
    "squad_exact_match_batch",
    "token_f1",
    "token_f1_batch",
    "wer",
    "wer_batch",
]
