"""The keys each kind of record accepts in a file (kebab-case, with the words people reach for
as aliases) and the rules checked before conversion, worded better than type errors."""

from __future__ import annotations

from typing import Any

from evalmark._files.located import PathKey
from evalmark._files.problems import describe_value
from evalmark._files.validate import RecordSpec, Report
from evalmark.samples._case import STEP_TYPES

__all__ = [
    "CONVERSATION_SPEC",
    "REASONING_STEP_SPEC",
    "SAMPLE_SPEC",
    "TEST_CASE_SPEC",
    "TOKEN_USAGE_SPEC",
    "TOOL_CALL_SPEC",
    "check_conversation",
    "check_sample",
    "check_test_case",
]

# --------------------------------------------------------------------------- samples

SAMPLE_SPEC = RecordSpec(
    kind="sample",
    keys=(
        "name",
        "parameters",
        "expected-output",
        "expected-outputs",
        "expected-facts",
        "context",
        "tags",
        "metadata",
    ),
    aliases={
        "expected": "expected-output",
        "output": "expected-output",
        "answer": "expected-output",
        "expected-answer": "expected-output",
        "reference": "expected-output",
        "ground-truth": "expected-output",
        "target": "expected-output",
        "outputs": "expected-outputs",
        "expected-segments": "expected-outputs",
        "expected-items": "expected-outputs",
        "parameter": "parameters",
        "params": "parameters",
        "input": "parameters",
        "inputs": "parameters",
        "args": "parameters",
        "arguments": "parameters",
        "question": "parameters",
        "query": "parameters",
        "prompt": "parameters",
        "facts": "expected-facts",
        "expected-fact": "expected-facts",
        "contexts": "context",
        "documents": "context",
        "docs": "context",
        "tag": "tags",
        "labels": "tags",
        "meta": "metadata",
        "id": "name",
        "title": "name",
    },
)


def check_sample(fields: dict[str, Any], report: Report) -> None:
    """The rules of a sample record, worded better than the type checks would."""
    if "name" not in fields:
        report((), "missing 'name': give every sample a unique name, e.g. name: refund-window")
    elif not isinstance(fields["name"], str) or not fields["name"].strip():
        report(
            ("name",),
            f"'name' must be a non-empty string, got {describe_value(fields['name'])}",
            of_value=True,
        )
    if "parameters" not in fields:
        report(
            (),
            "missing 'parameters': list the inputs of the function under test, "
            'e.g. parameters: ["How long is the refund window?"]',
        )
    elif not isinstance(fields["parameters"], list):
        report(
            ("parameters",),
            "'parameters' must be a list, even for a single input (got "
            f"{describe_value(fields['parameters'])}); write it as a list, "
            'e.g. parameters: ["..."]',
            of_value=True,
        )
    one, many = "expected-output" in fields, "expected-outputs" in fields
    if one and many:
        report(
            ("expected-outputs",),
            "both 'expected-output' and 'expected-outputs' are given; keep one: "
            "'expected-output' for one expected answer, 'expected-outputs' for a list of "
            "expected items (retrievers)",
        )
    elif not one and not many and not has_expectation(fields):
        report(
            (),
            "missing the expectation: add 'expected-output' (the expected answer), "
            "'expected-outputs' (a list of expected items, for retrievers), 'expected-facts', "
            "'context' or a rubric (metadata: {rubric: ...})",
        )


def has_expectation(fields: dict[str, Any]) -> bool:
    """True if a sample without an expected answer still says what a good answer is: facts,
    context or a rubric (``metadata.rubric``), each non-empty."""
    metadata = fields.get("metadata")
    rubric = metadata.get("rubric") if isinstance(metadata, dict) else None
    return bool(fields.get("expected-facts") or fields.get("context") or rubric)


# --------------------------------------------------------------------------- test cases

