"""Reading a judge's reply in its parse mode, and the result of several replies: the pieces of
the one judge check, :class:`~evalmark.strategies._llm_judge.LLMJudge`.

A reply is read into a :class:`JudgeOutcome` (pass/fail, a score in [0, 1], the raw value).
``verdict``: the last ``VERDICT: yes|no`` line, else a reply starting with yes or no;
``grade``: the last ``GRADE: n`` line, else the first whole number, on the scale ``grades``
(passes at ``min_grade``; score (grade − low) / (high − low)); ``json``: a JSON object
``{"score", "passed", "explanation"}`` (:func:`~evalmark.strategies._parsing.parse_json_judgment`);
``structured``: the JSON shape the judge was asked for (true/false, continuous, choices or an
output schema), read by :class:`~evalmark.models._structured.ResponseSpec`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evalmark.errors import JudgeReplyError
from evalmark.models._prompts.answers import ParseMode
from evalmark.models._prompts.model import JudgePrompt
from evalmark.models._values import ChatReply
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import strategy_name
from evalmark.strategies._parsing import (
    parse_grade_reply,
    parse_json_judgment,
    parse_verdict_reply,
)
from evalmark.strategies._votes import REDUCERS, Reducer, Vote, reduce_votes

__all__ = [
    "REDUCERS",
    "JudgeOutcome",
    "LineReading",
    "Reducer",
    "Vote",
    "afallback_result",
    "fallback_result",
    "graded_prompt",
    "reduce_votes",
    "refusal",
    "short_text",
]


@dataclass(frozen=True, slots=True)
class JudgeOutcome:
    """One judge call read: the feedback key, pass/fail, a score in [0, 1], the raw score
    (a bool, a grade, a number, or for a schema the whole reply), the reasoning, the parsed
    JSON reply (empty for a line reply), the mode that was used (``native``, ``prompted``),
    the reply's text, and whether a noisy judge flipped it (None when unknown)."""

    key: str
    passed: bool
    score: float
    value: Any
    reasoning: str
    reply: dict[str, Any]
    mode: str
    raw: str
    flipped: bool | None = None


def short_text(text: str, limit: int = 500) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def refusal(reply: ChatReply, prompt: str) -> JudgeReplyError | None:
    """The error of a reply the judge refused to give, or None."""
    if not reply.refused:
        return None
    return JudgeReplyError(
        prompt, "refused", f"the judge refused: {reply.refusal or 'content filter'}", reply.text
    )


@dataclass(frozen=True, slots=True)
class LineReading:
    """How a ``verdict``, ``grade`` or ``json`` reply is read and several are combined (see
    the module docstring). ``key`` is the feedback key; ``prompt`` the prompt's name."""

    parse: ParseMode
    key: str
    prompt: str
    grades: tuple[int, int] = (1, 5)
    min_grade: int = 4
    clamp: bool = False
    threshold: float = 0.5
    score_range: tuple[float, float] = (0.0, 1.0)

    def read(self, reply: ChatReply, mode: str, expected: str | None = None) -> JudgeOutcome:
        """One reply as an outcome; :class:`~evalmark.errors.JudgeParseError` when unreadable.
        (``expected`` is for the structured reading's classifiers; unused here.)"""
        text = reply.text
        flipped = reply.metadata.get("flipped") if reply.metadata else None
        flag = flipped if isinstance(flipped, bool) else None
        key = self.key
        if self.parse == "verdict":
            passed = parse_verdict_reply(text)
            score = 1.0 if passed else 0.0
            return JudgeOutcome(key, passed, score, passed, text, {}, mode, text, flag)
        if self.parse == "grade":
            low, high = self.grades
            grade = parse_grade_reply(text, low, high, clamp=self.clamp)
            score = (grade - low) / (high - low)
            passed = grade >= self.min_grade
            return JudgeOutcome(key, passed, score, grade, text, {}, mode, text, flag)
        judgment = parse_json_judgment(text, threshold=self.threshold, score_range=self.score_range)
        reasoning = judgment.explanation or text
        score = judgment.score
        return JudgeOutcome(key, judgment.passed, score, score, reasoning, {}, mode, text, flag)

    def result(
        self,
        read: Sequence[JudgeOutcome],
        errors: Sequence[EvaluationFault],
        *,
        judge: str,
        reducer: Reducer,
        repeats: int,
        expected: str | None = None,
    ) -> EvaluationResult:
        """The result of the replies: the votes combined by ``reducer``, the first reply as
        the explanation."""
        metadata: dict[str, Any] = {
            "judge": judge,
            "template": self.prompt,
            "votes": [{"passed": o.passed, "score": o.score} for o in read],
        }
        flips = [o.flipped for o in read if o.flipped is not None]
        if flips:
            metadata["flipped"] = sum(flips)
        if errors:
            metadata["failed_calls"] = [e.to_dict() for e in errors]
        if repeats > 1:
            metadata["reducer"] = reducer
        if not read:
            error = errors[0]
            return EvaluationResult(
                False, 0.0, f"the judge failed: {error.message}", metadata, error=error
            )
        votes = [Vote(o.passed, o.score, o.reasoning, o.flipped) for o in read]
        passed, score = reduce_votes(votes, reducer, self.threshold)
        if len(read) == 1:
            explanation = short_text(read[0].reasoning)
        else:
            explanation = (
                f"{sum(o.passed for o in read)} of {len(read)} judge votes passed "
                f"({reducer}); first reply: {short_text(read[0].reasoning, 300)}"
            )
        return EvaluationResult(passed, score, explanation, metadata)


