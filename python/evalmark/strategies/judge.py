"""``JudgeStrategy``: a chat model judges the output with a prompt template.

The judge is any chat model (live, recorded in a cassette, ``RuleJudge``, ``NoisyJudge``).
Each call is made inside ``evalmark.models.call_context(run_index=..., sample=<sample name>,
check=<check>, repeat=<r>)``: ``run_index`` comes from the scorer's context (0 outside one);
``check`` is the strategy's name, or ``"<name>#<r>"`` when ``repeats > 1`` so that a
``NoisyJudge`` draws each repeat independently; ``repeat`` lets a cassette replay the r-th
recording whatever the scheduling.

Template variables are filled from the sample and the output: ``question`` (the TestCase's
``input``, else the sample's first parameter), ``response`` (the output's text),
``expected_output`` (the sample's, or its expected outputs joined) and ``context`` (the
TestCase's retrieval context, else the sample's context).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from evalmark.data.results import EvaluationFault, EvaluationResult
from evalmark.data.samples import Sample
from evalmark.errors import JudgeParseError
from evalmark.models.context import call_context, current_call
from evalmark.models.prompts import PROMPTS, JudgePrompt
from evalmark.models.protocols import ChatModel, achat_of, model_id_of
from evalmark.models.values import ChatReply
from evalmark.strategies.base import as_strategy, strategy_name
from evalmark.strategies.judge_inputs import (
    ExtraVariables,
    TextTemplate,
    extra_names,
    extra_values,
    judge_variables,
)
from evalmark.strategies.parsing import (
    check_score_range,
    parse_grade_reply,
    parse_json_judgment,
    parse_verdict_reply,
)
from evalmark.strategies.votes import REDUCERS, Reducer, Vote, reduce_votes

__all__ = ["REDUCERS", "JudgeStrategy", "Reducer", "Vote", "judge_variables", "reduce_votes"]

ParseMode = Literal["verdict", "grade", "json"]


class JudgeStrategy:
    """A chat model judges each output.

    ``template``: a :class:`~evalmark.models.prompts.JudgePrompt`, the name of one of evalmark's
    (``"relevancy"``, ``"groundedness"``, ``"correctness"``, ``"rubric"``), or a string with
    ``{variables}`` (then give ``parse``). ``parse``: ``"verdict"`` (yes/no), ``"grade"`` (a
    whole grade on ``grades``; passes at ``min_grade``, default the second highest; score
    (grade − low) / (high − low)) or ``"json"`` (``{"score", "passed", "explanation"}``);
    by default from the template's kind. ``repeats``: ask ``k`` times and combine with
    ``reducer`` (majority, all, any, mean; ``threshold`` is the mean's pass mark).
    ``fallback``: a strategy used when the judge fails (every call raised or gave an unreadable
    reply); without one such a sample is an error result (kind ``judge`` or ``parse``, the raw
    reply kept). ``params`` are passed to ``model.chat``. ``variables``: extra template
    variables, a mapping or a function ``(sample, output) -> mapping`` called for each call;
    they fill (and may override) the template's variables of those names.
    """

    def __init__(
        self,
        model: ChatModel | Any,
        template: JudgePrompt | str,
        *,
        parse: ParseMode | None = None,
        grades: tuple[int, int] = (1, 5),
        min_grade: int | None = None,
        clamp: bool = False,
        repeats: int = 1,
        reducer: Reducer = "majority",
        threshold: float = 0.5,
        score_range: tuple[float, float] = (0.0, 1.0),
        fallback: object | None = None,
        name: str | None = None,
        params: Mapping[str, Any] | None = None,
        cache: bool = False,
        variables: ExtraVariables | None = None,
    ) -> None:
        if not callable(getattr(model, "chat", None)):
            raise TypeError(f"the judge must be a chat model with chat(messages), got {model!r}")
        self.model = model
        self.prompt: JudgePrompt | TextTemplate
        if isinstance(template, JudgePrompt):
            self.prompt = template
        elif isinstance(template, str) and template in PROMPTS:
            self.prompt = PROMPTS[template]
        elif isinstance(template, str) and "{" in template:
            self.prompt = TextTemplate(template, extra=extra_names(variables))
        else:
            raise ValueError(
                f"unknown judge template {template!r}: give a JudgePrompt, one of "
                f"{', '.join(sorted(PROMPTS))}, or a template string with {{variables}}"
            )
        kind = getattr(self.prompt, "kind", None)
        self.parse: ParseMode = parse or ("grade" if kind == "graded" else "verdict")
        if self.parse not in ("verdict", "grade", "json"):
            raise ValueError(f"parse must be 'verdict', 'grade' or 'json', got {self.parse!r}")
        prompt_grades = getattr(self.prompt, "grades", ())
        low, high = (min(prompt_grades), max(prompt_grades)) if prompt_grades else grades
        if low >= high:
            raise ValueError(f"grades must be (low, high) with low < high, got {grades}")
        self.grades = (int(low), int(high))
        self.min_grade = high - 1 if min_grade is None else int(min_grade)
        if not low <= self.min_grade <= high:
            raise ValueError(f"min_grade {self.min_grade} is outside the grades {low}..{high}")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise ValueError(f"repeats must be a whole number >= 1, got {repeats!r}")
        if reducer not in REDUCERS:
            raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, got {reducer!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.clamp = clamp
        self.repeats = repeats
        self.reducer: Reducer = reducer
        self.threshold = float(threshold)
        self.score_range = check_score_range(score_range)
        self.cache = bool(cache)
        self._cache: dict[tuple[int, str], EvaluationResult] = {}
        self.fallback = as_strategy(fallback) if fallback is not None else None
        self.params = dict(params or {})
        self.variables = variables
        self.name = name or f"Judge({self.prompt.name})"

    # ------------------------------------------------------------------ pieces

    def messages(self, sample: Sample, output: Any) -> list[dict[str, str]]:
        """The chat messages sent to the judge for this sample and output."""
        values = judge_variables(sample, output, self.prompt.variables, strategy=self.name)
        values.update(extra_values(self.variables, sample, output, self.prompt.variables))
        try:
            return self.prompt.render(**values)
        except ValueError as exc:
            raise ValueError(f"{self.name}: sample '{sample.name}': {exc}") from None

    def read(self, reply: ChatReply) -> Vote:
        """One reply as a vote; :class:`JudgeParseError` when unreadable."""
        text = reply.text
        flipped = reply.metadata.get("flipped") if reply.metadata else None
        flag = flipped if isinstance(flipped, bool) else None
        if self.parse == "verdict":
            passed = parse_verdict_reply(text)
            return Vote(passed, 1.0 if passed else 0.0, text, flag)
        if self.parse == "grade":
            low, high = self.grades
            grade = parse_grade_reply(text, low, high, clamp=self.clamp)
            return Vote(grade >= self.min_grade, (grade - low) / (high - low), text, flag)
        judgment = parse_json_judgment(text, threshold=self.threshold, score_range=self.score_range)
        return Vote(judgment.passed, judgment.score, judgment.explanation or text, flag)

    def _checks(self, sample: Sample) -> list[tuple[int, str]]:
        if self.repeats == 1:
            return [(0, self.name)]
        return [(r, f"{self.name}#{r}") for r in range(self.repeats)]

    def _run_index(self) -> int:
        context = current_call()
        return context.run_index if context is not None else 0

    # ------------------------------------------------------------------ evaluate

    def _cache_key(self, messages: list[dict[str, str]], run_index: int) -> tuple[int, str]:
        return run_index, json.dumps(messages, sort_keys=True, ensure_ascii=False)

    def _finish(
        self, key: tuple[int, str], messages: list[dict[str, str]], result: EvaluationResult
    ) -> EvaluationResult:
        """Attach the prompt to a result that did not pass, and remember it when caching."""
        if not result.passed:
            result = result.with_metadata({"judge_prompt": messages})
        if self.cache:
            self._cache[key] = result
        return result

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge (``repeats`` times) and combine the verdicts. With ``cache=True``,
        identical prompts within one run are asked once. A result that did not pass carries
        the exact messages sent in ``metadata["judge_prompt"]``."""
        messages = self.messages(sample, output)
        run_index = self._run_index()
        key = self._cache_key(messages, run_index)
        if self.cache and key in self._cache:
            return self._cache[key]
        outcomes: list[Vote | EvaluationFault] = []
        for repeat, check in self._checks(sample):
            with call_context(run_index=run_index, sample=sample.name, check=check, repeat=repeat):
                outcomes.append(self._ask(lambda: self.model.chat(messages, **self.params)))
        result = self._result(sample, output, outcomes, self._fallback_sync)
        assert result is not None
        return self._finish(key, messages, result)

    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Async :meth:`evaluate`; the repeats are asked one after another."""
        messages = self.messages(sample, output)
        run_index = self._run_index()
        key = self._cache_key(messages, run_index)
        if self.cache and key in self._cache:
            return self._cache[key]

        async def ask(repeat: int, check: str) -> Vote | EvaluationFault:
            with call_context(run_index=run_index, sample=sample.name, check=check, repeat=repeat):
                try:
                    reply = await achat_of(self.model, messages, **self.params)
                except Exception as exc:
                    return EvaluationFault.from_exception("judge", exc)
                return self._read_safely(reply)

        # One after another, so a scorer's concurrency bounds the judge calls in flight too.
        outcomes = [await ask(r, c) for r, c in self._checks(sample)]
        result = self._result(sample, output, outcomes, None)
        if result is None:
            result = await self._fallback_async(sample, output, outcomes)
        return self._finish(key, messages, result)

    def _ask(self, call: Callable[[], ChatReply]) -> Vote | EvaluationFault:
        try:
            reply = call()
        except Exception as exc:
            return EvaluationFault.from_exception("judge", exc)
        return self._read_safely(reply)

    def _read_safely(self, reply: object) -> Vote | EvaluationFault:
        if not isinstance(reply, ChatReply):
            text = getattr(reply, "text", reply)
            if not isinstance(text, str):
                return EvaluationFault.from_exception(
                    "judge", TypeError(f"the judge returned {type(reply).__name__}, not a reply")
                )
            reply = ChatReply(text=text)
        try:
            return self.read(reply)
        except JudgeParseError as exc:
            return EvaluationFault.from_exception("parse", exc)

    def _metadata(self, votes: Sequence[Vote], errors: Sequence[EvaluationFault]) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "judge": model_id_of(self.model),
            "template": self.prompt.name,
            "votes": [{"passed": v.passed, "score": v.score} for v in votes],
        }
        flips = [v.flipped for v in votes if v.flipped is not None]
        if flips:
            metadata["flipped"] = sum(flips)
        if errors:
            metadata["failed_calls"] = [e.to_dict() for e in errors]
        if self.repeats > 1:
            metadata["reducer"] = self.reducer
        return metadata

    def _result(
        self,
        sample: Sample,
        output: Any,
        outcomes: list[Vote | EvaluationFault],
        fallback: Callable[..., EvaluationResult] | None,
    ) -> EvaluationResult | None:
        votes = [o for o in outcomes if isinstance(o, Vote)]
        errors = [o for o in outcomes if isinstance(o, EvaluationFault)]
        if not votes:
            if fallback is None and self.fallback is not None:
                return None  # the async caller runs the fallback
            if fallback is not None and self.fallback is not None:
                return fallback(sample, output, outcomes)
            error = errors[0]
            return EvaluationResult(
                False,
                0.0,
                f"the judge failed: {error.message}",
                self._metadata(votes, errors),
                error=error,
            )
        passed, score = reduce_votes(votes, self.reducer, self.threshold)
        if len(votes) == 1:
            explanation = _reply_text(votes[0].reply)
        else:
            explanation = (
                f"{sum(v.passed for v in votes)} of {len(votes)} judge votes passed "
                f"({self.reducer}); first reply: {_reply_text(votes[0].reply, 300)}"
            )
        return EvaluationResult(passed, score, explanation, self._metadata(votes, errors))

    def _fallback_note(self, outcomes: Sequence[Vote | EvaluationFault]) -> tuple[str, list[Any]]:
        errors = [o for o in outcomes if isinstance(o, EvaluationFault)]
        return errors[0].message if errors else "no verdict", [e.to_dict() for e in errors]

    def _fallback_sync(
        self, sample: Sample, output: Any, outcomes: Sequence[Vote | EvaluationFault]
    ) -> EvaluationResult:
        assert self.fallback is not None
        try:
            result = self.fallback.evaluate(sample, output)
        except Exception as exc:
            result = EvaluationResult.from_error("strategy", exc)
        return self._after_fallback(result, outcomes)

    async def _fallback_async(
        self, sample: Sample, output: Any, outcomes: Sequence[Vote | EvaluationFault]
    ) -> EvaluationResult:
        assert self.fallback is not None
        aevaluate = getattr(self.fallback, "aevaluate", None)
        try:
            if aevaluate is not None and asyncio.iscoroutinefunction(aevaluate):
                result = await aevaluate(sample, output)
            else:
                result = self.fallback.evaluate(sample, output)
        except Exception as exc:
            result = EvaluationResult.from_error("strategy", exc)
        return self._after_fallback(result, outcomes)

    def _after_fallback(
        self, result: EvaluationResult, outcomes: Sequence[Vote | EvaluationFault]
    ) -> EvaluationResult:
        message, errors = self._fallback_note(outcomes)
        assert self.fallback is not None
        fallback_name = strategy_name(self.fallback)
        explanation = (
            f"the judge failed ({message}); fallback {fallback_name}: {result.explanation}"
        )
        return EvaluationResult(
            result.passed,
            result.score,
            explanation,
            {**result.metadata, "fallback": fallback_name, "judge_errors": errors},
            error=result.error,
        )

    def __repr__(self) -> str:
        return (
            f"JudgeStrategy(model={model_id_of(self.model)!r}, template={self.prompt.name!r}, "
            f"parse={self.parse!r}, repeats={self.repeats}, reducer={self.reducer!r}, "
            f"name={self.name!r})"
        )


def _reply_text(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
