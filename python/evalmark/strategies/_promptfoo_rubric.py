"""promptfoo's ``llm-rubric`` assertion, graded by the suite's judge with promptfoo's default
semantics as its documentation and grader publish them.

The judge gets the output under test and the user's rubric, as written in the promptfoo test
(its ``value``, ``{{ var }}`` substituted), and is asked for one JSON object
``{"reason": ..., "pass": ..., "score": ...}``. The wording of the request is evalmark's
(:data:`RUBRIC_SYSTEM`, :func:`rubric_messages`); how the reply is read is promptfoo's
(:func:`read_rubric_reply`):

* the first JSON object in the reply is the grade; a reply holding none is a parse error;
* ``pass`` missing or null counts as true; a value that is not a boolean passes only when its
  text is ``true``, ``yes``, ``pass`` or ``y`` (any case);
* ``score`` is the number given (a numeric text is read as its number; null and the empty
  text as 0); with no usable number, 1 when the grade passes and 0 when not;
* with the assertion's ``threshold`` the assertion passes when ``pass`` holds **and** the
  score reaches the threshold; without one, ``pass`` alone decides (a score of 0 with
  ``pass: true`` passes, as promptfoo documents);
* ``not-llm-rubric`` inverts the verdict and scores ``1 - score`` clipped to [0, 1].
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from evalmark.errors import JudgeParseError
from evalmark.models._context import call_context, current_call
from evalmark.strategies._judge_reply import as_reply

__all__ = [
    "PROMPTFOO_JUDGED_TYPES",
    "RUBRIC_SYSTEM",
    "grade_rubric",
    "read_rubric_reply",
    "rubric_messages",
]

PROMPTFOO_JUDGED_TYPES: frozenset[str] = frozenset({"llm-rubric", "not-llm-rubric"})
"""The promptfoo assertion types the suite's judge decides."""

RUBRIC_SYSTEM = (
    "You are grading the output of an AI system against a rubric a user wrote. The output "
    "passes when what the rubric says holds true of it. Answer with a single JSON object of "
    'this shape and nothing else: {"reason": "<your analysis of the output against the '
    'rubric>", "pass": <true or false>, "score": <a number from 0.0 to 1.0>}.'
)
"""The judge's instructions (evalmark's wording of promptfoo's default grading request)."""

_TRUE_TEXT = re.compile(r"^(true|yes|pass|y)$", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _rubric_text(value: Any) -> str:
    """The rubric as sent: a text as written, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_NAME = re.compile(r"{{\s*([A-Za-z_][A-Za-z0-9_]*)\s*}}")


def _output_value(output: str) -> str:
    """The output as promptfoo puts it in a grading prompt: a JSON object or array output as
    compact JSON, any other output as its text."""
    try:
        value = json.loads(output)
    except ValueError:
        return output
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return output


def _fill(template: str, context: Mapping[str, str]) -> str:
    return _NAME.sub(lambda match: context.get(match.group(1), ""), template)


def _prompt_messages(prompt: str, context: Mapping[str, str]) -> list[dict[str, str]]:
    """The user's grading prompt with its ``{{ name }}`` filled: a JSON prompt has each of
    its texts filled, and a list of ``{role, content}`` messages is sent as those messages;
    any other prompt is one user message."""
    try:
        parsed = json.loads(prompt)
    except ValueError:
        return [{"role": "user", "content": _fill(prompt, context)}]

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return _fill(value, context)
        if isinstance(value, list):
            return [fill(item) for item in value]
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items()}
        return value

    filled = fill(parsed)
    if isinstance(filled, list) and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
        for m in filled
    ):
        return [{"role": m["role"], "content": m["content"]} for m in filled]
    text = json.dumps(filled, ensure_ascii=False, separators=(",", ":"))
    return [{"role": "user", "content": text}]


def rubric_messages(
    output: str,
    rubric: Any,
    prompt: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> list[dict[str, str]]:
    """The request for one ``llm-rubric`` grade. With the user's grading ``prompt`` (the
    test's ``rubricPrompt``), that prompt verbatim with ``{{ output }}``, ``{{ rubric }}`` and
    the test's ``variables`` filled in (a var of the same name wins, as in promptfoo; an
    unknown name renders empty). Without one, evalmark's instructions, then the output under
    test and the rubric, each between its own tags."""
    if prompt is not None:
        context = {"output": _output_value(output), "rubric": _rubric_text(rubric)}
        for name, value in (variables or {}).items():
            context[name] = value if isinstance(value, str) else _rubric_text(value)
        return _prompt_messages(prompt, context)
    user = f"<output>\n{output}\n</output>\n<rubric>\n{_rubric_text(rubric)}\n</rubric>"
    return [{"role": "system", "content": RUBRIC_SYSTEM}, {"role": "user", "content": user}]


def _first_object(text: str) -> Mapping[str, Any] | None:
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char == "{":
            try:
                value, _ = decoder.raw_decode(text, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return None


def _passes(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    return _TRUE_TEXT.match(str(value)) is not None


def _score(value: Any, passed: bool) -> float:
    """The grade's score as JavaScript's ``Number`` reads it, else pass as 1 or 0."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return 0.0
        number = float(stripped) if _NUMBER.match(stripped) else math.nan
    else:
        number = math.nan
    if math.isfinite(number):
        return number
    return 1.0 if passed else 0.0


def read_rubric_reply(
    text: str, *, threshold: float | None = None, inverse: bool = False
) -> tuple[bool, float, str]:
    """Whether the assertion passes, its score and the grader's reason, read from the judge's
    reply as promptfoo reads it (see the module docstring). :class:`JudgeParseError` when the
    reply holds no JSON object."""
    grade = _first_object(text)
    if grade is None:
        raise JudgeParseError("llm-rubric: the judge's reply holds no JSON object", text)
    passed = _passes(grade.get("pass"))
    score = _score(grade["score"], passed) if "score" in grade else (1.0 if passed else 0.0)
    if threshold is not None and math.isfinite(threshold):
        passed = passed and score >= threshold
    reason = grade.get("reason")
    reason = reason if isinstance(reason, str) and reason else ""
    if inverse:
        return not passed, min(1.0, max(0.0, 1.0 - score)), reason
    return passed, score, reason


def grade_rubric(
    judge: Any,
    kind: str,
    output: str,
    rubric: Any,
    threshold: Any,
    *,
    sample: str,
    check: str,
    prompt: str | None = None,
    variables: Mapping[str, Any] | None = None,
) -> tuple[bool, float, str]:
    """Ask ``judge`` to grade ``output`` against ``rubric`` for an assertion of ``kind``
    (``llm-rubric`` or ``not-llm-rubric``), with the user's grading ``prompt`` when the test
    gives one (see :func:`rubric_messages`); the verdict, score and reason. The judge's own
    errors propagate; a reply without a grade is a :class:`JudgeParseError`."""
    try:
        limit = float(threshold) if threshold is not None else None
    except (TypeError, ValueError):  # promptfoo's Number() of a non-numeric text: no threshold
        limit = None
    context = current_call()
    run_index = context.run_index if context is not None else 0
    with call_context(run_index=run_index, sample=sample, check=check, repeat=0):
        reply = as_reply(judge.chat(rubric_messages(output, rubric, prompt, variables)), check)
    return read_rubric_reply(reply.text, threshold=limit, inverse=kind.startswith("not-"))
