"""Reading a ``structured`` judge reply (a JSON object of the shape asked for: true/false,
continuous, choices or an output schema) and combining several: the structured half of the one
judge check, :class:`~evalmark.strategies._llm_judge.LLMJudge`.

A classifier (an output schema) passes when its label equals the expected output (or, for an
expected JSON object, when every field given matches); without one, a ``score`` field decides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalmark.models._structured import REASONING_KEY, SCORE_KEY, ParsedReply, ResponseSpec
from evalmark.models._values import ChatReply
from evalmark.results._results import EvaluationFault, EvaluationResult
from evalmark.strategies._judge import JudgeOutcome, short_text
from evalmark.strategies._votes import Reducer, Vote, reduce_votes

__all__ = ["StructuredReading"]


@dataclass(frozen=True, slots=True)
class StructuredReading:
    """How a structured reply of ``response``'s shape is read and several are combined.
    ``threshold`` is the pass mark of a numeric score; ``key`` the feedback key; ``prompt``
    the prompt's name."""

    response: ResponseSpec
    key: str
    prompt: str
    threshold: float = 0.5

    def read(self, reply: ChatReply, mode: str, expected: str | None = None) -> JudgeOutcome:
        """One reply read and checked; :class:`~evalmark.errors.JudgeReplyError` when it is
        unusable."""
        parsed = self.response.read(reply.text, prompt=self.prompt)
        passed, score, value = self._verdict(parsed, expected)
        return JudgeOutcome(
            self.key, passed, score, value, parsed.reasoning, parsed.data, mode, reply.text
        )

    def _verdict(self, parsed: ParsedReply, expected: str | None) -> tuple[bool, float, Any]:
        if self.response.kind != "schema":
            passed, score = self.response.verdict(parsed.value, self.threshold)
            return passed, score, parsed.value
        data = parsed.data
        label = self.label(data)
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

    def label(self, data: Mapping[str, Any]) -> str | None:
        """The classifier's answer field: the first field of the schema besides reasoning."""
        properties = (self.response.schema or {}).get("properties")
        names = list(properties) if isinstance(properties, Mapping) else list(data)
        return next((n for n in names if n != REASONING_KEY), None)

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
        """The result of the replies: the first one's reasoning as the explanation, several
        combined by ``reducer``."""
        metadata: dict[str, Any] = {
            "judge": judge,
            "prompt": self.prompt,
            "feedback_key": self.key,
            "shape": self.response.kind,
        }
        if errors:
            metadata["failed_calls"] = [e.to_dict() for e in errors]
        if not read:
            error = errors[0]
            return EvaluationResult(
                False,
                0.0,
                f"the judge failed on prompt {self.prompt!r}: {error.message}",
                metadata,
                error=error,
            )
        first = read[0]
        metadata.update({"mode": first.mode, "value": first.value, "reasoning": first.reasoning})
        if repeats == 1:
            return EvaluationResult(
                first.passed, first.score, self._explain(first, expected), metadata
            )
        votes = [Vote(o.passed, o.score, o.raw, None) for o in read]
        passed, score = reduce_votes(votes, reducer, self.threshold)
        metadata["votes"] = [{"passed": o.passed, "score": o.score} for o in read]
        metadata["reducer"] = reducer
        explanation = (
            f"{sum(o.passed for o in read)} of {len(read)} judge votes passed ({reducer}); "
            f"first: {self._explain(first, expected)}"
        )
        return EvaluationResult(passed, score, explanation, metadata)

    def _explain(self, outcome: JudgeOutcome, expected: str | None) -> str:
        reasoning = short_text(outcome.reasoning) if outcome.reasoning else ""
        kind = self.response.kind
        if kind == "bool":
            return reasoning or f"the judge scored {str(outcome.value).lower()}"
        if kind == "schema":
            label = self.label(outcome.reply)
            said = f"{label}={outcome.reply.get(label)!r}" if label else json.dumps(outcome.reply)
            if expected is not None and not outcome.passed:
                said += f", expected {expected!r}"
            return f"{said}: {reasoning}" if reasoning else said
        head = f"score {outcome.value:g} (pass mark {self.threshold:g})"
        return f"{head}: {reasoning}" if reasoning else head
