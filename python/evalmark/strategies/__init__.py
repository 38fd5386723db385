"""Evaluation strategies: deterministic checks, metric strategies with a batch path, judges,
key-by-key JSON and trajectory matchers, retrieval, guardrails and composites.

A strategy is anything with ``evaluate(sample, output) -> EvaluationResult`` (or a plain
function ``(sample, output) -> EvaluationResult | bool``); see :mod:`evalmark.strategies._base`.
"""

from evalmark.strategies._agent_judges import PlanAdherenceJudge, TrajectoryJudge
from evalmark.strategies._base import AsyncStrategy, BatchStrategy, Strategy, as_strategy
from evalmark.strategies._composite import Composite
from evalmark.strategies._context_metrics import ContextualPrecision, ContextualRecall
from evalmark.strategies._faithfulness import Faithfulness
from evalmark.strategies._guardrail import Guardrail
from evalmark.strategies._json_keys import JsonKeysMatch
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._metric import (
    JsonMatch,
    LevenshteinSimilarity,
    RougeL,
    SemanticSimilarity,
    SquadExactMatch,
    TokenF1,
)
from evalmark.strategies._nlg import Gleu, Meteor
from evalmark.strategies._overlap import Bleu, Chrf, RougeLsum, RougeN
from evalmark.strategies._plan import PlanAdherence
from evalmark.strategies._registry import register_strategy, unregister_strategy
from evalmark.strategies._retrieval_metric import RetrievalMetric
from evalmark.strategies._text import Contains, ContainsFacts, ExactMatch, KeywordRelevance
from evalmark.strategies._trajectory import TrajectoryMatch

__all__ = [
    "AsyncStrategy",
    "BatchStrategy",
    "Bleu",
    "Chrf",
    "Composite",
    "Contains",
    "ContainsFacts",
    "ContextualPrecision",
    "ContextualRecall",
    "ExactMatch",
    "Faithfulness",
    "Gleu",
    "Guardrail",
    "JsonKeysMatch",
    "JsonMatch",
    "KeywordRelevance",
    "LLMJudge",
    "LevenshteinSimilarity",
    "Meteor",
    "PlanAdherence",
    "PlanAdherenceJudge",
    "RetrievalMetric",
    "RougeL",
    "RougeLsum",
    "RougeN",
    "SemanticSimilarity",
    "SquadExactMatch",
    "Strategy",
    "TokenF1",
    "TrajectoryJudge",
    "TrajectoryMatch",
    "as_strategy",
    "register_strategy",
    "unregister_strategy",
]
