"""evalmark: offline-first, deterministic evaluation for LLM applications."""

from evalmark._core import __version__
from evalmark.metrics import (
    MetricInputError,
    TextColumn,
    canonical_json,
    cosine,
    cosine_batch,
    cosine_matrix,
    json_match,
    json_match_batch,
    levenshtein_distance,
    levenshtein_distance_batch,
    levenshtein_similarity,
    levenshtein_similarity_batch,
    rouge_l,
    rouge_l_batch,
    token_f1,
    token_f1_batch,
)

__all__ = [
    # metrics
    "MetricInputError",
    "TextColumn",
    "canonical_json",
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
    "token_f1",
    "token_f1_batch",
    # package
    "__version__",
]
