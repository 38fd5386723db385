"""What a :class:`~evalmark.strategies.judge.JudgeStrategy` fills its template with: the
variables read from the sample and the output (:func:`judge_variables`), and user templates
given as plain strings with ``{variables}``."""

from __future__ import annotations

import string
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from evalmark.data.samples import Sample
from evalmark.models.prompts import VARIABLES
from evalmark.strategies.base import output_text

__all__ = ["ExtraVariables", "TextTemplate", "extra_names", "extra_values", "judge_variables"]

# Extra variables of a judge prompt: fixed values, or a function of the sample and the output.
ExtraVariables = Mapping[str, Any] | Callable[[Sample, Any], Mapping[str, Any]]


def extra_names(variables: ExtraVariables | None) -> Collection[str] | None:
    """The names a template may use besides the standard ones: those of a mapping; for a
    function, any (None means only the standard names)."""
    if variables is None:
        return ()
    return tuple(variables) if isinstance(variables, Mapping) else None


def extra_values(
    variables: ExtraVariables | None, sample: Sample, output: Any, needed: Sequence[str]
) -> dict[str, Any]:
    """The extra variables for this call that the template uses."""
    if variables is None:
        return {}
    given = variables(sample, output) if callable(variables) else variables
    if not isinstance(given, Mapping):
        raise TypeError(f"extra judge variables must be a mapping, got {type(given).__name__}")
    return {name: value for name, value in given.items() if name in needed}


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


def _listed(value: object) -> bool:
    return isinstance(value, list | tuple)


class TextTemplate:
    """A user template given as a plain string with ``{variables}``."""

    def __init__(self, template: str, *, extra: Collection[str] | None = ()) -> None:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        unknown = sorted(set(fields) - set(VARIABLES) - set(extra or ()))
        if unknown and extra is not None:
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
            k: v if isinstance(v, str) else ("\n\n".join(map(str, v)) if _listed(v) else str(v))
            for k, v in values.items()
            if k in self.variables
        }
        return [{"role": "user", "content": self.template.format_map(filled)}]
