"""The strategy kinds evalmark ships: deterministic checks, metrics (built from the metric
table, see :mod:`evalmark.strategies._metric_kinds`), and one judged kind per judge prompt.
:mod:`evalmark.strategies._registry` starts from this list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.errors import StrategyError
from evalmark.models._named import EMBEDDING_MODEL_NAMES, embedding_model
from evalmark.models._prompts import PROMPTS
from evalmark.strategies._agent_kinds import AGENT_KINDS
from evalmark.strategies._inspect import INSPECT_LOCATIONS, INSPECT_SCORERS, InspectScorer
from evalmark.strategies._kinds import (
    StrategyKind,
    _with_schema,
    check_choice,
    check_fraction,
    check_grade,
    check_integer,
    check_positive_int,
    check_text,
)
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._llm_judge_kind import LLM_JUDGE_KIND
from evalmark.strategies._lm_eval import LmEvalExactMatch
from evalmark.strategies._metric import SemanticSimilarity
from evalmark.strategies._metric_kinds import METRIC_KINDS
from evalmark.strategies._openai_evals import OPENAI_EVALS_CLASSES, OpenAIEvalsMatch
from evalmark.strategies._openai_graders import OPENAI_GRADER_KIND
from evalmark.strategies._promptfoo import PromptfooAsserts
from evalmark.strategies._retrieval import RetrievedSegments
from evalmark.strategies._retrieval_metric import RetrievalMetric
from evalmark.strategies._text import Contains, ContainsFacts, ExactMatch, KeywordRelevance

__all__ = ["KINDS"]

Options = Mapping[str, Any]


def _semantic_similarity(options: Options, judge: Any) -> SemanticSimilarity:
    name = options.get("model", "hash")
    if name != "hash" and ("dim" in options or "seed" in options):
        raise StrategyError(
            f"check {options['name']!r}: dim and seed are options of model: hash, not of {name}"
        )
    model = embedding_model(name, dim=options.get("dim", 256), seed=options.get("seed", 0))
    return SemanticSimilarity(
        options.get("threshold"),
        model=model,
        similarity=options.get("similarity", "cosine"),
        name=options["name"],
    )


def _judged(prompt: str) -> Any:
    def build(options: Options, judge: Any) -> LLMJudge:
        extra = {
            argument: options[option]
            for option, argument in (
                ("min-grade", "min_grade"),
                ("repeats", "repeats"),
                ("reducer", "reducer"),
            )
            if option in options
        }
        return LLMJudge(PROMPTS[prompt], judge, name=options["name"], **extra)

    return build


_THRESHOLD = {"threshold": check_fraction}


@_with_schema({"type": "array", "items": {"type": "string"}})
def _check_patterns(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return None
    return "expected a list of regular expressions"


KINDS: tuple[StrategyKind, ...] = (
    StrategyKind(
        "exact-match",
        "the output equals the expected output (normalized)",
        lambda o, j: ExactMatch(name=o["name"]),
    ),
    StrategyKind(
        "contains",
        "the output contains the expected output",
        lambda o, j: Contains(name=o["name"]),
    ),
    StrategyKind(
        "contains-facts",
        "every expected fact appears in the output",
        lambda o, j: ContainsFacts(name=o["name"]),
    ),
    *METRIC_KINDS,
    StrategyKind(
        "semantic-similarity",
        "cosine (or dot product) of embeddings (model: hash, or wordllama offline)",
        _semantic_similarity,
        {
            "threshold": check_fraction,
            "dim": check_positive_int,
            "seed": check_integer,
            "similarity": check_choice("cosine", "dot"),
            "model": check_choice(*EMBEDDING_MODEL_NAMES),
        },
    ),
    StrategyKind(
        "keyword-relevance",
        "the share of the sample's keywords (metadata 'keywords') found in the output",
        lambda o, j: KeywordRelevance(threshold=o.get("threshold", 1.0), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "retrieved-segments",
        "every expected segment is in a retrieved item",
        lambda o, j: RetrievedSegments(o.get("threshold", 1.0), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "retrieval-metric",
        "a trec_eval measure (ndcg_cut_10, map, P_5 ...) of the retrieved ids",
        lambda o, j: RetrievalMetric(
            o.get("measure", "ndcg_cut_10"), o.get("threshold", 0.5), name=o["name"]
        ),
        {"measure": check_text, "threshold": check_fraction},
    ),
    StrategyKind(
        "relevancy",
        "a judge: does the answer address the question?",
        _judged("relevancy"),
        prompt="relevancy",
    ),
    StrategyKind(
        "groundedness",
        "a judge: is the answer supported by the context?",
        _judged("groundedness"),
        prompt="groundedness",
    ),
    StrategyKind(
        "agreement",
        "a judge: does the answer agree with the reference?",
        _judged("agreement"),
        prompt="agreement",
    ),
    StrategyKind(
        "rubric",
        "a judge: a 1-5 grade against the reference",
        _judged("rubric"),
        {"min-grade": check_grade},
        prompt="rubric",
    ),
    LLM_JUDGE_KIND,
    *AGENT_KINDS,
    StrategyKind(
        "promptfoo-asserts",
        "an imported promptfoo test's assertions, decided with promptfoo's semantics",
        lambda o, j: PromptfooAsserts(
            name=o["name"], judge=j if o.get("llm-rubric") == "judge" else None
        ),
        {"llm-rubric": check_choice("judge")},
    ),
    StrategyKind(
        "openai-evals",
        "an OpenAI Evals basic class (Match, Includes, FuzzyMatch, JsonMatch), its semantics",
        lambda o, j: OpenAIEvalsMatch(
            o.get("class", "Match"),
            ignore_case=o.get("ignore-case", False),
            name=o["name"],
            threshold=o.get("threshold", 1.0),
        ),
        {
            "class": check_choice(*OPENAI_EVALS_CLASSES),
            "ignore-case": check_choice(True, False),
            "threshold": check_fraction,
        },
    ),
    OPENAI_GRADER_KIND,
    StrategyKind(
        "lm-eval-exact-match",
        "lm-evaluation-harness's exact_match (regexes removed, then exact equality)",
        lambda o, j: LmEvalExactMatch(
            ignore_case=o.get("ignore-case", False),
            ignore_punctuation=o.get("ignore-punctuation", False),
            regexes_to_ignore=o.get("regexes-to-ignore", ()),
            name=o["name"],
        ),
        {
            "ignore-case": check_choice(True, False),
            "ignore-punctuation": check_choice(True, False),
            "regexes-to-ignore": _check_patterns,
        },
    ),
    StrategyKind(
        "inspect-scorer",
        "an inspect_ai text scorer (match, includes), its semantics",
        lambda o, j: InspectScorer(
            o.get("scorer", "match"),
            location=o.get("location", "end"),
            ignore_case=o.get("ignore-case", True),
            name=o["name"],
        ),
        {
            "scorer": check_choice(*INSPECT_SCORERS),
            "location": check_choice(*INSPECT_LOCATIONS),
            "ignore-case": check_choice(True, False),
        },
    ),
)
