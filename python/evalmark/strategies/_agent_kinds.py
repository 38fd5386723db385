"""Strategy kinds for the retrieval, agent, JSON-key and guardrail checks, and the judged
agent checks through the prompt catalog. :mod:`evalmark.strategies._builtin_kinds` lists them
after the text, metric and judge kinds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.errors import StrategyError
from evalmark.models._named import EMBEDDING_MODEL_NAMES
from evalmark.strategies._agent_judges import PlanAdherenceJudge, TrajectoryJudge
from evalmark.strategies._context_metrics import ContextualPrecision, ContextualRecall
from evalmark.strategies._faithfulness import Faithfulness
from evalmark.strategies._guardrail import Guardrail
from evalmark.strategies._json_keys import JsonKeysMatch
from evalmark.strategies._kinds import Checker, StrategyKind, check_choice, check_fraction
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._plan import PlanAdherence
from evalmark.strategies._trajectory import TrajectoryMatch

__all__ = ["AGENT_KINDS"]

Options = Mapping[str, Any]
_MATCH_MODES = ("strict", "unordered", "subset", "superset")
_ARGUMENT_MODES = ("exact", "ignore", "subset", "superset")


def _check_text_list(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return None
    return 'expected a list of non-empty strings, e.g. ["id", "created"]'


_check_text_list.schema = {"type": "array", "items": {"type": "string", "minLength": 1}}  # type: ignore[attr-defined]


def _check_tool_modes(value: Any) -> str | None:
    if isinstance(value, dict) and all(
        isinstance(k, str) and v in _ARGUMENT_MODES for k, v in value.items()
    ):
        return None
    return "expected a mapping from tool name to " + ", ".join(_ARGUMENT_MODES)


_check_tool_modes.schema = {  # type: ignore[attr-defined]
    "type": "object",
    "additionalProperties": {"enum": list(_ARGUMENT_MODES)},
}


def _judged_options(options: Options) -> dict[str, Any]:
    return {
        "repeats": options.get("repeats", 1),
        "reducer": options.get("reducer", "majority"),
        "name": options["name"],
    }


def _trajectory_match(o: Options, j: Any) -> TrajectoryMatch:
    return TrajectoryMatch(
        o.get("mode", "strict"),
        arguments=o.get("arguments", "exact"),
        tool_arguments=o.get("tool-arguments"),
        name=o["name"],
    )


def _json_keys(o: Options, j: Any) -> JsonKeysMatch:
    return JsonKeysMatch(
        exclude_keys=o.get("exclude-keys", ()),
        aggregator=o.get("aggregator", "all"),
        threshold=o.get("threshold", 1.0),
        lists=o.get("lists", "ordered"),
        extra_keys=o.get("extra-keys", "ignore"),
        list_aggregator=o.get("list-aggregator"),
        name=o["name"],
    )


_THRESHOLD: Mapping[str, Checker] = {"threshold": check_fraction}
_OVERLAP: Mapping[str, Checker] = {"threshold": check_fraction, "min-overlap": check_fraction}

_CONTEXT: Mapping[str, Checker] = {
    "threshold": check_fraction,
    "relevance": check_choice("lexical", "embedding", "judge"),
    "min-overlap": check_fraction,
    "min-similarity": check_fraction,
    "model": check_choice(*EMBEDDING_MODEL_NAMES),
}


def _embedding_option(o: Options, relevance: str) -> str | None:
    if "model" in o and relevance != "embedding":
        raise StrategyError(
            f"check {o['name']!r}: model: names the embedding model of relevance: embedding; "
            f"this check's relevance is {relevance}"
        )
    model: str | None = o.get("model")
    return model


def _context_options(o: Options, judge: Any) -> dict[str, Any]:
    relevance = o.get("relevance", "lexical")
    if relevance == "judge" and judge is None:
        raise StrategyError(
            f"check {o['name']!r}: relevance: judge asks the suite's judge model whether each "
            "chunk is relevant; set judge: in the suite (a cassette records its calls)"
        )
    return {
        "relevance": relevance,
        "model": judge if relevance == "judge" else _embedding_option(o, relevance),
        "min_overlap": o.get("min-overlap", 0.5),
        "min_similarity": o.get("min-similarity", 0.5),
        "name": o["name"],
    }


AGENT_KINDS: tuple[StrategyKind, ...] = (
    StrategyKind(
        "contextual-precision",
        "rank-weighted precision of the retrieved chunks relevant to the case's context",
        lambda o, j: ContextualPrecision(o.get("threshold", 0.5), **_context_options(o, j)),
        _CONTEXT,
    ),
    StrategyKind(
        "contextual-recall",
        "share of the case's context statements attributable to the retrieved chunks",
        lambda o, j: ContextualRecall(o.get("threshold", 0.5), **_context_options(o, j)),
        _CONTEXT,
    ),
    StrategyKind(
        "faithfulness",
        "share of the answer's sentences supported by the retrieval context (word overlap)",
        lambda o, j: Faithfulness(
            o.get("threshold", 0.5), min_overlap=o.get("min-overlap", 0.6), name=o["name"]
        ),
        _OVERLAP,
    ),
    StrategyKind(
        "plan-adherence",
        "share of the plan's steps found in order in the reasoning trace (word overlap)",
        lambda o, j: PlanAdherence(
            o.get("plan"),
            min_overlap=o.get("min-overlap", 0.5),
            threshold=o.get("threshold", 1.0),
            name=o["name"],
        ),
        {**_OVERLAP, "plan": _check_text_list},
    ),
    StrategyKind(
        "trajectory-match",
        "the tool calls made against the expected ones (strict, unordered, subset, superset)",
        _trajectory_match,
        {
            "mode": check_choice(*_MATCH_MODES),
            "arguments": check_choice(*_ARGUMENT_MODES),
            "tool-arguments": _check_tool_modes,
        },
    ),
    StrategyKind(
        "json-keys",
        "JSON compared key by key with the expected output",
        _json_keys,
        {
            **_THRESHOLD,
            "exclude-keys": _check_text_list,
            "aggregator": check_choice("all", "average"),
            "list-aggregator": check_choice("all", "average"),
            "lists": check_choice("ordered", "unordered", "subset", "superset"),
            "extra-keys": check_choice("ignore", "fail"),
        },
    ),
    StrategyKind(
        "guardrail",
        "an ACCEPT/REJECT decision against the expected one (positive: ACCEPT or REJECT)",
        lambda o, j: Guardrail(positive=o.get("positive", "ACCEPT"), name=o["name"]),
        {"positive": check_choice("ACCEPT", "REJECT")},
    ),
    StrategyKind(
        "trajectory-judge",
        "a judge: is the agent's trajectory accurate (against a reference when there is one)?",
        lambda o, j: TrajectoryJudge(j, reference=o.get("reference", "auto"), **_judged_options(o)),
        {"reference": check_choice("auto", "always", "never")},
        prompt="catalog",
    ),
    StrategyKind(
        "plan-adherence-judge",
        "a judge: did the agent follow its plan, step by step?",
        lambda o, j: PlanAdherenceJudge(j, plan=o.get("plan"), **_judged_options(o)),
        {"plan": _check_text_list},
        prompt="catalog",
    ),
    StrategyKind(
        "faithfulness-judge",
        "a judge: is every claim of the answer supported by the retrieval context?",
        lambda o, j: LLMJudge("rag-groundedness", j, **_judged_options(o)),
        prompt="catalog",
    ),
)
