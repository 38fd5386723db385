"""The ``llm-judge`` strategy kind: the judge check (:class:`~evalmark.strategies.LLMJudge`)
with any judge prompt named in a suite file::

    strategies:
      - llm-judge: {prompt: conciseness}
      - llm-judge: {prompt: correctness, score: continuous, threshold: 0.7, name: correct}
      - llm-judge: {prompt: rag-groundedness, choices: [0, 0.5, 1], mode: prompted, name: grounded}
      - llm-judge: {prompt: relevancy, parse: structured, name: relevant-json}

Options: ``prompt`` (a prompt of the catalog or a line-verdict one; ``answer-relevance`` when
not given), ``parse`` (``structured``, ``verdict``, ``grade``, ``json``; default the prompt's),
``score``
(``bool`` or ``continuous``), ``choices`` (numbers; they win over ``score``), ``reasoning``
(true/false), ``mode`` (``native``, ``prompted``, ``auto``), ``threshold`` (the pass mark of
a numeric score),
``few-shot`` (worked examples: mappings of the prompt's variables with ``score`` and
``reasoning``), ``feedback-key``, and as for every judged kind ``name``, ``repeats`` and
``reducer``. Give each ``llm-judge`` check of a suite its own ``name``.

``template`` (your own prompt text, sent as written) with ``choice-strings``, ``choice-scores``
and ``choice-at`` makes a judge that answers with one of your choices
(:mod:`~evalmark.strategies._choice_judge`): how model-graded checks are imported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from evalmark.models._prompts.answers import PARSE_MODES
from evalmark.models._prompts.catalog import prompt_names
from evalmark.models._structured import MODES
from evalmark.strategies._choice_judge import CHOICE_AT, ChoiceJudge
from evalmark.strategies._kinds import (
    StrategyKind,
    check_choice,
    check_fraction,
    check_text,
)
from evalmark.strategies._llm_judge import LLMJudge

__all__ = ["DEFAULT_PROMPT", "LLM_JUDGE_KIND", "LLM_JUDGE_OPTIONS"]

DEFAULT_PROMPT = "answer-relevance"

Checker = Callable[[Any], str | None]


def _check_prompt(value: Any) -> str | None:
    names = prompt_names()
    if isinstance(value, str) and value in names:
        return None
    return f"expected a judge prompt ({', '.join(names)}); see evalmark prompts ls"


_check_prompt.schema = {"enum": list(prompt_names())}  # type: ignore[attr-defined]


def _check_choices(value: Any) -> str | None:
    if (
        isinstance(value, list)
        and len(value) >= 2
        and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
        and len(set(value)) == len(value)
    ):
        return None
    return "expected a list of at least two distinct numbers, e.g. [0, 0.5, 1]"


def _check_bool(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected true or false"


def _check_examples(value: Any) -> str | None:
    if isinstance(value, list) and all(isinstance(v, dict) and "score" in v for v in value):
        return None
    return (
        "expected a list of worked examples, each a mapping of the prompt's variables with a "
        "score (and a reasoning)"
    )


# The JSON Schema of each option's values, read by the suite file schema.
_check_choices.schema = {"type": "array", "items": {"type": "number"}, "minItems": 2}  # type: ignore[attr-defined]
_check_bool.schema = {"type": "boolean"}  # type: ignore[attr-defined]
_check_examples.schema = {"type": "array", "items": {"type": "object", "required": ["score"]}}  # type: ignore[attr-defined]


def _check_choice_strings(value: Any) -> str | None:
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return None if len(set(value)) == len(value) else "expected distinct choices"
    return "expected a list of the choices' texts, e.g. [Y, N]"


def _check_choice_scores(value: Any) -> str | None:
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in value.items()
    ):
        return None
    return "expected a mapping of each choice to its score, e.g. {Y: 1.0, N: 0.0}"


_check_choice_strings.schema = {"type": "array", "items": {"type": "string"}, "minItems": 1}  # type: ignore[attr-defined]
_check_choice_scores.schema = {"type": "object", "additionalProperties": {"type": "number"}}  # type: ignore[attr-defined]

LLM_JUDGE_OPTIONS: Mapping[str, Checker] = {
    "prompt": _check_prompt,
    "parse": check_choice(*PARSE_MODES),
    "score": check_choice("bool", "continuous"),
    "choices": _check_choices,
    "reasoning": _check_bool,
    "mode": check_choice(*MODES),
    "threshold": check_fraction,
    "few-shot": _check_examples,
    "feedback-key": check_text,
    "template": check_text,
    "choice-strings": _check_choice_strings,
    "choice-scores": _check_choice_scores,
    "choice-at": check_choice(*CHOICE_AT),
}


def _build(options: Mapping[str, Any], judge: Any) -> LLMJudge | ChoiceJudge:
    if "template" in options:
        return ChoiceJudge(
            options["template"],
            judge,
            choice_strings=options.get("choice-strings") or ["yes", "no"],
            choice_scores=options.get("choice-scores"),
            choice_at=options.get("choice-at", "last"),
            threshold=options.get("threshold", 0.5),
            name=options["name"],
        )
    prompt = options.get("prompt", DEFAULT_PROMPT)
    return LLMJudge(
        prompt,
        judge,
        parse=options.get("parse"),
        score=options.get("score"),
        choices=options.get("choices"),
        reasoning=options.get("reasoning", True),
        few_shot=options.get("few-shot", ()),
        mode=options.get("mode", "auto"),
        threshold=options.get("threshold", 0.5),
        feedback_key=options.get("feedback-key"),
        repeats=options.get("repeats", 1),
        reducer=options.get("reducer", "majority"),
        name=options["name"],
    )


LLM_JUDGE_KIND = StrategyKind(
    "llm-judge",
    "a judge with any judge prompt, in any parse mode (evalmark prompts ls)",
    _build,
    LLM_JUDGE_OPTIONS,
    prompt="catalog",
)
