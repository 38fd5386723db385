"""``LLMJudge``: a chat model grades outputs with a catalog prompt and answers in JSON.

::

    from evalmark.strategies.llm_judge import LLMJudge

    judge = LLMJudge("conciseness", model)                       # {"reasoning", "score": bool}
    judge = LLMJudge("correctness", model, score="continuous")   # score in [0, 1]
    judge = LLMJudge("correctness", model, choices=[0, 0.5, 1])  # one of the choices
    judge = LLMJudge("support-intent", model)                    # the prompt's own schema
    judge.grade(inputs="...", outputs="...")                     # one JudgeOutcome
    judge.evaluate_raw(outputs=[...])                            # the parsed, checked JSON

Choices win over ``score="continuous"``; with ``reasoning`` on (the default) the reply's
``reasoning`` comes before its score. ``few_shot`` examples are shown in the order given. An
``output_schema`` (a JSON Schema; needs ``jsonschema``, the ``judge`` extra) makes a
classifier: ``evaluate_raw`` returns the reply validated against it. ``mode``: ``native``
(``response_format`` json_schema), ``prompted`` (the schema in the prompt) or ``auto`` (native,
then prompted when the server says it does not support it; in replay, a native request that
was never recorded falls back to the prompted one when that one was recorded).

As a strategy it judges ``(sample, output)`` (variables from
:mod:`evalmark.strategies.llm_judge_inputs`), inside ``call_context`` as
:class:`~evalmark.strategies.judge.JudgeStrategy` does, so cassettes and ``NoisyJudge`` see
the same calls. The result's explanation is the judge's reasoning; its metadata holds the
score, the reasoning, the mode used and the prompt. A bad reply (empty, no JSON, wrong shape,
a score outside the choices) is a result with a ``parse`` error naming the prompt and quoting
the reply; a failed call is a ``judge`` error. A classifier passes when its label equals the
sample's expected output (when it has one).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalmark.data.results import EvaluationFault, EvaluationResult
from evalmark.data.samples import Sample
from evalmark.errors import JudgeReplyError, PromptVariableError
from evalmark.models.context import call_context, current_call
from evalmark.models.prompts.catalog import get_prompt
from evalmark.models.prompts.model import CatalogPrompt, FewShotExample
from evalmark.models.protocols import ChatModel, model_id_of
from evalmark.models.structured import (
    REASONING_KEY,
    SCORE_KEY,
    Mode,
    ParsedReply,
    StructuredCaller,
)
from evalmark.models.values import ChatReply
from evalmark.strategies.judge import REDUCERS, Reducer, Vote, reduce_votes
from evalmark.strategies.judge_inputs import ExtraVariables, extra_values
from evalmark.strategies.llm_judge_inputs import catalog_values

__all__ = ["JudgeOutcome", "LLMJudge"]


@dataclass(frozen=True, slots=True)
class JudgeOutcome:
    """One judge call read: the feedback key, pass/fail, a score in [0, 1], the raw score
    (a bool, a number, or for a schema the whole reply), the reasoning, the parsed reply,
    the mode that was used and the reply's text."""

    key: str
    passed: bool
    score: float
    value: Any
    reasoning: str
    reply: dict[str, Any]
    mode: str
    raw: str


