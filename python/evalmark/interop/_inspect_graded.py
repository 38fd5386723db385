"""inspect_ai's model-graded scorers ``model_graded_qa`` and ``model_graded_fact``, imported
as ``llm-judge`` checks whose template is the one the log records, as written.

The template is the user's: inspect fills ``{question}``, ``{answer}``, ``{criterion}`` and
``{instructions}`` (and the sample's metadata) with ``str.format``. The first three become
evalmark's variables ``{question}``, ``{response}`` and ``{expected_output}``; the scorer's
``instructions`` (the user's too) are written into the template in place of
``{instructions}``. The grade is one of ``C`` and ``I``, and ``P`` (half a point) with
``partial_credit`` or instructions of the user's (which inspect takes as offering every
grade), read from the end of the reply as inspect's default pattern reads the last
``GRADE:``: the check passes on ``C``.

Refused, each as the loss ``scorer:<scorer>``: no template in the log, or ``{instructions}``
without instructions (the prompt is then inspect's built-in one, which is not in the log and
which evalmark does not copy); a placeholder beyond the four (the sample's metadata); a
``grade_pattern`` of the log's own; ``include_history``; a panel of grader models; any other
parameter. The grader ``model`` (or ``model_role``) is not carried: the suite's judge grades.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from evalmark.interop._model import Losses

__all__ = ["graded_check", "is_graded"]

_GRADED = frozenset({"model_graded_qa", "model_graded_fact"})
_VARIABLES = {"question": "question", "answer": "response", "criterion": "expected_output"}
_PARAMS = frozenset(
    {
        "template",
        "instructions",
        "grade_pattern",
        "partial_credit",
        "include_history",
        "model",
        "model_role",
        "reducer",
    }
)


def is_graded(scorer: str) -> bool:
    """Whether ``scorer`` (a registry name, maybe ``inspect_ai/``-prefixed) is model-graded."""
    return scorer.rpartition("/")[2] in _GRADED


def _refusal(scorer: str, params: Mapping[str, Any]) -> str | None:
    """Why the scorer is not carried, or None when it is."""
    template = params.get("template")
    instructions = params.get("instructions")
    if not isinstance(template, str) or (
        "{instructions}" in template and not isinstance(instructions, str)
    ):
        return (
            f"scorer {scorer!r} grades with inspect's built-in prompt, which is not in the log "
            "and which evalmark does not copy; give the suite a judge check of your own "
            "(--check) for it, and import without it (its recorded scores stay in the metadata)"
        )
    unknown = sorted(set(params) - _PARAMS)
    if unknown:
        return f"scorer {scorer!r} with {', '.join(unknown)} is not reproduced"
    if params.get("grade_pattern") is not None:
        return (
            f"scorer {scorer!r} reads its grade with a grade_pattern of its own, which the "
            "imported judge check does not"
        )
    if params.get("include_history"):
        return f"scorer {scorer!r} grades the whole message history (include_history)"
    if isinstance(params.get("model"), list):
        return f"scorer {scorer!r} grades with a panel of models (the suite has one judge)"
    return None


def _template(template: str, instructions: str) -> str | None:
    """The template with evalmark's variables and the instructions written in; None when a
    placeholder has no evalmark variable."""
    parts = []
    for literal, field, spec, conversion in string.Formatter().parse(template):
        parts.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        if spec or conversion:
            return None
        if field == "instructions":
            parts.append(instructions.replace("{", "{{").replace("}", "}}"))
        elif field in _VARIABLES:
            parts.append("{" + _VARIABLES[field] + "}")
        else:
            return None
    return "".join(parts)


def graded_check(
    name: str, scorer: str, params: Mapping[str, Any], losses: Losses, where: str
) -> dict[str, Any] | None:
    """The ``llm-judge`` check of the model-graded scorer ``name``; None when it is refused
    and the loss allowed."""
    refusal = _refusal(scorer, params)
    template = None
    if refusal is None:
        try:
            template = _template(params["template"], str(params.get("instructions") or ""))
        except ValueError as exc:  # an unbalanced brace: str.format refuses it too
            refusal = f"scorer {scorer!r} has a template inspect cannot fill ({exc})"
        else:
            if template is None:
                refusal = (
                    f"scorer {scorer!r} fills its template with a placeholder beyond "
                    "{question}, {answer}, {criterion} and {instructions} (the sample's "
                    "metadata), which the imported judge check does not"
                )
    if refusal is not None or template is None:
        losses.refuse(f"scorer:{scorer}", str(refusal), where, None, "results.scores")
        return None
    partial = bool(params.get("partial_credit")) or isinstance(params.get("instructions"), str)
    scores = {"C": 1.0, "P": 0.5, "I": 0.0} if partial else {"C": 1.0, "I": 0.0}
    return {
        "llm-judge": {
            "template": template,
            "choice-strings": list(scores),
            "choice-scores": scores,
            "choice-at": "last",
            "threshold": 1.0,
            "name": f"inspect-{name}",
        }
    }