def _after_fallback(
    result: EvaluationResult, fallback: object, errors: Sequence[EvaluationFault]
) -> EvaluationResult:
    message = errors[0].message if errors else "no verdict"
    fallback_name = strategy_name(fallback)
    explanation = f"the judge failed ({message}); fallback {fallback_name}: {result.explanation}"
    return EvaluationResult(
        result.passed,
        result.score,
        explanation,
        {
            **result.metadata,
            "fallback": fallback_name,
            "judge_errors": [e.to_dict() for e in errors],
        },
        error=result.error,
    )


def fallback_result(
    fallback: Any, sample: Sample, output: Any, errors: Sequence[EvaluationFault]
) -> EvaluationResult:
    """The ``fallback`` strategy's result when every judge call failed, noting the failure."""
    try:
        result = fallback.evaluate(sample, output)
    except Exception as exc:
        result = EvaluationResult.from_error("strategy", exc)
    return _after_fallback(result, fallback, errors)


async def afallback_result(
    fallback: Any, sample: Sample, output: Any, errors: Sequence[EvaluationFault]
) -> EvaluationResult:
    """Async :func:`fallback_result`."""
    aevaluate = getattr(fallback, "aevaluate", None)
    try:
        if aevaluate is not None and asyncio.iscoroutinefunction(aevaluate):
            result = await aevaluate(sample, output)
        else:
            result = fallback.evaluate(sample, output)
    except Exception as exc:
        result = EvaluationResult.from_error("strategy", exc)
    return _after_fallback(result, fallback, errors)


def graded_prompt(
    prompt: JudgePrompt, parse: ParseMode, grades: tuple[int, int] | None
) -> JudgePrompt:
    """``prompt`` on the grade scale ``grades``, or a ValueError when the scale cannot be
    honoured. None keeps the prompt's scale. A scale is refused for a reply that is not
    graded (``parse`` other than ``grade``) and for a prompt whose own text is written for
    another scale (every prompt but your own template, e.g. the built-in ``rubric``, 1..5);
    your own template takes it, and its answer instruction names it."""
    if grades is None:
        return prompt
    low, high = grades
    if low >= high:
        raise ValueError(f"grades must be (low, high) with low < high, got {grades}")
    if (int(low), int(high)) == prompt.grades:
        return prompt
    if parse != "grade":
        raise ValueError(
            f"grades={grades} applies to graded replies, but judge prompt {prompt.name!r} is "
            f"read in {parse!r} mode; pass parse='grade' or leave grades out"
        )
    if prompt.group != "custom":
        p_low, p_high = prompt.grades
        raise ValueError(
            f"judge prompt {prompt.name!r} is written for grades {p_low}..{p_high}, so "
            f"grades={grades} cannot be honoured; leave grades out or give a template of your "
            "own that describes the scale (a string with {variables})"
        )
    return replace(prompt, grades=(int(low), int(high)))
