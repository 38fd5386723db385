"""The shape of a judge's JSON reply (:class:`ResponseSpec`): how it is asked for and how the
reply is read and checked."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalmark.errors import JudgeReplyError, JudgeSchemaError
from evalmark.models._structured.json_scan import json_objects
from evalmark.models._structured.schema import check_output_schema, schema_violation

__all__ = [
    "REASONING_KEY",
    "SCORE_KEY",
    "ParsedReply",
    "ResponseSpec",
    "ScoreKind",
    "score_options",
]

ScoreKind = Literal["bool", "continuous", "choices", "schema"]
REASONING_KEY = "reasoning"
SCORE_KEY = "score"


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """A judge reply read: the whole JSON object, its score (None for a schema), its reasoning."""

    data: dict[str, Any]
    value: Any
    reasoning: str


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _choices(values: Sequence[Any]) -> tuple[float, ...]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise ValueError(f"choices must be a list of numbers, got {values!r}")
    out: list[float] = []
    for value in values:
        if not _number(value) or not math.isfinite(value):
            raise ValueError(
                f"choices must be finite numbers, got {value!r}; to have the judge pick a "
                "label, give an output_schema with an enum instead"
            )
        if any(value == seen for seen in out):
            raise ValueError(f"choices must be distinct, {value!r} appears twice")
        out.append(value)
    if len(out) < 2:
        raise ValueError(f"choices needs at least two numbers, got {list(values)!r}")
    return tuple(out)


def _without_reasoning(schema: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(schema)
    properties = out.get("properties")
    if isinstance(properties, Mapping) and REASONING_KEY in properties:
        out["properties"] = {k: v for k, v in properties.items() if k != REASONING_KEY}
        required = out.get("required")
        if isinstance(required, list):
            out["required"] = [k for k in required if k != REASONING_KEY]
    return out


@dataclass(frozen=True, slots=True)
class ResponseSpec:
    """The JSON a judge is asked to answer with (see the module docstring).

    ``kind`` is ``bool``, ``continuous``, ``choices`` (``choices`` holds the numbers) or
    ``schema`` (``schema`` holds the JSON Schema; ``strict`` says whether it can be sent to
    an OpenAI server in strict mode). ``reasoning`` asks for a ``reasoning`` field first.
    """

    kind: ScoreKind
    reasoning: bool = True
    choices: tuple[float, ...] = ()
    schema: Mapping[str, Any] | None = None
    strict: bool = True

    @classmethod
    def build(
        cls,
        score: str | Sequence[float] | None = None,
        *,
        choices: Sequence[float] | None = None,
        reasoning: bool = True,
        output_schema: Mapping[str, Any] | None = None,
        default: str = "bool",
        default_schema: Mapping[str, Any] | None = None,
    ) -> ResponseSpec:
        """The shape a judge asks for. An ``output_schema`` wins; then ``choices`` (also when
        ``score`` is a list of numbers, and over ``score="continuous"``); then ``score``
        (``"bool"`` or ``"continuous"``); then the prompt's own schema, then its ``default``."""
        if not isinstance(reasoning, bool):
            raise TypeError(f"reasoning must be True or False, got {reasoning!r}")
        if output_schema is not None:
            if not isinstance(output_schema, Mapping):
                raise TypeError(
                    f"output_schema must be a JSON Schema (a dict), got {output_schema!r}"
                )
            check_output_schema(output_schema)
            return cls("schema", reasoning, schema=dict(output_schema), strict=False)
        if score is not None and not isinstance(score, str):
            choices = score if choices is None else choices
            score = None
        if choices is not None:
            return cls("choices", reasoning, choices=_choices(choices))
        if score is None and default_schema is not None:
            schema = dict(default_schema) if reasoning else _without_reasoning(default_schema)
            return cls("schema", reasoning, schema=schema)
        shape = default if score is None else score
        if shape not in ("bool", "continuous"):
            raise ValueError(
                f"score must be 'bool', 'continuous' or a list of choices, got {shape!r}"
            )
        return cls("bool" if shape == "bool" else "continuous", reasoning)

    # ------------------------------------------------------------------ asking

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the reply (reasoning, when asked for, before the score)."""
        if self.kind == "schema":
            assert self.schema is not None
            return dict(self.schema)
        score: dict[str, Any]
        if self.kind == "bool":
            score = {"type": "boolean", "description": "true when the criteria are met"}
        elif self.kind == "continuous":
            score = {"type": "number", "minimum": 0, "maximum": 1}
        else:
            score = {"type": "number", "enum": list(self.choices)}
        properties: dict[str, Any] = {}
        if self.reasoning:
            properties[REASONING_KEY] = {
                "type": "string",
                "description": "why the score is what it is, written before the score",
            }
        properties[SCORE_KEY] = score
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def response_format(self, name: str) -> dict[str, Any]:
        """The OpenAI-compatible ``response_format`` asking for this shape natively."""
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", name)[:64] or "judgment"
        return {
            "type": "json_schema",
            "json_schema": {"name": safe, "schema": self.json_schema(), "strict": self.strict},
        }

    def describe(self) -> str:
        """What to write, in words, for the end of a prompt."""
        lines = []
        if self.kind == "schema":
            lines.append("Fill in every field the schema asks for, using the criteria above.")
            if self.reasoning and self._schema_has_reasoning():
                lines.append('Write "reasoning" first: your reasons, before any verdict.')
            return "\n".join(lines)
        if self.reasoning:
            lines.append(
                '- "reasoning": a few sentences on how the output measures up against the '
                "criteria. Write it first, before you decide on the score."
            )
        if self.kind == "bool":
            lines.append('- "score": true when the output meets the criteria, false otherwise.')
        elif self.kind == "continuous":
            lines.append(
                '- "score": a number from 0 to 1; 1 when the output meets the criteria '
                "completely, 0 when it does not meet them at all, in between for partly."
            )
        else:
            shown = ", ".join(f"{c:g}" for c in self.choices)
            lines.append(
                f'- "score": exactly one of {shown}; a higher number means the output meets '
                "the criteria better."
            )
        return "The JSON object has these fields, in this order:\n" + "\n".join(lines)

    def _schema_has_reasoning(self) -> bool:
        properties = (self.schema or {}).get("properties")
        return isinstance(properties, Mapping) and REASONING_KEY in properties

    # ------------------------------------------------------------------ reading

    def read(self, text: str, *, prompt: str) -> ParsedReply:
        """The reply ``text`` checked against this shape; :class:`JudgeReplyError` naming
        ``prompt`` when it is empty, holds no JSON object or an object of the wrong shape."""
        if not isinstance(text, str) or not text.strip():
            raise JudgeReplyError(prompt, "empty", "the judge's reply is empty", text or "")
        found = list(json_objects(text))
        if not found:
            raise JudgeReplyError(prompt, "no-json", "the reply holds no JSON object", text)
        if self.kind == "schema":
            return self._read_schema(found, text, prompt)
        chosen = next((data for data in found if SCORE_KEY in data), found[0])
        if SCORE_KEY not in chosen:
            raise JudgeReplyError(
                prompt,
                "shape",
                f'the JSON object has no "{SCORE_KEY}" field: {_excerpt(json.dumps(chosen))}',
                text,
            )
        value = chosen[SCORE_KEY]
        reasoning = chosen.get(REASONING_KEY, "")
        if not isinstance(reasoning, str):
            raise JudgeReplyError(
                prompt, "shape", f'"{REASONING_KEY}" must be a string, got {reasoning!r}', text
            )
        problem = self._value_problem(value)
        if problem is not None:
            raise JudgeReplyError(prompt, problem[0], problem[1], text)
        return ParsedReply(chosen, value, reasoning)

    def _value_problem(self, value: Any) -> tuple[str, str] | None:
        """(problem, message) when ``value`` is not a score of this shape, else None."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return None
            return "shape", f'"score" must be true or false, got {value!r}'
        if not _number(value) or not math.isfinite(value):
            return "shape", f'"score" must be a number, got {value!r}'
        if self.kind == "continuous" and not 0.0 <= value <= 1.0:
            return "range", f'"score" must be between 0 and 1, got {value!r}'
        if self.kind == "choices" and not any(value == choice for choice in self.choices):
            shown = ", ".join(f"{c:g}" for c in self.choices)
            return "choice", f'"score" {value!r} is not one of the choices {shown}'
        return None

    def _read_schema(self, found: list[dict[str, Any]], text: str, prompt: str) -> ParsedReply:
        assert self.schema is not None
        first_error: JudgeSchemaError | None = None
        for data in found:
            problem = schema_violation(data, self.schema)
            if problem is None:
                reasoning = data.get(REASONING_KEY, "")
                return ParsedReply(data, None, reasoning if isinstance(reasoning, str) else "")
            if first_error is None:
                first_error = JudgeSchemaError(prompt, problem[0], problem[1], text)
        assert first_error is not None
        raise first_error

    # ------------------------------------------------------------------ meaning

    def verdict(self, value: Any, threshold: float) -> tuple[bool, float]:
        """(passed, score in [0, 1]) of a checked score ``value``: a bool passes when true; a
        number is rescaled (choices from their lowest to their highest) and passes at
        ``threshold``."""
        if self.kind == "bool":
            return bool(value), 1.0 if value else 0.0
        number = float(value)
        if self.kind == "choices" and not all(0.0 <= c <= 1.0 for c in self.choices):
            low, high = min(self.choices), max(self.choices)
            number = (number - low) / (high - low)
        return number >= threshold, number

    def example_reply(self, score: Any, reasoning: str) -> dict[str, Any]:
        """The JSON a worked example shows as the right answer (checked against the shape)."""
        if self.kind == "schema":
            if not isinstance(score, Mapping):
                raise ValueError(
                    "a worked example of a judge with an output schema gives the whole reply "
                    f"as its score (a dict), got {score!r}"
                )
            assert self.schema is not None
            problem = schema_violation(dict(score), self.schema)
            if problem is not None:
                raise ValueError(
                    f"the example's reply violates the schema at {problem[0]}: {problem[1]}"
                )
            return dict(score)
        problem = self._value_problem(score)
        if problem is not None:
            raise ValueError(f"the example's score: {problem[1]}")
        out: dict[str, Any] = {}
        if self.reasoning:
            out[REASONING_KEY] = reasoning
        out[SCORE_KEY] = score
        return out


def score_options(text: str | None) -> dict[str, Any]:
    """The reply shape written as text (``bool``, ``continuous``, or choices such as
    ``0,0.5,1``) as the ``score=`` or ``choices=`` option of :meth:`ResponseSpec.build`;
    ``{"score": None}`` (the prompt's own shape) for None. ValueError for anything else."""
    if text is None or text in ("bool", "continuous"):
        return {"score": text}
    try:
        return {"choices": [float(part) for part in text.split(",")]}
    except ValueError:
        raise ValueError(f"{text!r}: give bool, continuous, or choices such as 0,0.5,1") from None
