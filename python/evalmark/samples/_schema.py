"""The JSON Schemas of sample, test-case and conversation files (``evalmark schema``), built
from the Structs themselves so that they state exactly the rules the loaders apply."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from evalmark.samples._case import Conversation, TestCase
from evalmark.samples._sample import Parameters, Sample

__all__ = [
    "build_file_schema",
    "conversation_file_schema",
    "sample_file_schema",
    "test_case_file_schema",
]

_DECIMAL_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "number"},
        {"type": "string", "pattern": r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"},
    ]
}


def build_file_schema(
    target: Any,
    *,
    title: str,
    description: str,
    fields: Mapping[str, Mapping[str, Mapping[str, Any]]],
    schema_hook: Callable[[type], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) for a file holding a list of ``target`` records.

    ``fields`` adds keywords (descriptions, minimums) per definition and property. Every
    kebab-case property also gets its snake_case spelling, which JSON and JSON Lines accept;
    giving both spellings of one key is rejected.
    """
    generated = msgspec.json.schema(list[target], schema_hook=schema_hook)
    definitions: dict[str, Any] = generated["$defs"]
    for def_name, definition in definitions.items():
        definition["description"] = definition.get("description", "").split("\n\n")[0]
        extra = fields.get(def_name, {})
        pairs = []
        properties: dict[str, Any] = {}
        for prop, schema in definition["properties"].items():
            schema = _clean_property(schema)
            schema.update(extra.get(prop, {}))
            properties[prop] = schema
            if "-" in prop:
                snake = prop.replace("-", "_")
                properties[snake] = copy.deepcopy(schema)
                properties[snake]["description"] = (
                    f"The snake_case spelling of '{prop}' (JSON and JSON Lines only)."
                )
                pairs.append([prop, snake])
        definition["properties"] = properties
        if pairs:
            definition["allOf"] = [{"not": {"required": pair}} for pair in pairs]
        required = definition.get("required", [])
        if any("-" in r for r in required):
            definition["anyOf"] = [
                {"required": [r.replace("-", "_") if s else r for r in required]}
                for s in (False, True)
            ]
            definition.pop("required")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        "type": "array",
        "items": generated["items"],
        "$defs": definitions,
    }


def _clean_property(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    if schema.get("default", 0) is None:
        del schema["default"]
    options = schema.get("anyOf")
    if options is not None:
        options = [o for o in options if o != {"type": "null"}]
        if len(options) == 1:
            del schema["anyOf"]
            schema.update(options[0])
        else:
            schema["anyOf"] = options
    if schema.get("format") == "decimal":
        del schema["format"]
        del schema["type"]
        schema.update(_DECIMAL_SCHEMA)
    return schema


# --------------------------------------------------------------------------- samples

_SAMPLE_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "Sample": {
        "name": {"description": "A unique name for the sample.", "minLength": 1},
        "parameters": {
            "description": "The inputs handed to the function under test; always a list, "
            "even for a single value."
        },
        "expected-output": {"description": "The expected answer (may span several lines)."},
        "expected-outputs": {
            "description": "The expected items, e.g. the segments a retriever should return."
        },
        "expected-facts": {"description": "Facts a good answer must contain."},
        "context": {"description": "The documents the application is shown."},
        "tags": {"description": "Labels for selecting and grouping samples."},
        "metadata": {"description": "Free-form data kept with the sample."},
    }
}


def _schema_hook(type_: type) -> dict[str, Any]:
    if type_ is Parameters:
        return {"type": "array"}
    raise NotImplementedError


