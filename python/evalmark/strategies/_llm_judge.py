"""``LLMJudge``: the one judge check. A chat model judges outputs with any judge prompt: one
of the catalog, a line-verdict prompt (``relevancy``, ``groundedness``, ``agreement``,
``rubric``), your own :class:`~evalmark.models._prompts.JudgePrompt` or a template string with
``{variables}``.

::

    from evalmark.strategies._llm_judge import LLMJudge

    judge = LLMJudge("conciseness", model)                       # {"reasoning", "score": bool}
    judge = LLMJudge("correctness", model, score="continuous")   # score in [0, 1]
    judge = LLMJudge("correctness", model, choices=[0, 0.5, 1])  # one of the choices
    judge = LLMJudge("support-intent", model)                    # the prompt's own schema
    judge.grade(inputs="...", outputs="...")                     # one JudgeOutcome
    judge.evaluate_raw(outputs=[...])                            # the parsed, checked JSON
    judge = LLMJudge("relevancy", model)                         # VERDICT: yes|no
    judge = LLMJudge("rubric", model, min_grade=3)               # GRADE: n on 1..5
    judge = LLMJudge("Q: {question}\nA: {response}\nJSON?", model, parse="json")

``parse`` is how the reply is read (by default the prompt's own mode; see
:mod:`evalmark.models._prompts.answers`): ``structured`` (the catalog's JSON shapes),
``verdict``, ``grade`` or ``json``. Few-shot examples, repeats, ``cache`` and ``fallback``
work in every mode.

Choices win over ``score="continuous"``; with ``reasoning`` on (the default) the reply's
``reasoning`` comes before its score. ``few_shot`` examples are shown in the order given. An
``output_schema`` (a JSON Schema; needs ``jsonschema``, the ``judge`` extra) makes a
classifier: ``evaluate_raw`` returns the reply validated against it. ``mode``: ``native``
(``response_format`` json_schema), ``prompted`` (the schema in the prompt) or ``auto`` (native,
then prompted when the server says it does not support it; in replay, a native request that
was never recorded falls back to the prompted one when that one was recorded).

As a strategy it judges ``(sample, output)`` (variables from
:mod:`evalmark.strategies._judge_inputs`). Each call is made inside
``evalmark.models.call_context(run_index=..., sample=<sample name>, check=<check>,
repeat=<r>)``: ``check`` is the strategy's name, or ``"<name>#<r>"`` when ``repeats > 1`` so
that a ``NoisyJudge`` draws each repeat independently; ``repeat`` lets a cassette replay the
r-th recording whatever the scheduling. A structured result's explanation is the judge's
reasoning; its metadata holds the score, the reasoning, the mode used and the prompt. A line
result's explanation is the first reply; its metadata holds the ``template`` and the ``votes``.
A bad reply (empty, no JSON, wrong shape, a score outside the choices, no verdict) is a result
with a ``parse`` error quoting the reply; a failed call is a ``judge`` error; with a
``fallback`` strategy, that strategy answers instead. A classifier passes when its label equals the
sample's expected output (when it has one).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from evalmark._tracing._direct import recorded
from evalmark.errors import JudgeParseError, JudgeReplyError, PromptVariableError
from evalmark.models._attachments import ATTACHMENTS, externalize, with_attachments
from evalmark.models._context import call_context, current_call
from evalmark.models._prompts.answers import PARSE_MODES, ParseMode
from evalmark.models._prompts.catalog import get_prompt
from evalmark.models._prompts.model import FewShotExample, JudgePrompt
from evalmark.models._prompts.templates import template_prompt
from evalmark.models._protocols import ChatModel, model_id_of
from evalmark.models._structured import Mode, StructuredCaller
from evalmark.models._values import ChatReply
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import as_strategy, case_expected_output
from evalmark.strategies._judge import (
    REDUCERS,
    JudgeOutcome,
    LineReading,
    Reducer,
    afallback_result,
    fallback_result,
    graded_prompt,
    refusal,
)
from evalmark.strategies._judge_inputs import ExtraVariables, extra_names, prompt_values
from evalmark.strategies._judge_reply import as_reply, read_checked
from evalmark.strategies._judge_structured import StructuredReading
from evalmark.strategies._parsing import check_score_range

__all__ = ["JudgeOutcome", "LLMJudge"]


def _resolve(prompt: str | JudgePrompt, variables: ExtraVariables | None) -> JudgePrompt:
    if isinstance(prompt, str) and "{" in prompt:
        return template_prompt(prompt, extra=extra_names(variables))
    return get_prompt(prompt)


class LLMJudge:
    """A chat model judges each output with a judge prompt; see the module docstring.

    ``prompt``: a prompt name (:func:`~evalmark.models._prompts.get_prompt`), a
    :class:`JudgePrompt` or a template string. ``parse``: the parse mode (default the
    prompt's). Structured: ``score`` / ``choices`` / ``reasoning`` / ``output_schema`` / ``mode``
    and ``threshold`` (the pass mark of a numeric score). Grade: ``grades`` (low, high; default
    the prompt's), ``min_grade`` (default the second highest) and ``clamp``. JSON:
    ``threshold`` and ``score_range``. ``few_shot``: worked examples. ``repeats`` / ``reducer``:
    ask several times and combine (majority, all, any, mean). ``cache``: identical prompts
    within one run are asked once. ``fallback``: a strategy used when every call failed.
    ``feedback_key``: the name of the score (default the prompt's name); ``name``: the check's
    name in reports (default ``feedback_key``, or ``Judge(<prompt>)`` for a line reply).
    ``params`` go to every ``chat`` call. ``variables``: extra values of the prompt's
    variables, a mapping or a function ``(sample, output) -> mapping`` called for each call.
    """

    def __init__(
        self,
        prompt: str | JudgePrompt,
        model: ChatModel | Any,
        *,
        parse: ParseMode | None = None,
        score: str | Sequence[float] | None = None,
        choices: Sequence[float] | None = None,
        reasoning: bool = True,
        few_shot: Sequence[FewShotExample | Mapping[str, Any]] = (),
        output_schema: Mapping[str, Any] | None = None,
        mode: Mode = "auto",
        grades: tuple[int, int] | None = None,
        min_grade: int | None = None,
        clamp: bool = False,
        score_range: tuple[float, float] = (0.0, 1.0),
        feedback_key: str | None = None,
        threshold: float = 0.5,
        repeats: int = 1,
        reducer: Reducer = "majority",
        cache: bool = False,
        fallback: object | None = None,
        name: str | None = None,
        params: Mapping[str, Any] | None = None,
        variables: ExtraVariables | None = None,
    ) -> None:
        if not callable(getattr(model, "chat", None)):
            raise TypeError(f"the judge must be a chat model with chat(messages), got {model!r}")
        if isinstance(threshold, bool) or not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise ValueError(f"repeats must be a whole number >= 1, got {repeats!r}")
        if reducer not in REDUCERS:
            raise ValueError(f"reducer must be one of {', '.join(REDUCERS)}, got {reducer!r}")
        self.prompt = _resolve(prompt, variables)
        self.parse: ParseMode = parse or self.prompt.reply
        if self.parse not in PARSE_MODES:
            raise ValueError(f"parse must be one of {', '.join(PARSE_MODES)}, got {self.parse!r}")
        self.prompt = graded_prompt(self.prompt, self.parse, grades)
        low, high = self.grades = self.prompt.grades
        self.min_grade = high - 1 if min_grade is None else int(min_grade)
        if not low <= self.min_grade <= high:
            raise ValueError(f"min_grade {self.min_grade} is outside the grades {low}..{high}")
        self.model = model
        self.response = self.prompt.response(
            score=score, choices=choices, reasoning=reasoning, output_schema=output_schema
        )
        self.mode: Mode = mode if self.parse == "structured" else "prompted"
        self.threshold = float(threshold)
        self.examples = tuple(FewShotExample.of(e) for e in few_shot)
        if self.examples:
            # Rendering them once checks every example's variables and score.
            self.prompt.examples_text(self.examples, self.response, self.parse)
        self.repeats = repeats
        self.reducer: Reducer = reducer
        self.cache = bool(cache)
        self._cache: dict[tuple[int, str], EvaluationResult] = {}
        self.fallback = as_strategy(fallback) if fallback is not None else None
        self.feedback_key = feedback_key or self.prompt.name
        self.reading: LineReading | StructuredReading
        if self.parse == "structured":
            self.reading = StructuredReading(
                self.response, self.feedback_key, self.prompt.name, self.threshold
            )
        else:
            self.reading = LineReading(
                self.parse,
                self.feedback_key,
                self.prompt.name,
                self.grades,
                self.min_grade,
                clamp,
                self.threshold,
                check_score_range(score_range),
            )
        line_name = f"Judge({self.prompt.name})" if self.parse != "structured" else None
        self.name = name or (feedback_key if feedback_key else line_name) or self.feedback_key
        self.params = dict(params or {})
        self.variables = variables
        self._caller = StructuredCaller(model, self.mode, label=self.prompt.name)

    # ------------------------------------------------------------------ asking

    def messages(self, values: Mapping[str, Any], mode: Mode = "prompted") -> list[dict[str, Any]]:
        """The chat messages for ``values`` in ``mode`` (``native`` leaves the schema out);
        ``values["attachments"]`` (images, audio) go with the user message as content parts."""
        shown = {k: v for k, v in values.items() if k != ATTACHMENTS}
        rendered = self.prompt.render(
            shown, shape=self.response, mode=mode, few_shot=self.examples, parse=self.parse
        )
        return with_attachments(rendered, values.get(ATTACHMENTS))

    def response_format(self) -> dict[str, Any]:
        """The ``response_format`` of a native request."""
        return self.response.response_format(self.feedback_key)

    def _messages_for(self, values: Mapping[str, Any]) -> Callable[[Mode], list[dict[str, Any]]]:
        return lambda mode: self.messages(values, mode)

    def _call(self, values: Mapping[str, Any]) -> tuple[str, ChatReply]:
        return self._caller.ask(self._messages_for(values), self.response_format(), self.params)

    async def _acall(self, values: Mapping[str, Any]) -> tuple[str, ChatReply]:
        return await self._caller.aask(
            self._messages_for(values), self.response_format(), self.params
        )

    # ------------------------------------------------------------------ reading

    def read(
        self, reply: ChatReply | str, mode: str = "prompted", expected: str | None = None
    ) -> JudgeOutcome:
        """One reply read and checked; :class:`~evalmark.errors.JudgeParseError` (for a
        structured reply :class:`~evalmark.errors.JudgeReplyError`) when it is unusable: a
        reply that is no text (``None``, a number, a dict, bytes) or holds a value no check
        can use (a 400-digit score) included."""
        checked = as_reply(reply, self.prompt.name)
        refused = refusal(checked, self.prompt.name)
        if refused is not None:
            raise refused
        return read_checked(
            lambda: self.reading.read(checked, mode, expected), self.prompt.name, checked.text
        )

    # ------------------------------------------------------------------ direct use

    @recorded
    def grade(self, **values: Any) -> JudgeOutcome:
        """Judge the given variables once (outside an evaluation)."""
        mode, reply = self._call(values)
        return self.read(reply, mode)

    @recorded
    async def agrade(self, **values: Any) -> JudgeOutcome:
        """Async :meth:`grade`."""
        mode, reply = await self._acall(values)
        return self.read(reply, mode)

    def evaluate_raw(self, **values: Any) -> dict[str, Any]:
        """The judge's parsed reply for the given variables, checked against the shape (for an
        output schema, validated against it; :class:`~evalmark.errors.JudgeSchemaError` names
        the path)."""
        return self.grade(**values).reply

    async def aevaluate_raw(self, **values: Any) -> dict[str, Any]:
        """Async :meth:`evaluate_raw`."""
        return (await self.agrade(**values)).reply

    # ------------------------------------------------------------------ as a strategy

    def values(self, sample: Sample, output: Any) -> dict[str, Any]:
        """The prompt's variables for this sample and output, then the extra ``variables``."""
        return prompt_values(self.prompt, sample, output, strategy=self.name, extra=self.variables)

    def _checks(self) -> list[tuple[int, str]]:
        if self.repeats == 1:
            return [(0, self.name)]
        return [(r, f"{self.name}#{r}") for r in range(self.repeats)]

    def _prepare(self, sample: Sample, output: Any) -> dict[str, Any]:
        values = self.values(sample, output)
        try:
            self.prompt.check_values({k: v for k, v in values.items() if k != ATTACHMENTS})
        except PromptVariableError as exc:
            raise PromptVariableError(
                exc.prompt, exc.variable, exc.problem, f"{self.name}: sample '{sample.name}': {exc}"
            ) from None
        return values

    def _expected(self, sample: Sample, output: Any) -> str | None:
        if self.parse != "structured" or self.response.kind != "schema":
            return None
        return case_expected_output(sample, output)

    def _outcome(
        self, asked: Callable[[], tuple[str, ChatReply]], expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        try:
            mode, reply = asked()
        except Exception as exc:
            return EvaluationFault.from_exception("judge", exc)
        return self._read_safely(reply, mode, expected)

    async def _aoutcome(
        self, asked: Awaitable[tuple[str, ChatReply]], expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        try:
            mode, reply = await asked
        except Exception as exc:
            return EvaluationFault.from_exception("judge", exc)
        return self._read_safely(reply, mode, expected)

    def _read_safely(
        self, reply: Any, mode: str, expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        try:
            return self.read(reply, mode, expected)
        except JudgeParseError as exc:
            wrong_type = isinstance(exc, JudgeReplyError) and exc.problem == "type"
            return EvaluationFault.from_exception("judge" if wrong_type else "parse", exc)

    def _cache_key(self, values: Mapping[str, Any]) -> tuple[int, str]:
        return self._run_index(), json.dumps(
            self.messages(values), sort_keys=True, ensure_ascii=False
        )

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge (``repeats`` times) and combine the verdicts. With ``cache=True``,
        identical prompts within one run are asked once. A result that did not pass carries
        the exact messages sent in ``metadata["judge_prompt"]``."""
        values = self._prepare(sample, output)
        key = self._cache_key(values)
        if self.cache and key in self._cache:
            return self._cache[key]
        expected = self._expected(sample, output)
        outcomes: list[JudgeOutcome | EvaluationFault] = []
        for repeat, check in self._checks():
            with call_context(run_index=key[0], sample=sample.name, check=check, repeat=repeat):
                outcomes.append(self._outcome(lambda: self._call(values), expected))
        result = self._result(outcomes, expected)
        if result is None:
            result = fallback_result(self.fallback, sample, output, _errors(outcomes))
        return self._finish(key, result, values)

    @recorded
    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Async :meth:`evaluate`; the repeats are asked one after another, so a scorer's
        concurrency bounds the judge calls in flight too."""
        values = self._prepare(sample, output)
        key = self._cache_key(values)
        if self.cache and key in self._cache:
            return self._cache[key]
        expected = self._expected(sample, output)
        outcomes: list[JudgeOutcome | EvaluationFault] = []
        for repeat, check in self._checks():
            with call_context(run_index=key[0], sample=sample.name, check=check, repeat=repeat):
                outcomes.append(await self._aoutcome(self._acall(values), expected))
        result = self._result(outcomes, expected)
        if result is None:
            result = await afallback_result(self.fallback, sample, output, _errors(outcomes))
        return self._finish(key, result, values)

    def _finish(
        self, key: tuple[int, str], result: EvaluationResult, values: Mapping[str, Any]
    ) -> EvaluationResult:
        """Attach the messages sent (in the mode used) to a result that did not pass, and
        remember the result when caching."""
        if not result.passed:
            used = result.metadata.get("mode", "prompted")
            mode: Mode = used if used in ("native", "prompted") else "prompted"
            sent = externalize(self.messages(values, mode))[0]  # attachments by hash only
            result = result.with_metadata({"judge_prompt": sent})
        if self.cache:
            self._cache[key] = result
        return result

    def _run_index(self) -> int:
        context = current_call()
        return context.run_index if context is not None else 0

    def _result(
        self, outcomes: Sequence[JudgeOutcome | EvaluationFault], expected: str | None
    ) -> EvaluationResult | None:
        """The combined result; None when every call failed and a fallback should answer."""
        read = [o for o in outcomes if isinstance(o, JudgeOutcome)]
        errors = _errors(outcomes)
        if not read and self.fallback is not None:
            return None
        return self.reading.result(
            read,
            errors,
            judge=model_id_of(self.model),
            reducer=self.reducer,
            repeats=self.repeats,
            expected=expected,
        )

    def __repr__(self) -> str:
        return (
            f"LLMJudge(prompt={self.prompt.name!r}, model={model_id_of(self.model)!r}, "
            f"parse={self.parse!r}, score={self.response.kind!r}, mode={self.mode!r}, "
            f"name={self.name!r})"
        )


def _errors(outcomes: Sequence[JudgeOutcome | EvaluationFault]) -> list[EvaluationFault]:
    return [o for o in outcomes if isinstance(o, EvaluationFault)]
