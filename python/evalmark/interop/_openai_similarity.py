"""The hosted OpenAI Evals ``text_similarity`` grader, imported as the evalmark check that
reproduces its score.

Each ``evaluation_metric`` maps to one check, its ``pass_threshold`` the check's threshold:

- ``fuzzy_match``: the ``openai-evals`` class ``text_similarity:fuzzy_match`` (rapidfuzz's
  ``WRatio`` after its default processing, over 100), not evalmark's ``levenshtein-similarity``;
- ``bleu``: ``bleu`` (sacrebleu's sentence BLEU over 100); ``gleu``: ``gleu`` (nltk's
  sentence GLEU on whitespace tokens); ``meteor``: ``meteor`` (nltk's METEOR on whitespace
  tokens, exact and stem matches: WordNet synonyms are not matched);
- ``rouge_1`` … ``rouge_5``: ``rouge-n`` with ``n``; ``rouge_l``: ``rouge-l`` (rouge-score's
  F-measure, its default tokenizer, no stemming);
- ``cosine``: the vectors of OpenAI's embedding model are not in a run's output items, so it
  is refused unless allowed; allowed, it is a ``semantic-similarity`` check whose embedding
  model is evalmark's (``model``), whose numbers are not OpenAI's.

OpenAI names the metrics but not every parameter behind them, so the import re-scores each
item with the check and refuses the run when a recorded score differs from the re-score (by
more than :data:`TOLERANCE`) or a recorded verdict from the re-scored one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._registry import build_strategy

__all__ = ["METRICS", "TOLERANCE", "rescore", "similarity_check"]

TOLERANCE = 1e-4
"""How far a recorded score may be from the re-score (the API rounds some scores)."""

METRICS: Mapping[str, tuple[str, dict[str, Any]]] = {
    "fuzzy_match": ("openai-evals", {"class": "text_similarity:fuzzy_match"}),
    "bleu": ("bleu", {}),
    "gleu": ("gleu", {}),
    "meteor": ("meteor", {}),
    **{f"rouge_{n}": ("rouge-n", {"n": n}) for n in range(1, 6)},
    "rouge_l": ("rouge-l", {}),
    "cosine": ("semantic-similarity", {}),
}
"""Each ``evaluation_metric``: the evalmark check kind and its options."""

COSINE_LOSS = (
    "text_similarity metric 'cosine' compares vectors of OpenAI's embedding model that the "
    "run does not record; allowed, the check is evalmark's semantic-similarity with its own "
    "embedding model, whose scores are not OpenAI's (the recorded ones stay in metadata)"
)


def similarity_check(metric: str, threshold: float, name: str) -> dict[str, Any]:
    """The suite check of a ``text_similarity`` criterion with ``evaluation_metric`` ``metric``
    and ``pass_threshold`` ``threshold``, named ``name``."""
    kind, options = METRICS[metric]
    return {kind: {**options, "threshold": threshold, "name": name}}


def rescore(check: Mapping[str, Any], answer: str, reference: str) -> tuple[bool, float]:
    """The verdict and score the check gives ``answer`` against ``reference``."""
    ((kind, options),) = check.items()
    strategy = build_strategy(kind, options)
    sample = Sample(name="rescore", parameters=Parameters([""]), expected_output=reference)
    result = strategy.evaluate(sample, answer)
    return bool(result.passed), float(result.score)