TOOL_CALL_SPEC = RecordSpec(
    kind="tool call",
    keys=("name", "arguments", "result", "duration-ms", "id"),
    aliases={
        "tool": "name",
        "function": "name",
        "tool-name": "name",
        "args": "arguments",
        "parameters": "arguments",
        "input": "arguments",
        "output": "result",
        "response": "result",
        "return": "result",
        "duration": "duration-ms",
        "latency-ms": "duration-ms",
        "call-id": "id",
        "tool-call-id": "id",
    },
)
REASONING_STEP_SPEC = RecordSpec(
    kind="reasoning step",
    keys=("type", "content", "tool-call"),
    aliases={
        "kind": "type",
        "step": "type",
        "text": "content",
        "thought": "content",
        "message": "content",
        "tool": "tool-call",
        "action": "tool-call",
    },
    nested={"tool-call": TOOL_CALL_SPEC},
)
TOKEN_USAGE_SPEC = RecordSpec(
    kind="token usage",
    keys=("input", "output", "total"),
    aliases={
        "prompt-tokens": "input",
        "input-tokens": "input",
        "prompt": "input",
        "completion-tokens": "output",
        "output-tokens": "output",
        "completion": "output",
        "total-tokens": "total",
    },
)
TEST_CASE_SPEC = RecordSpec(
    kind="test case",
    keys=(
        "input",
        "actual-output",
        "expected-output",
        "retrieval-context",
        "context",
        "tool-calls",
        "expected-tool-calls",
        "reasoning-trace",
        "latency-ms",
        "token-usage",
        "cost",
        "tags",
        "metadata",
        "name",
    ),
    aliases={
        "question": "input",
        "query": "input",
        "prompt": "input",
        "inputs": "input",
        "parameters": "input",
        "output": "actual-output",
        "actual": "actual-output",
        "answer": "actual-output",
        "response": "actual-output",
        "prediction": "actual-output",
        "expected": "expected-output",
        "reference": "expected-output",
        "ground-truth": "expected-output",
        "retrieved": "retrieval-context",
        "retrieved-context": "retrieval-context",
        "retrieval": "retrieval-context",
        "contexts": "context",
        "tools": "tool-calls",
        "tool-call": "tool-calls",
        "expected-tools": "expected-tool-calls",
        "trace": "reasoning-trace",
        "reasoning": "reasoning-trace",
        "steps": "reasoning-trace",
        "latency": "latency-ms",
        "duration-ms": "latency-ms",
        "usage": "token-usage",
        "tokens": "token-usage",
        "price": "cost",
        "cost-usd": "cost",
        "tag": "tags",
        "meta": "metadata",
        "id": "name",
    },
    nested={"token-usage": TOKEN_USAGE_SPEC},
    nested_lists={
        "tool-calls": TOOL_CALL_SPEC,
        "expected-tool-calls": TOOL_CALL_SPEC,
        "reasoning-trace": REASONING_STEP_SPEC,
    },
)
CONVERSATION_SPEC = RecordSpec(
    kind="conversation",
    keys=("id", "system-prompt", "turns"),
    aliases={
        "name": "id",
        "system": "system-prompt",
        "system-message": "system-prompt",
        "prompt": "system-prompt",
        "messages": "turns",
        "test-cases": "turns",
        "cases": "turns",
    },
    nested_lists={"turns": TEST_CASE_SPEC},
)


def check_test_case(fields: dict[str, Any], report: Report, where: PathKey = ()) -> None:
    """The rules of a test-case record (or of a conversation turn at ``where``)."""
    for key, meaning in (
        ("input", "the input the application received"),
        ("actual-output", "what the application answered"),
    ):
        if key not in fields:
            report(where, f"missing '{key}': add {meaning}")
    trace = fields.get("reasoning-trace")
    if isinstance(trace, list):
        for i, step in enumerate(trace):
            kind = step.get("type") if isinstance(step, dict) else None
            if isinstance(kind, str) and kind not in STEP_TYPES:
                report(
                    (*where, "reasoning-trace", i, "type"),
                    f"reasoning-trace[{i}].type: '{kind}' is not a step type; use one of "
                    + ", ".join(STEP_TYPES),
                    of_value=True,
                )


def check_conversation(fields: dict[str, Any], report: Report) -> None:
    """The rules of a conversation record and of each of its turns."""
    if "id" not in fields:
        report((), "missing 'id': give every conversation an id, e.g. id: refund-chat")
    turns = fields.get("turns")
    if isinstance(turns, list):
        for i, turn in enumerate(turns):
            if isinstance(turn, dict):
                check_test_case(turn, report, ("turns", i))