def sample_file_schema() -> dict[str, Any]:
    """The JSON Schema of a samples file (YAML, JSON, or one JSON Lines line per item)."""
    schema = build_file_schema(
        Sample,
        title="evalmark samples",
        description="A list of evaluation samples. YAML files use the kebab-case keys; JSON "
        "and JSON Lines files also accept snake_case. In JSON Lines, each line holds one item.",
        fields=_SAMPLE_FIELDS,
        schema_hook=_schema_hook,
    )
    definition = schema["$defs"]["Sample"]
    answers = ("expected-output", "expected_output", "expected-outputs", "expected_outputs")
    non_empty = {"type": "array", "minItems": 1}
    others: list[dict[str, Any]] = [
        {"required": [key], "properties": {key: non_empty}}
        for key in ("expected-facts", "expected_facts", "context")
    ]
    others.append(
        {
            "required": ["metadata"],
            "properties": {"metadata": {"required": ["rubric"]}},
        }
    )
    # exactly one expected answer, or none and another expectation (facts, context, rubric)
    definition["anyOf"] = [
        {"oneOf": [{"required": [key]} for key in answers]},
        {"not": {"anyOf": [{"required": [key]} for key in answers]}, "anyOf": others},
    ]
    return schema


# --------------------------------------------------------------------------- test cases

_NON_NEGATIVE = {"minimum": 0}
_TEST_CASE_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "TestCase": {
        "input": {"description": "What the application was asked."},
        "actual-output": {"description": "What the application answered."},
        "expected-output": {"description": "The expected answer, if there is one."},
        "retrieval-context": {"description": "What the pipeline retrieved."},
        "context": {"description": "What the pipeline should have retrieved."},
        "tool-calls": {"description": "The tool calls the application made, in order."},
        "expected-tool-calls": {
            "description": "The tool calls it should have made; an empty list means none."
        },
        "reasoning-trace": {"description": "The agent's reasoning steps, in order."},
        "latency-ms": {"description": "End-to-end latency in milliseconds.", **_NON_NEGATIVE},
        "token-usage": {"description": "Tokens read and written."},
        "cost": {
            "description": "The cost of the interaction; write it as a string to keep every "
            "digit exact (numbers are read exactly too)."
        },
        "tags": {"description": "Labels for selecting and grouping test cases."},
        "metadata": {"description": "Free-form data kept with the test case."},
        "name": {"description": "An optional name for the test case."},
    },
    "ToolCall": {
        "name": {"description": "The tool's name.", "minLength": 1},
        "arguments": {"description": "The arguments, as a mapping."},
        "result": {"description": "What the tool returned (any JSON value)."},
        "duration-ms": {"description": "How long the call took.", **_NON_NEGATIVE},
        "id": {"description": "The call's id, when the model gives one."},
    },
    "ReasoningStep": {
        "type": {"description": "plan, thought, observation or action."},
        "content": {"description": "The text of the step."},
        "tool-call": {"description": "The tool call an action step makes."},
    },
    "TokenUsage": {
        "input": {"description": "Tokens read.", **_NON_NEGATIVE},
        "output": {"description": "Tokens written.", **_NON_NEGATIVE},
        "total": {
            "description": "Defaults to input + output; may not be less.",
            **_NON_NEGATIVE,
        },
    },
    "Conversation": {
        "id": {"description": "A unique id for the conversation.", "minLength": 1},
        "system-prompt": {"description": "The system prompt, if any."},
        "turns": {"description": "The turns of the conversation, oldest first."},
    },
}


def test_case_file_schema() -> dict[str, Any]:
    """The JSON Schema of a test-case file (YAML, JSON, or one JSON Lines line per item)."""
    return build_file_schema(
        TestCase,
        title="evalmark test cases",
        description="A list of finished interactions to score. YAML files use the kebab-case "
        "keys; JSON and JSON Lines files also accept snake_case. In JSON Lines, each line "
        "holds one item.",
        fields=_TEST_CASE_FIELDS,
    )


def conversation_file_schema() -> dict[str, Any]:
    """The JSON Schema of a conversations file."""
    return build_file_schema(
        Conversation,
        title="evalmark conversations",
        description="A list of multi-turn conversations, each with its turns as test cases.",
        fields=_TEST_CASE_FIELDS,
    )


test_case_file_schema.__test__ = False  # type: ignore[attr-defined]
