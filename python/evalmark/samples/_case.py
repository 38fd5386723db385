"""Test cases as values: ``TestCase`` (one finished interaction of an application, ready to be
scored) with its parts (``ToolCall``, ``ReasoningStep``, ``TokenUsage``), and ``Conversation``
(the turns of a multi-turn exchange).

A ``TestCase`` holds what the application was asked (``input``), what it answered
(``actual_output``) and what it did on the way (retrieved context, tool calls, reasoning steps,
latency, token usage, cost). All values are immutable msgspec Structs and round-trip through
JSON exactly (``cost`` is a ``Decimal`` and is written as a string). Reading and writing files is
in :mod:`evalmark.samples._load` and :mod:`evalmark.samples._write`;
:mod:`evalmark.samples._testcase` gathers the whole test-case API.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any, Literal, TypeVar

import msgspec

from evalmark._files.problems import describe_value
from evalmark.errors import TestCaseError

__all__ = [
    "STEP_TYPES",
    "Conversation",
    "ReasoningStep",
    "StepType",
    "TestCase",
    "TokenUsage",
    "ToolCall",
]

StepType = Literal["plan", "thought", "observation", "action"]
STEP_TYPES: tuple[str, ...] = ("plan", "thought", "observation", "action")


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
        if self.type not in STEP_TYPES:
            raise TestCaseError(
                f"a reasoning step's type is one of {', '.join(STEP_TYPES)}, got {self.type!r}"
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


# Blank values for a reader whose values are valid by construction (the trace reader's fast
# path, in Rust: it is handed these by evalmark.traces._fast): each value it builds is a copy of
# a blank (msgspec's copy in C, no __post_init__) with its fields set, skipping the checks of
# the public constructors, whose results they equal. Never for values from users or files.
_TRUSTED_BLANKS: tuple[TestCase, ToolCall, ReasoningStep, TokenUsage] = (
    TestCase("", ""),
    ToolCall("-"),
    ReasoningStep("thought", ""),
    TokenUsage(0, 0),
)
