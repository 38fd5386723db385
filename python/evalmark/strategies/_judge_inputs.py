"""Where the one judge check (:class:`~evalmark.strategies._llm_judge.LLMJudge`) finds the values
of a prompt's variables, given a sample and the output under test.

* ``inputs``: the TestCase's ``input``, else the sample's parameters (one parameter as itself,
  several as a list); ``question``: the TestCase's ``input``, else the sample's first text
  parameter;
* ``outputs``: for a text variable, the output's text; for a conversation or trajectory, the
  output itself (a Conversation, a TestCase with its tool calls, a list of messages);
  ``response``: the output's text;
* ``reference_outputs``: for a trajectory, the TestCase's ``expected_tool_calls``; otherwise
  the expected output (or the expected outputs, one a line); ``expected_output``: the sample's
  expected output (or its expected outputs, one a line);
* ``context``: the TestCase's retrieval context, else the sample's context;
* any other variable (``plan``, ``tools``...): the sample's (or TestCase's) metadata under that
  name, with ``_`` or ``-``;
* then the judge's extra ``variables`` (a mapping, or a function ``(sample, output) ->
  mapping``), which fill and may override those of the same names.

A variable with no value is left out, so rendering names it as missing. Images and audio for
the judge come from the metadata's ``attachments`` (a list of file paths, data URLs or content
parts; see :mod:`evalmark.models._attachments`), under the key ``attachments`` of the values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from evalmark.models._attachments import ATTACHMENTS
from evalmark.models._prompts.model import JudgePrompt, PromptVariable
from evalmark.samples._samples import Sample
from evalmark.strategies._base import case_context, case_expected_output, output_text

__all__ = ["ExtraVariables", "extra_names", "extra_values", "prompt_values"]

# Extra variables of a judge prompt: fixed values, or a function of the sample and the output.
ExtraVariables = Mapping[str, Any] | Callable[[Sample, Any], Mapping[str, Any]]

# The line-verdict variables take no value from the metadata.
_NO_METADATA = ("question", "response", "expected_output")


def extra_names(variables: ExtraVariables | None) -> Collection[str] | None:
    """The names a template may use besides the standard ones: those of a mapping; for a
    function, any (None means only the standard names)."""
    if variables is None:
        return ()
    return tuple(variables) if isinstance(variables, Mapping) else None


def extra_values(
    variables: ExtraVariables | None, sample: Sample, output: Any, needed: Collection[str]
) -> dict[str, Any]:
    """The extra variables for this call that the prompt uses."""
    if variables is None:
        return {}
    given = variables(sample, output) if callable(variables) else variables
    if not isinstance(given, Mapping):
        raise TypeError(f"extra judge variables must be a mapping, got {type(given).__name__}")
    return {name: value for name, value in given.items() if name in needed}


def _inputs(sample: Sample, output: Any) -> Any:
    given = getattr(output, "input", None)
    if isinstance(given, str):
        return given
    parameters = list(sample.parameters)
    if not parameters:
        return None
    return parameters[0] if len(parameters) == 1 else parameters


def _question(sample: Sample, output: Any) -> str | None:
    question = getattr(output, "input", None)
    if isinstance(question, str):
        return question
    texts = [p for p in sample.parameters if isinstance(p, str)]
    return texts[0] if texts else None


def _outputs(variable: PromptVariable, sample: Sample, output: Any, strategy: str) -> Any:
    if variable.type in ("conversation", "trajectory", "json"):
        if isinstance(output, str | list | tuple | dict) or hasattr(output, "turns"):
            return output
        if hasattr(output, "actual_output"):
            return output if variable.type != "json" else output.actual_output
    return output_text(output, strategy=strategy, sample=sample)


def _expected(sample: Sample, output: Any = None) -> str | None:
    expected = case_expected_output(sample, output)
    if expected is not None:
        return expected
    if sample.expected_outputs:
        return "\n".join(sample.expected_outputs)
    return None


def _reference(variable: PromptVariable, sample: Sample, output: Any) -> Any:
    if variable.type == "trajectory":
        calls = getattr(output, "expected_tool_calls", None)
        if calls is not None:
            return list(calls)
        found = _metadata(sample, output, "reference_trajectory")
        if found is not None:
            return found
    return _expected(sample, output)


def _metadata(sample: Sample, output: Any, name: str) -> Any:
    for source in (getattr(output, "metadata", None), sample.metadata):
        if isinstance(source, Mapping):
            for key in (name, name.replace("_", "-")):
                if source.get(key) is not None:
                    return source[key]
    return None


def _value(variable: PromptVariable, sample: Sample, output: Any, strategy: str) -> Any:
    name = variable.name
    if name == "inputs":
        return _inputs(sample, output)
    if name == "question":
        return _question(sample, output)
    if name == "outputs":
        return _outputs(variable, sample, output, strategy)
    if name == "response":
        return output_text(output, strategy=strategy, sample=sample)
    if name == "reference_outputs":
        return _reference(variable, sample, output)
    if name == "expected_output":
        return _expected(sample, output)
    if name == "context":
        retrieved = getattr(output, "retrieval_context", None)
        return list(retrieved) if retrieved else (list(case_context(sample, output)) or None)
    return _metadata(sample, output, name)


def prompt_values(
    prompt: JudgePrompt,
    sample: Sample,
    output: Any,
    *,
    strategy: str,
    extra: ExtraVariables | None = None,
) -> dict[str, Any]:
    """The values of ``prompt``'s variables for ``sample`` and ``output``, then the ``extra``
    variables (see the module docstring); variables with no value are left out."""
    values: dict[str, Any] = {}
    for variable in prompt.variables:
        value = _value(variable, sample, output, strategy)
        if value is None and variable.name not in _NO_METADATA:
            value = _metadata(sample, output, variable.name)
        if value is not None:
            values[variable.name] = value
    names = [v.name for v in prompt.variables]
    attached = _metadata(sample, output, ATTACHMENTS) if ATTACHMENTS not in names else None
    if attached is not None:
        values[ATTACHMENTS] = attached
    return {**values, **extra_values(extra, sample, output, names)}
