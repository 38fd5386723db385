"""The hosted OpenAI Evals model graders ``label_model`` and ``score_model``, decided by the
suite's judge with the grader's own messages.

The check holds the grader's ``input`` messages as the user wrote them (roles and text, with
their ``{{item.FIELD}}`` and ``{{sample.output_text}}`` variables). Each sample, the judge is
sent those messages, the variables filled (``item.FIELD``: the field of the sample's metadata
``openai-item``, a text as it is and anything else as JSON; ``sample.output_text``: the answer
under test), then one user message of evalmark's asking for a JSON object whose ``result`` is
the label (``label_model``: one of ``labels``) or the score (``score_model``: a number in
``range``). The reply's first JSON object holding ``result`` is the grade:

* ``label_model`` passes when the label is one of ``passing_labels``; its score is 1 or 0;
* ``score_model`` passes when the score reaches ``pass_threshold``; evalmark's score is the
  grade's place in ``range`` (``(result - low) / (high - low)``), the grade itself is in the
  result's metadata (``result``).

A reply with no such object, a label not among ``labels`` or a score outside ``range`` is a
``parse`` error quoting the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.errors import JudgeParseError, StrategyError
from evalmark.models._context import call_context, current_call
from evalmark.models._protocols import model_id_of
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._base import output_text
from evalmark.strategies._judge_reply import as_reply
from evalmark.strategies._kinds import StrategyKind, check_choice

__all__ = ["GRADER_TYPES", "OPENAI_GRADER_KIND", "VARIABLE", "OpenAIModelGrader", "read_grade"]

GRADER_TYPES = ("label_model", "score_model")
VARIABLE = re.compile(r"\{\{\s*(item\.[A-Za-z0-9_]+|sample\.output_text)\s*\}\}")
"""The template variables the grader's messages may use."""


def _request(kind: str, labels: Sequence[str], low: float, high: float) -> str:
    if kind == "label_model":
        listed = ", ".join(json.dumps(label) for label in labels)
        what = f'"result": one of {listed}'
    else:
        what = f'"result": a number from {low:g} to {high:g}'
    return (
        "Answer with one JSON object and nothing else: "
        f'{{"steps": [your reasoning, step by step, as texts], {what}}}.'
    )


def read_grade(text: str) -> Any:
    """The ``result`` of the first JSON object in ``text`` that holds one;
    :class:`JudgeParseError` when there is none."""
    decoder = json.JSONDecoder()
    for start in (m.start() for m in re.finditer(r"\{", text)):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, Mapping) and "result" in value:
            return value["result"]
    raise JudgeParseError("the judge's reply holds no JSON object with a 'result'", text)


def _fill(text: str, item: Mapping[str, Any], answer: str) -> str:
    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        if name == "sample.output_text":
            return answer
        field = item.get(name.removeprefix("item."))
        if field is None:
            raise StrategyError(f"the sample's openai-item has no field {name[5:]!r}")
        return field if isinstance(field, str) else json.dumps(field, ensure_ascii=False)

    return VARIABLE.sub(value, text)


