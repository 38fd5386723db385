"""Where an :class:`~evalmark.strategies.llm_judge.LLMJudge` finds the values of a prompt's
variables, given a sample and the output under test.

* ``inputs``: the TestCase's ``input``, else the sample's parameters (one parameter as itself,
  several as a list);
* ``outputs``: for a text variable, the output's text; for a conversation or trajectory, the
  output itself (a Conversation, a TestCase with its tool calls, a list of messages);
* ``reference_outputs``: for a trajectory, the TestCase's ``expected_tool_calls``; otherwise
  the expected output (or the expected outputs, one a line);
* ``context``: the TestCase's retrieval context, else the sample's context;
* any other variable (``plan``, ``tools``...): the sample's (or TestCase's) metadata under that
  name, with ``_`` or ``-``.

A variable with no value is left out, so rendering names it as missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalmark.data.samples import Sample
from evalmark.models.prompts.model import CatalogPrompt, PromptVariable
from evalmark.strategies.base import output_text

__all__ = ["catalog_values"]


def _inputs(sample: Sample, output: Any) -> Any:
    given = getattr(output, "input", None)
    if isinstance(given, str):
        return given
    parameters = list(sample.parameters)
    if not parameters:
        return None
    return parameters[0] if len(parameters) == 1 else parameters


def _outputs(variable: PromptVariable, sample: Sample, output: Any, strategy: str) -> Any:
    if variable.type in ("conversation", "trajectory", "json"):
        if isinstance(output, str | list | tuple | dict) or hasattr(output, "turns"):
            return output
        if hasattr(output, "actual_output"):
            return output if variable.type != "json" else output.actual_output
    return output_text(output, strategy=strategy, sample=sample)


def _reference(variable: PromptVariable, sample: Sample, output: Any) -> Any:
    if variable.type == "trajectory":
        calls = getattr(output, "expected_tool_calls", None)
        if calls is not None:
            return list(calls)
        found = _metadata(sample, output, "reference_trajectory")
        if found is not None:
            return found
    expected = getattr(output, "expected_output", None)
    if isinstance(expected, str):
        return expected
    if sample.expected_output is not None:
        return sample.expected_output
    if sample.expected_outputs:
        return "\n".join(sample.expected_outputs)
    return None


def _metadata(sample: Sample, output: Any, name: str) -> Any:
    for source in (getattr(output, "metadata", None), sample.metadata):
        if isinstance(source, Mapping):
            for key in (name, name.replace("_", "-")):
                if source.get(key) is not None:
                    return source[key]
    return None


def catalog_values(
    prompt: CatalogPrompt, sample: Sample, output: Any, *, strategy: str
) -> dict[str, Any]:
    """The values of ``prompt``'s variables for ``sample`` and ``output`` (see the module
    docstring); variables with no value are left out."""
    values: dict[str, Any] = {}
    for variable in prompt.variables:
        name = variable.name
        value: Any
        if name == "inputs":
            value = _inputs(sample, output)
        elif name == "outputs":
            value = _outputs(variable, sample, output, strategy)
        elif name == "reference_outputs":
            value = _reference(variable, sample, output)
        elif name == "context":
            retrieved = getattr(output, "retrieval_context", None)
            value = list(retrieved) if retrieved else (list(sample.context) or None)
        else:
            value = None
        if value is None:
            value = _metadata(sample, output, name)
        if value is not None:
            values[name] = value
    return values