def _short(text: str, limit: int = 500) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class LLMJudge:
    """A chat model judges each output with a catalog prompt; see the module docstring.

    ``prompt``: a catalog name or a :class:`CatalogPrompt` (your own, from
    :func:`~evalmark.models.prompts.load_prompt`). ``threshold``: the pass mark of a numeric
    score. ``repeats`` / ``reducer``: ask several times and combine, as ``JudgeStrategy`` does.
    ``feedback_key``: the name of the score (default the prompt's name); ``name``: the check's
    name in reports (default ``feedback_key``). ``params`` go to every ``chat`` call.
    ``variables``: extra values of the prompt's variables, a mapping or a function
    ``(sample, output) -> mapping`` called for each call.
    """

    def __init__(
        self,
        prompt: str | CatalogPrompt,
        model: ChatModel | Any,
        *,
        score: str | Sequence[float] | None = None,
        choices: Sequence[float] | None = None,
        reasoning: bool = True,
        few_shot: Sequence[FewShotExample | Mapping[str, Any]] = (),
        output_schema: Mapping[str, Any] | None = None,
        mode: Mode = "auto",
        feedback_key: str | None = None,
        threshold: float = 0.5,
        repeats: int = 1,
        reducer: Reducer = "majority",
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
        self.prompt = get_prompt(prompt)
        self.model = model
        self.response = self.prompt.response(
            score=score, choices=choices, reasoning=reasoning, output_schema=output_schema
        )
        self.examples = tuple(FewShotExample.of(e) for e in few_shot)
        # Rendering once checks every example's variables and score against the shape.
        if self.examples:
            self._check_examples()
        self.mode: Mode = mode
        self.threshold = float(threshold)
        self.repeats = repeats
        self.reducer: Reducer = reducer
        self.feedback_key = feedback_key or self.prompt.name
        self.name = name or self.feedback_key
        self.params = dict(params or {})
        self.variables = variables
        self._caller = StructuredCaller(model, mode, label=self.prompt.name)

    def _check_examples(self) -> None:
        for number, example in enumerate(self.examples, 1):
            try:
                self.prompt.check_values(example.values)
                self.response.example_reply(example.score, example.reasoning)
            except (PromptVariableError, ValueError) as exc:
                raise ValueError(
                    f"judge prompt {self.prompt.name!r}: few-shot example {number}: {exc}"
                ) from None

    # ------------------------------------------------------------------ asking

    def messages(self, values: Mapping[str, Any], mode: Mode = "prompted") -> list[dict[str, str]]:
        """The chat messages for ``values`` in ``mode`` (``native`` leaves the schema out)."""
        return self.prompt.render(values, response=self.response, mode=mode, few_shot=self.examples)

    def response_format(self) -> dict[str, Any]:
        """The ``response_format`` of a native request."""
        return self.response.response_format(self.feedback_key)

    def _messages_for(self, values: Mapping[str, Any]) -> Callable[[Mode], list[dict[str, str]]]:
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
        """One reply read and checked; :class:`JudgeReplyError` when it is unusable."""
        if isinstance(reply, str):
            reply = ChatReply(text=reply)
        if reply.refused:
            raise JudgeReplyError(
                self.prompt.name,
                "refused",
                f"the judge refused: {reply.refusal or 'content filter'}",
                reply.text,
            )
        parsed = self.response.read(reply.text, prompt=self.prompt.name)
        passed, score, value = self._verdict(parsed, expected)
        return JudgeOutcome(
            self.feedback_key, passed, score, value, parsed.reasoning, parsed.data, mode, reply.text
        )

    def _verdict(self, parsed: ParsedReply, expected: str | None) -> tuple[bool, float, Any]:
        if self.response.kind != "schema":
            passed, score = self.response.verdict(parsed.value, self.threshold)
            return passed, score, parsed.value
        data = parsed.data
        label = self._label(data)
        if expected is not None:
            try:
                wanted = json.loads(expected)
            except ValueError:
                wanted = None
            if isinstance(wanted, dict):
                passed = all(data.get(k) == v for k, v in wanted.items())
            else:
                passed = label is not None and str(data.get(label)) == expected
            return passed, 1.0 if passed else 0.0, data
        value = data.get(SCORE_KEY)
        if isinstance(value, bool):
            return value, 1.0 if value else 0.0, data
        if isinstance(value, int | float) and 0.0 <= value <= 1.0:
            return value >= self.threshold, float(value), data
        return True, 1.0, data

    def _label(self, data: Mapping[str, Any]) -> str | None:
        """The classifier's answer field: the first field of the schema besides reasoning."""
        properties = (self.response.schema or {}).get("properties")
        names = list(properties) if isinstance(properties, Mapping) else list(data)
        return next((n for n in names if n != REASONING_KEY), None)

    # ------------------------------------------------------------------ direct use

    def grade(self, **values: Any) -> JudgeOutcome:
        """Judge the given variables once (outside an evaluation)."""
        mode, reply = self._call(values)
        return self.read(reply, mode)

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
        values = catalog_values(self.prompt, sample, output, strategy=self.name)
        names = [v.name for v in self.prompt.variables]
        return {**values, **extra_values(self.variables, sample, output, names)}

    def _checks(self) -> list[tuple[int, str]]:
        if self.repeats == 1:
            return [(0, self.name)]
        return [(r, f"{self.name}#{r}") for r in range(self.repeats)]

    def _prepare(self, sample: Sample, output: Any) -> dict[str, Any]:
        values = self.values(sample, output)
        try:
            self.prompt.check_values(values)
        except PromptVariableError as exc:
            raise PromptVariableError(
                exc.prompt, exc.variable, exc.problem, f"{self.name}: sample '{sample.name}': {exc}"
            ) from None
        return values

    def _expected(self, sample: Sample, output: Any) -> str | None:
        if self.response.kind != "schema":
            return None
        expected = getattr(output, "expected_output", None)
        return expected if isinstance(expected, str) else sample.expected_output

    def _outcome(
        self, asked: Callable[[], tuple[str, ChatReply]], expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        try:
            mode, reply = asked()
        except Exception as exc:
            return EvaluationFault.from_exception("judge", exc)
        return self._read_safely(reply, mode, expected)

    def _read_safely(
        self, reply: Any, mode: str, expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        if not isinstance(reply, ChatReply):
            text = getattr(reply, "text", reply)
            if not isinstance(text, str):
                return EvaluationFault.from_exception(
                    "judge", TypeError(f"the judge returned {type(reply).__name__}, not a reply")
                )
            reply = ChatReply(text=text)
        try:
            return self.read(reply, mode, expected)
        except JudgeReplyError as exc:
            return EvaluationFault.from_exception("parse", exc)

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge (``repeats`` times) and combine the verdicts."""
        values = self._prepare(sample, output)
        expected = self._expected(sample, output)
        run_index = self._run_index()
        outcomes: list[JudgeOutcome | EvaluationFault] = []
        for repeat, check in self._checks():
            with call_context(run_index=run_index, sample=sample.name, check=check, repeat=repeat):
                outcomes.append(self._outcome(lambda: self._call(values), expected))
        return self._with_prompt(self._result(outcomes, expected), values)

    async def aevaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Async :meth:`evaluate`; the repeats are asked one after another."""
        values = self._prepare(sample, output)
        expected = self._expected(sample, output)
        run_index = self._run_index()
        outcomes: list[JudgeOutcome | EvaluationFault] = []
        for repeat, check in self._checks():
            with call_context(run_index=run_index, sample=sample.name, check=check, repeat=repeat):
                outcomes.append(await self._aoutcome(self._acall(values), expected))
        return self._with_prompt(self._result(outcomes, expected), values)

    def _with_prompt(self, result: EvaluationResult, values: Mapping[str, Any]) -> EvaluationResult:
        """A result that did not pass carries the exact messages sent (in the mode used)."""
        if result.passed:
            return result
        used = result.metadata.get("mode", "prompted")
        mode: Mode = used if used in ("native", "prompted") else "prompted"
        return result.with_metadata({"judge_prompt": self.messages(values, mode)})

    async def _aoutcome(
        self, asked: Awaitable[tuple[str, ChatReply]], expected: str | None
    ) -> JudgeOutcome | EvaluationFault:
        try:
            mode, reply = await asked
        except Exception as exc:
            return EvaluationFault.from_exception("judge", exc)
        return self._read_safely(reply, mode, expected)

    def _run_index(self) -> int:
        context = current_call()
        return context.run_index if context is not None else 0

    def _result(
        self, outcomes: Sequence[JudgeOutcome | EvaluationFault], expected: str | None
    ) -> EvaluationResult:
        read = [o for o in outcomes if isinstance(o, JudgeOutcome)]
        errors = [o for o in outcomes if isinstance(o, EvaluationFault)]
        metadata: dict[str, Any] = {
            "judge": model_id_of(self.model),
            "prompt": self.prompt.name,
            "feedback_key": self.feedback_key,
            "shape": self.response.kind,
        }
        if errors:
            metadata["failed_calls"] = [e.to_dict() for e in errors]
        if not read:
            error = errors[0]
            return EvaluationResult(
                False,
                0.0,
                f"the judge failed on prompt {self.prompt.name!r}: {error.message}",
                metadata,
                error=error,
            )
        first = read[0]
        metadata.update({"mode": first.mode, "value": first.value, "reasoning": first.reasoning})
        if self.repeats == 1:
            return EvaluationResult(
                first.passed, first.score, self._explain(first, expected), metadata
            )
        votes = [Vote(o.passed, o.score, o.raw, None) for o in read]
        passed, score = reduce_votes(votes, self.reducer, self.threshold)
        metadata["votes"] = [{"passed": o.passed, "score": o.score} for o in read]
        metadata["reducer"] = self.reducer
        explanation = (
            f"{sum(o.passed for o in read)} of {len(read)} judge votes passed ({self.reducer}); "
            f"first: {self._explain(first, expected)}"
        )
        return EvaluationResult(passed, score, explanation, metadata)

    def _explain(self, outcome: JudgeOutcome, expected: str | None) -> str:
        reasoning = _short(outcome.reasoning) if outcome.reasoning else ""
        kind = self.response.kind
        if kind == "bool":
            return reasoning or f"the judge scored {str(outcome.value).lower()}"
        if kind == "schema":
            label = self._label(outcome.reply)
            said = f"{label}={outcome.reply.get(label)!r}" if label else json.dumps(outcome.reply)
            if expected is not None and not outcome.passed:
                said += f", expected {expected!r}"
            return f"{said}: {reasoning}" if reasoning else said
        head = f"score {outcome.value:g} (pass mark {self.threshold:g})"
        return f"{head}: {reasoning}" if reasoning else head

    def __repr__(self) -> str:
        return (
            f"LLMJudge(prompt={self.prompt.name!r}, model={model_id_of(self.model)!r}, "
            f"score={self.response.kind!r}, mode={self.mode!r}, name={self.name!r})"
        )