class OpenAIModelGrader:
    """A ``label_model`` or ``score_model`` grader, asked of ``judge`` (a chat model); see the
    module docstring."""

    def __init__(
        self,
        kind: str,
        messages: Sequence[Mapping[str, str]],
        judge: Any,
        *,
        labels: Sequence[str] = (),
        passing_labels: Sequence[str] = (),
        score_range: Sequence[float] = (0.0, 1.0),
        pass_threshold: float | None = None,
        name: str | None = None,
    ) -> None:
        if kind not in GRADER_TYPES:
            raise ValueError(f"kind must be one of {', '.join(GRADER_TYPES)}, got {kind!r}")
        self.kind = kind
        self.messages = [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
        self.judge = judge
        self.labels = tuple(labels)
        self.passing = frozenset(passing_labels)
        self.low, self.high = (float(score_range[0]), float(score_range[1]))
        self.threshold = pass_threshold
        self.name = name or kind

    def decide(self, grade: Any, text: str) -> tuple[bool, float, dict[str, Any]]:
        """The verdict, evalmark's score and the grade (``label`` or ``result``) of a grade read
        from the reply ``text``; :class:`JudgeParseError` for a grade the grader cannot give."""
        if self.kind == "label_model":
            if not isinstance(grade, str) or grade not in self.labels:
                raise JudgeParseError(f"{self.name}: the label {grade!r} is not a label", text)
            passed = grade in self.passing
            return passed, 1.0 if passed else 0.0, {"label": grade}
        if isinstance(grade, bool) or not isinstance(grade, int | float):
            raise JudgeParseError(f"{self.name}: the score {grade!r} is not a number", text)
        if not self.low <= grade <= self.high:
            raise JudgeParseError(
                f"{self.name}: the score {grade} is outside [{self.low:g}, {self.high:g}]", text
            )
        spread = self.high - self.low
        place = (grade - self.low) / spread if spread else 1.0
        passed = self.threshold is None or grade >= self.threshold
        return passed, place, {"result": grade}

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Ask the judge once with the grader's messages and decide its grade."""
        if self.judge is None:
            raise StrategyError(
                f"{self.name}: the {self.kind} grader needs the suite's judge (judge: in the "
                "suite file)"
            )
        answer = output_text(output, strategy=self.name, sample=sample)
        item = sample.metadata.get("openai-item")
        try:
            sent = [
                {"role": m["role"], "content": _fill(m["content"], item or {}, answer)}
                for m in self.messages
            ]
        except StrategyError as exc:
            fault = EvaluationFault.from_exception("strategy", exc)
            return EvaluationResult(False, 0.0, f"{self.name}: {exc}", error=fault)
        request = _request(self.kind, self.labels, self.low, self.high)
        sent.append({"role": "user", "content": request})
        context = current_call()
        run_index = context.run_index if context is not None else 0
        try:
            with call_context(run_index=run_index, sample=sample.name, check=self.name, repeat=0):
                reply = as_reply(self.judge.chat(sent), self.name)
        except Exception as exc:
            return EvaluationResult(
                False, 0.0, str(exc), error=EvaluationFault.from_exception("judge", exc)
            )
        try:
            passed, score, grade = self.decide(read_grade(reply.text), reply.text)
        except JudgeParseError as exc:
            fault = EvaluationFault.from_exception("parse", exc)
            return EvaluationResult(False, 0.0, str(exc), error=fault)
        metadata = {**grade, "judge": model_id_of(self.judge), "reply": reply.text}
        verdict = f"{self.kind}: {json.dumps(next(iter(grade.values())))}"
        return EvaluationResult(passed, min(max(score, 0.0), 1.0), verdict, metadata)

    def __repr__(self) -> str:
        return f"OpenAIModelGrader(kind={self.kind!r}, name={self.name!r})"


# --------------------------------------------------------------------------- the suite kind


def _check_messages(value: Any) -> str | None:
    ok = (
        isinstance(value, list)
        and value
        and all(
            isinstance(m, Mapping)
            and set(m) == {"role", "content"}
            and m["role"] in ("system", "developer", "user", "assistant")
            and isinstance(m["content"], str)
            for m in value
        )
    )
    return None if ok else "expected a list of messages {role, content} with text content"


def _check_labels(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    return None if ok and len(set(value)) == len(value) else "expected a list of distinct texts"


def _check_range(value: Any) -> str | None:
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        and value[0] < value[1]
    )
    return None if ok else "expected [low, high], two numbers with low < high"


def _check_number(value: Any) -> str | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return None if ok else "expected a number"


_check_messages.schema = {"type": "array", "minItems": 1, "items": {"type": "object"}}  # type: ignore[attr-defined]
_check_labels.schema = {"type": "array", "items": {"type": "string"}}  # type: ignore[attr-defined]
_check_range.schema = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}  # type: ignore[attr-defined]
_check_number.schema = {"type": "number"}  # type: ignore[attr-defined]


_ANSWER_ONLY = ({"role": "user", "content": "{{sample.output_text}}"},)


def _build(options: Mapping[str, Any], judge: Any) -> OpenAIModelGrader:
    kind = options.get("grader", "score_model")
    if kind == "label_model" and not (options.get("labels") and "passing-labels" in options):
        raise StrategyError(f"{options['name']}: a label_model needs labels and passing-labels")
    if not set(options.get("passing-labels", ())) <= set(options.get("labels", ())):
        raise StrategyError(f"{options['name']}: passing-labels must be among the labels")
    return OpenAIModelGrader(
        kind,
        options.get("input", _ANSWER_ONLY),
        judge,
        labels=options.get("labels", ()),
        passing_labels=options.get("passing-labels", ()),
        score_range=options.get("range", (0.0, 1.0)),
        pass_threshold=options.get("pass-threshold"),
        name=options["name"],
    )


OPENAI_GRADER_KIND = StrategyKind(
    "openai-grader",
    "a hosted OpenAI Evals label_model or score_model (the default), its input messages (by "
    "default the answer alone) asked of the suite's judge",
    _build,
    {
        "grader": check_choice(*GRADER_TYPES),
        "input": _check_messages,
        "labels": _check_labels,
        "passing-labels": _check_labels,
        "range": _check_range,
        "pass-threshold": _check_number,
    },
)
"""The suite kind ``openai-grader`` (how ``evalmark import`` carries the model graders)."""
