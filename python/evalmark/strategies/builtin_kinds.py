"""The strategy kinds evalmark ships: deterministic checks, metrics, and one judged kind per
judge prompt. :mod:`evalmark.strategies.registry` starts from this list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.models.prompts import PROMPTS
from evalmark.strategies.agent_kinds import AGENT_KINDS
from evalmark.strategies.kinds import (
    StrategyKind,
    check_choice,
    check_fraction,
    check_grade,
    check_integer,
    check_positive_int,
)
from evalmark.strategies.llm_judge import LLMJudge
from evalmark.strategies.llm_judge_kind import LLM_JUDGE_KIND
from evalmark.strategies.metric import JsonMatch, Levenshtein, RougeL, SemanticSimilarity, TokenF1
from evalmark.strategies.overlap import Bleu, Chrf, RougeLsum, RougeN
from evalmark.strategies.retrieval import RetrievedSegments
from evalmark.strategies.text import Contains, ContainsFacts, ExactMatch, KeywordRelevance

__all__ = ["KINDS"]

Options = Mapping[str, Any]


def _semantic_similarity(options: Options, judge: Any) -> SemanticSimilarity:
    from evalmark.models import HashEmbedding

    model = HashEmbedding(dim=options.get("dim", 256), seed=options.get("seed", 0))
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
    StrategyKind(
        "token-f1",
        "SQuAD token F1 against the expected output",
        lambda o, j: TokenF1(o.get("threshold"), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "rouge-l",
        "ROUGE-L F-measure against the expected output",
        lambda o, j: RougeL(o.get("threshold"), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "rouge-n",
        "ROUGE-N F-measure against the expected output (n, stemmer: porter)",
        lambda o, j: RougeN(
            o.get("threshold"), n=o.get("n", 1), stemmer=o.get("stemmer"), name=o["name"]
        ),
        {
            **_THRESHOLD,
            "n": check_positive_int,
            "stemmer": check_choice("porter"),
        },
    ),
    StrategyKind(
        "rouge-lsum",
        "ROUGE-Lsum F-measure over newline-separated sentences (stemmer: porter)",
        lambda o, j: RougeLsum(o.get("threshold"), stemmer=o.get("stemmer"), name=o["name"]),
        {**_THRESHOLD, "stemmer": check_choice("porter")},
    ),
    StrategyKind(
        "bleu",
        "sentence BLEU as sacrebleu computes it, in [0, 1] (tokenizer: 13a, intl, none)",
        lambda o, j: Bleu(o.get("threshold"), tokenizer=o.get("tokenizer", "13a"), name=o["name"]),
        {**_THRESHOLD, "tokenizer": check_choice("13a", "intl", "none")},
    ),
    StrategyKind(
        "chrf",
        "sentence chrF as sacrebleu computes it, in [0, 1] (word-order: 2 for chrF++)",
        lambda o, j: Chrf(o.get("threshold"), word_order=o.get("word-order", 0), name=o["name"]),
        {**_THRESHOLD, "word-order": check_choice(0, 1, 2)},
    ),
    StrategyKind(
        "levenshtein",
        "edit similarity to the expected output",
        lambda o, j: Levenshtein(o.get("threshold"), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "semantic-similarity",
        "cosine (or dot product) of embeddings (offline hashing embedding)",
        _semantic_similarity,
        {
            "threshold": check_fraction,
            "dim": check_positive_int,
            "seed": check_integer,
            "similarity": check_choice("cosine", "dot"),
        },
    ),
    StrategyKind(
        "keyword-relevance",
        "the share of the sample's keywords (metadata 'keywords') found in the output",
        lambda o, j: KeywordRelevance(threshold=o.get("threshold", 1.0), name=o["name"]),
        _THRESHOLD,
    ),
    StrategyKind(
        "json-match",
        "JSON equal to the expected output",
        lambda o, j: JsonMatch(numbers=o.get("numbers", "value"), name=o["name"]),
        {"numbers": check_choice("value", "strict")},
    ),
    StrategyKind(
        "retrieved-segments",
        "every expected segment is in a retrieved item",
        lambda o, j: RetrievedSegments(o.get("threshold", 1.0), name=o["name"]),
        _THRESHOLD,
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
)
