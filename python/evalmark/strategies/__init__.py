"""Evaluation strategies: deterministic checks, metric strategies with a batch path, judges,
key-by-key JSON and trajectory matchers, retrieval, guardrails and composites.

A strategy is anything with ``evaluate(sample, output) -> EvaluationResult`` (or a plain
function ``(sample, output) -> EvaluationResult | bool``); see :mod:`evalmark.strategies._base`.
"""

from evalmark.errors import (
    GradeParseError,
    JsonJudgmentParseError,
    JudgeParseError,
    StrategyError,
    VerdictParseError,
)
from evalmark.strategies._agent_judges import PlanAdherenceJudge, TrajectoryJudge
from evalmark.strategies._base import (
    AsyncStrategy,
    BatchStrategy,
    FunctionStrategy,
    Strategy,
    as_strategy,
    strategy_name,
)
from evalmark.strategies._composite import Composite
from evalmark.strategies._context_metrics import ContextualPrecision, ContextualRecall
from evalmark.strategies._faithfulness import Faithfulness
from evalmark.strategies._guardrail import Guardrail
from evalmark.strategies._json_keys import JsonKeysMatch, KeyOutcome
from evalmark.strategies._llm_judge import JudgeOutcome, LLMJudge
from evalmark.strategies._metric import (
    JsonMatch,
    LevenshteinSimilarity,
    MetricStrategy,
    RougeL,
    SemanticSimilarity,
    TokenF1,
)
from evalmark.strategies._overlap import Bleu, Chrf, RougeLsum, RougeN
from evalmark.strategies._parsing import Judgment, parse_grade, parse_json_judgment, parse_yes_no
from evalmark.strategies._plan import PlanAdherence
from evalmark.strategies._retrieval import RetrievedSegments
from evalmark.strategies._text import (
    Contains,
    ContainsFacts,
    ExactMatch,
    KeywordRelevance,
    normalize_text,
)
from evalmark.strategies._trajectory import TrajectoryMatch
from evalmark.strategies._votes import REDUCERS, Reducer, reduce_votes

__all__ = [
    "REDUCERS",
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
    "FunctionStrategy",
    "GradeParseError",
    "Guardrail",
    "JsonJudgmentParseError",
    "JsonKeysMatch",
    "JsonMatch",
    "JudgeOutcome",
    "JudgeParseError",
    "Judgment",
    "KeyOutcome",
    "KeywordRelevance",
    "LLMJudge",
    "LevenshteinSimilarity",
    "MetricStrategy",
    "PlanAdherence",
    "PlanAdherenceJudge",
    "Reducer",
    "RetrievedSegments",
    "RougeL",
    "RougeLsum",
    "RougeN",
    "SemanticSimilarity",
    "Strategy",
    "StrategyError",
    "TokenF1",
    "TrajectoryJudge",
    "TrajectoryMatch",
    "VerdictParseError",
    "as_strategy",
    "normalize_text",
    "parse_grade",
    "parse_json_judgment",
    "parse_yes_no",
    "reduce_votes",
    "strategy_name",
]
