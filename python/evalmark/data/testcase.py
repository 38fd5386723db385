"""The test-case model: one finished interaction of an application, ready to be scored.

A ``TestCase`` holds what the application was asked (``input``), what it answered
(``actual_output``) and what it did on the way (retrieved context, tool calls, reasoning steps,
latency, token usage, cost). ``Conversation`` groups the turns of a multi-turn exchange.

All values are immutable msgspec Structs and round-trip through JSON exactly (``cost`` is a
``Decimal`` and is written as a string). Files use kebab-case keys (``actual-output``); JSON and
JSON Lines also accept snake_case. Loading reports problems like the sample loaders do.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from evalmark._files.formats import (
    PathKey,
    RawRecord,
    describe_value,
    dump_yaml,
    format_of,
    read_bytes,
    read_records,
    strip_bom,
    write_atomically,
)
from evalmark._files.records import (
    RecordSpec,
    Report,
    build_file_schema,
    convert_records,
)
from evalmark.errors import Problem, TestCaseError

__all__ = [
    "Conversation",
    "ReasoningStep",
    "StepType",
    "TestCase",
    "TestCaseError",
    "TokenUsage",
    "ToolCall",
    "conversation_file_schema",
    "load_conversations",
    "load_test_cases",
    "test_case_file_schema",
    "write_conversations",
    "write_test_cases",
]

StepType = Literal["plan", "thought", "observation", "action"]
_STEP_TYPES: tuple[str, ...] = ("plan", "thought", "observation", "action")


def _check_non_negative(value: object, what: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TestCaseError(f"{what} must be a number, got {describe_value(value)}")
    if math.isnan(value) or value < 0 or math.isinf(value):
        raise TestCaseError(f"{what} must be a finite number >= 0, got {value!r}")


def _str_tuple(value: object, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TestCaseError(
            f"{what} must be a list of strings, got {describe_value(value)}; "
            'write it as a list, e.g. ["..."]'
        )
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TestCaseError(
                f"every item of {what} must be a string, got {describe_value(item)}"
            )
    return items


_S = TypeVar("_S")


def _struct_tuple(value: object, kind: type[_S], what: str) -> tuple[_S, ...]:
    if isinstance(value, str | dict) or not isinstance(value, Iterable):
        raise TestCaseError(
            f"{what} must be a list of {kind.__name__}, got {describe_value(value)}"
        )
    items = tuple(value)
    for item in items:
        if not isinstance(item, kind):
            raise TestCaseError(f"{what} holds {kind.__name__} values, got {type(item).__name__}")
    return items


class ToolCall(
    msgspec.Struct, frozen=True, rename="kebab", forbid_unknown_fields=True, omit_defaults=True
):
    """One call of a tool: its name, arguments, and optionally result, duration and id."""

    name: str
    arguments: dict[str, Any] = {}
    result: Any = None
    duration_ms: float | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TestCaseError(f"a tool call needs a name, got {describe_value(self.name)}")
        if not isinstance(self.arguments, dict):
            raise TestCaseError(
                f"the arguments of tool call '{self.name}' must be a mapping, got "
                f"{describe_value(self.arguments)}"
            )
        _check_non_negative(self.duration_ms, f"duration-ms of tool call '{self.name}'")


class ReasoningStep(
    msgspec.Struct, frozen=True, rename="kebab", forbid_unknown_fields=True, omit_defaults=True
):
    """One step of an agent's reasoning: a plan, thought, observation or action."""

    type: StepType
    content: str
    tool_call: ToolCall | None = None

    def __post_init__(self) -> None:
        if self.type not in _STEP_TYPES:
            raise TestCaseError(
                f"a reasoning step's type is one of {', '.join(_STEP_TYPES)}, got {self.type!r}"
            )


