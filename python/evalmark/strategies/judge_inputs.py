"""What a :class:`~evalmark.strategies.judge.JudgeStrategy` fills its template with: the
variables read from the sample and the output (:func:`judge_variables`), and user templates
given as plain strings with ``{variables}``."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from evalmark.data.samples import Sample
from evalmark.models.prompts import VARIABLES
from evalmark.strategies.base import output_text

__all__ = ["TextTemplate", "judge_variables"]


def _question(sample: Sample, output: Any) -> str | None:
    question = getattr(output, "input", None)
    if isinstance(question, str):
        return question
    texts = [p for p in sample.parameters if isinstance(p, str)]
    return texts[0] if texts else None


def judge_variables(
    sample: Sample, output: Any, needed: Sequence[str], *, strategy: str
) -> dict[str, str | Sequence[str]]:
    """The template variables ``needed``, filled from ``sample`` and ``output`` (see
    :mod:`evalmark.strategies.judge`). A variable with no value is left out, so rendering
    names it as missing."""
    values: dict[str, str | Sequence[str]] = {}
    for name in needed:
        if name == "question":
            question = _question(sample, output)
            if question is not None:
                values[name] = question
        elif name == "response":
            values[name] = output_text(output, strategy=strategy, sample=sample)
        elif name == "expected_output":
            if sample.expected_output is not None:
                values[name] = sample.expected_output
            elif sample.expected_outputs:
                values[name] = "\n".join(sample.expected_outputs)
        elif name == "context":
            retrieved = getattr(output, "retrieval_context", None)
            context = retrieved if retrieved else sample.context
            if context:
                values[name] = list(context)
    return values


class TextTemplate:
    """A user template given as a plain string with ``{variables}``."""

    def __init__(self, template: str) -> None:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        unknown = sorted(set(fields) - set(VARIABLES))
        if unknown:
            raise ValueError(
                f"judge template uses unknown variable(s) {', '.join(unknown)}; the variables "
                f"are {', '.join('{' + v + '}' for v in VARIABLES)}"
            )
        self.name = "custom"
        self.template = template
        self.variables = tuple(dict.fromkeys(fields))

    def render(self, **values: str | Sequence[str]) -> list[dict[str, str]]:
        """The one user message, the template filled with ``values``."""
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise ValueError(
                f"judge template needs {', '.join('{' + v + '}' for v in self.variables)}; "
                f"missing {', '.join('{' + v + '}' for v in missing)}"
            )
        filled = {
            k: v if isinstance(v, str) else "\n\n".join(v)
            for k, v in values.items()
            if k in self.variables
        }
        return [{"role": "user", "content": self.template.format_map(filled)}]
