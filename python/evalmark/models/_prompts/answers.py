"""How a judge is asked to answer, per parse mode, and how a worked example shows the answer.

Every judge prompt is read in one of four parse modes:

* ``structured``: one JSON object of a :class:`~evalmark.models._structured.ResponseSpec` shape
  (true/false, continuous, choices or an output schema), its JSON Schema written into the
  prompt (``prompted``) or sent as the request's ``response_format`` (``native``);
* ``verdict``: the reply ends with a line ``VERDICT: yes`` or ``VERDICT: no``;
* ``grade``: the reply ends with a line ``GRADE: n``, a whole number on the prompt's scale;
* ``json``: a JSON object ``{"passed", "score", "explanation"}`` somewhere in the reply.

A fenced prompt (the catalog's and the line-verdict ones) gets the instruction of its mode
after its text; a plain template (your own string) is sent as written.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from evalmark.models._prompts.fence import block
from evalmark.models._structured import Mode, ResponseSpec

__all__ = [
    "PARSE_MODES",
    "RESPONSE_SCHEMA_BLOCK",
    "ParseMode",
    "answer_instruction",
    "example_judgment",
    "join_answer",
]

ParseMode = Literal["structured", "verdict", "grade", "json"]
PARSE_MODES: tuple[str, ...] = ("structured", "verdict", "grade", "json")
RESPONSE_SCHEMA_BLOCK = "RESPONSE_SCHEMA"

_VERDICT = (
    "Think it through briefly, then end your answer with one line that reads exactly "
    "`VERDICT: yes` or `VERDICT: no`."
)
_JSON = (
    "Answer with one JSON object: "
    '{"passed": true or false, "score": a number from 0 to 1, "explanation": "why"}.'
)


def answer_instruction(
    parse: ParseMode, spec: ResponseSpec, mode: Mode, grades: tuple[int, int]
) -> str:
    """The instruction that tells the judge how to answer in ``parse`` mode."""
    if parse == "verdict":
        return _VERDICT
    if parse == "grade":
        low, high = grades
        return (
            "Explain in a sentence or two, then end with one line that reads exactly "
            f"`GRADE: n` where n is a whole number from {low} to {high}."
        )
    if parse == "json":
        return _JSON
    text = "Answer with one JSON object and nothing else. " + spec.describe()
    if mode == "native":
        return text
    schema = json.dumps(spec.json_schema(), ensure_ascii=False, indent=2)
    return (
        f"{text}\nThe object must conform to this JSON Schema:\n"
        f"{block(RESPONSE_SCHEMA_BLOCK, schema)}"
    )


def join_answer(text: str, instruction: str, parse: ParseMode, *, follows_body: bool) -> str:
    """``text`` with the answer instruction after it. A line-verdict instruction that directly
    follows the prompt's own text continues its last paragraph (a verdict on the same line, a
    grade on the next); otherwise the instruction is a paragraph of its own."""
    if follows_body and parse == "verdict":
        return f"{text} {instruction}"
    if follows_body and parse == "grade":
        return f"{text}\n{instruction}"
    return f"{text}\n\n{instruction}"


def example_judgment(
    parse: ParseMode, spec: ResponseSpec, score: Any, reasoning: str, grades: tuple[int, int]
) -> str:
    """The right answer of a worked example as the judge should write it in ``parse`` mode;
    ValueError when ``score`` does not fit the mode."""
    if parse == "structured":
        return json.dumps(spec.example_reply(score, reasoning), ensure_ascii=False)
    if parse == "verdict":
        if not isinstance(score, bool):
            raise ValueError(f"the example's score must be true or false, got {score!r}")
        line = f"VERDICT: {'yes' if score else 'no'}"
        return f"{reasoning}\n{line}" if reasoning else line
    if parse == "grade":
        low, high = grades
        if isinstance(score, bool) or not isinstance(score, int) or not low <= score <= high:
            raise ValueError(
                f"the example's score must be a whole grade from {low} to {high}, got {score!r}"
            )
        return f"{reasoning}\nGRADE: {score}" if reasoning else f"GRADE: {score}"
    if isinstance(score, bool):
        reply: dict[str, Any] = {"passed": score, "score": 1.0 if score else 0.0}
    elif isinstance(score, int | float) and 0.0 <= score <= 1.0:
        reply = {"score": float(score)}
    else:
        raise ValueError(f"the example's score must be true, false or in [0, 1], got {score!r}")
    reply["explanation"] = reasoning
    return json.dumps(reply, ensure_ascii=False)