class TokenUsage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Tokens read and written; ``total`` defaults to ``input + output`` and is never less."""

    input: int
    output: int
    # None only until __post_init__ fills it in: every TokenUsage has an int total.
    total: int = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        for what, value in (("input", self.input), ("output", self.output)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TestCaseError(
                    f"token usage {what} must be a whole number >= 0, got {value!r}"
                )
        least = self.input + self.output
        if self.total is None:
            msgspec.structs.force_setattr(self, "total", least)
        elif isinstance(self.total, bool) or not isinstance(self.total, int):
            raise TestCaseError(f"token usage total must be a whole number, got {self.total!r}")
        elif self.total < least:
            raise TestCaseError(
                f"token usage total ({self.total}) is less than input + output "
                f"({self.input} + {self.output} = {least}); leave total out to have it computed"
            )


class _Interaction(msgspec.Struct, frozen=True, rename="kebab", forbid_unknown_fields=True):
    input: str
    actual_output: str


class TestCase(_Interaction, frozen=True, kw_only=True, omit_defaults=True):
    """One finished interaction to score.

    ``input`` and ``actual_output`` are required (and may be given positionally); the rest
    is keyword-only. ``retrieval_context`` is what the pipeline retrieved, ``context`` what it
    should have retrieved. ``expected_tool_calls`` of None means "no expectation", an empty
    list "no tool should be called". ``cost`` is a Decimal (floats are converted through their
    shortest decimal form, so ``0.1`` becomes ``Decimal("0.1")``).
    """

    __test__ = False  # not a pytest test class

    expected_output: str | None = None
    retrieval_context: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    expected_tool_calls: tuple[ToolCall, ...] | None = None
    reasoning_trace: tuple[ReasoningStep, ...] = ()
    latency_ms: float | None = None
    token_usage: TokenUsage | None = None
    cost: Decimal | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = {}
    name: str | None = None

    def __post_init__(self) -> None:
        who = f"test case '{self.name}'" if self.name else "test case"
        for field in ("input", "actual_output"):
            if not isinstance(getattr(self, field), str):
                raise TestCaseError(
                    f"{who}: {field.replace('_', '-')} must be a string, got "
                    f"{describe_value(getattr(self, field))}"
                )
        if not (
            type(self.retrieval_context) is tuple
            and type(self.context) is tuple
            and type(self.tags) is tuple
            and type(self.tool_calls) is tuple
            and type(self.reasoning_trace) is tuple
            and (self.expected_tool_calls is None or type(self.expected_tool_calls) is tuple)
        ):
            self._coerce_lists(who)
        _check_non_negative(self.latency_ms, f"{who}: latency-ms")
        if self.cost is not None and type(self.cost) is not Decimal:
            msgspec.structs.force_setattr(self, "cost", _to_decimal(self.cost, who))
        if self.cost is not None and (not self.cost.is_finite() or self.cost < 0):
            raise TestCaseError(f"{who}: cost must be a finite amount >= 0, got {self.cost}")

    def _coerce_lists(self, who: str) -> None:
        for field in ("retrieval_context", "context", "tags"):
            value = getattr(self, field)
            if type(value) is not tuple:
                shown = f"{who}: {field.replace('_', '-')}"
                msgspec.structs.force_setattr(self, field, _str_tuple(value, shown))
        for field, kind in (
            ("tool_calls", ToolCall),
            ("expected_tool_calls", ToolCall),
            ("reasoning_trace", ReasoningStep),
        ):
            value = getattr(self, field)
            if value is not None and type(value) is not tuple:
                shown = f"{who}: {field.replace('_', '-')}"
                msgspec.structs.force_setattr(self, field, _struct_tuple(value, kind, shown))


def _to_decimal(value: object, who: str) -> Decimal:
    if isinstance(value, bool):
        raise TestCaseError(f"{who}: cost must be a number, got a boolean")
    try:
        if isinstance(value, float):
            return Decimal(repr(value))
        if isinstance(value, int | str):
            return Decimal(value)
    except InvalidOperation:
        pass
    raise TestCaseError(f"{who}: cost must be a decimal number, got {value!r}")


class Conversation(
    msgspec.Struct, frozen=True, rename="kebab", forbid_unknown_fields=True, omit_defaults=True
):
    """A multi-turn exchange: an id, an optional system prompt and the turns in order."""

    id: str
    system_prompt: str | None = None
    turns: tuple[TestCase, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise TestCaseError(f"a conversation needs an id (a string), got {self.id!r}")
        if type(self.turns) is not tuple:
            shown = f"conversation '{self.id}': turns"
            msgspec.structs.force_setattr(self, "turns", _struct_tuple(self.turns, TestCase, shown))

    def __len__(self) -> int:
        return len(self.turns)


# --------------------------------------------------------------------------- file keys

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


def _check_test_case(fields: dict[str, Any], report: Report, where: PathKey = ()) -> None:
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
            if isinstance(kind, str) and kind not in _STEP_TYPES:
                report(
                    (*where, "reasoning-trace", i, "type"),
                    f"reasoning-trace[{i}].type: '{kind}' is not a step type; use one of "
                    + ", ".join(_STEP_TYPES),
                    of_value=True,
                )


def _check_conversation(fields: dict[str, Any], report: Report) -> None:
    if "id" not in fields:
        report((), "missing 'id': give every conversation an id, e.g. id: refund-chat")
    turns = fields.get("turns")
    if isinstance(turns, list):
        for i, turn in enumerate(turns):
            if isinstance(turn, dict):
                _check_test_case(turn, report, ("turns", i))


# --------------------------------------------------------------------------- loading

_T = TypeVar("_T")


def _load(
    sources: tuple[str | os.PathLike[str], ...],
    target: type[_T],
    spec: RecordSpec,
    text_keys: frozenset[PathKey],
    rules: Any,
    unique_key: str | None,
    name_key: str,
) -> tuple[_T, ...]:
    if not sources:
        raise TypeError("give at least one file to load")
    out: list[_T] = []
    list_decoder = msgspec.json.Decoder(list[target])  # type: ignore[valid-type]
    one_decoder = msgspec.json.Decoder(target)
    for source in sources:
        path = Path(os.fspath(source)).expanduser()
        shown = str(path)
        fmt = format_of(path)
        if fmt is None:
            raise TestCaseError(
                [
                    Problem(
                        f"unsupported file type '{path.suffix or '(none)'}': read "
                        ".yaml, .yml, .json or .jsonl files",
                        path=shown,
                    )
                ]
            )
        data = read_bytes(path, TestCaseError)
        items: list[_T] = []
        try:
            if fmt == "json":
                items = list_decoder.decode(strip_bom(data))
            elif fmt == "jsonl":
                lines = strip_bom(data).split(b"\n")
                items = [one_decoder.decode(line) for line in lines if line.strip()]
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            items = []
        if items and (
            unique_key is None or len({getattr(i, unique_key) for i in items}) == len(items)
        ):
            out.extend(items)
            continue
        records: list[RawRecord] = read_records(
            data, shown, fmt, TestCaseError, text_keys=text_keys
        )
        out.extend(
            convert_records(
                records,
                path=shown,
                spec=spec,
                target=target,
                error=TestCaseError,
                snake_case=fmt != "yaml",
                rules=rules,
                unique_key=unique_key,
                name_key=name_key,
            )
        )
    return tuple(out)


def load_test_cases(*sources: str | os.PathLike[str]) -> tuple[TestCase, ...]:
    """Load test cases from .yaml/.yml, .json or .jsonl files, in the order given."""
    return _load(
        sources, TestCase, TEST_CASE_SPEC, frozenset({("cost",)}), _check_test_case, None, "name"
    )


def load_conversations(*sources: str | os.PathLike[str]) -> tuple[Conversation, ...]:
    """Load conversations (each with its turns) from .yaml/.yml, .json or .jsonl files."""
    return _load(
        sources,
        Conversation,
        CONVERSATION_SPEC,
        frozenset({("turns", "*", "cost")}),
        _check_conversation,
        "id",
        "id",
    )


def _write(items: list[Any], path: str | os.PathLike[str]) -> None:
    target = Path(path)
    fmt = format_of(target)
    if fmt is None:
        raise TestCaseError(
            [Problem("choose a .yaml, .yml, .json or .jsonl file name", path=str(target))]
        )
    if fmt == "jsonl":
        encoder = msgspec.json.Encoder()
        data = b"".join(encoder.encode(item) + b"\n" for item in items)
    elif fmt == "json":
        data = msgspec.json.format(msgspec.json.encode(items), indent=2) + b"\n"
    else:
        data = dump_yaml(msgspec.to_builtins(items))
    write_atomically(target, data)


def write_test_cases(cases: Iterable[TestCase], path: str | os.PathLike[str]) -> None:
    """Write test cases to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    _write(list(cases), path)


def write_conversations(
    conversations: Iterable[Conversation], path: str | os.PathLike[str]
) -> None:
    """Write conversations to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    _write(list(conversations), path)


# --------------------------------------------------------------------------- JSON Schema

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
