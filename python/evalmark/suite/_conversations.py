"""Conversation cases in a suite file: what they hold, how they are checked, their JSON Schema.

An evaluation with ``conversations`` (instead of ``samples``) simulates each one against the
application and scores it (:mod:`evalmark.suite._conversation_run`)::

    conversations:
      - id: refund-after-plan-given
        tags: [refunds]
        max-turns: 4
        stop-phrase: anything else        # stop once the assistant's reply holds it
        turns:                            # a scripted user, one message a turn
          - We are on the annual Team plan, bought three weeks ago.
          - text: Can we get our money back?
            expected-facts: [30 days]
      - id: persona-user
        persona: You run a small bakery and want to know whether SSO is on your plan.
        opening: Hi, quick question about sign-on.
    user-model: {model-id: customer, cassette: users.jsonl, model: pkg.mod:factory}
    turn-strategies: [contains-facts]     # judged on each assistant turn
    trajectory: {mode: superset}          # tool calls against each case's expected-tool-calls
    strategies:                           # judged on the whole conversation
      - llm-judge: {prompt: knowledge-retention, name: knowledge-retention}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from evalmark._files.located import PathKey
from evalmark._files.problems import describe_value
from evalmark.conversation._users import ScriptedTurn
from evalmark.errors import TestCaseError
from evalmark.samples._case import ToolCall
from evalmark.strategies._trajectory import ArgumentMode, TrajectoryMode
from evalmark.suite._document import SuiteDocument, whole
from evalmark.suite._strategy_spec import StrategySpec

__all__ = [
    "CONVERSATION_KEYS",
    "ConversationSpec",
    "ConversationsSpec",
    "TrajectorySpec",
    "UserModelSpec",
    "conversation_schema",
    "conversations",
]

CONVERSATION_KEYS = ("conversations", "turn-strategies", "user-model", "trajectory")
_CASE_KEYS = (
    "id",
    "tags",
    "turns",
    "persona",
    "opening",
    "max-turns",
    "stop-phrase",
    "expected-tool-calls",
)
_TURN_KEYS = ("text", "expected-output", "expected-facts", "context")
_USER_MODEL_KEYS = ("model-id", "cassette", "model")
_TRAJECTORY_KEYS = ("mode", "arguments")
_TRAJECTORY_MODES = ("strict", "unordered", "subset", "superset")
_ARGUMENT_MODES = ("exact", "ignore", "subset", "superset")


@dataclass(frozen=True, slots=True)
class ConversationSpec:
    """One conversation case: a scripted user (``turns``) or a persona played by the user
    model, its turn limit, the phrase of the assistant's that ends it, expected tool calls."""

    id: str
    tags: tuple[str, ...]
    turns: tuple[ScriptedTurn, ...] | None
    persona: str | None
    opening: str | None
    max_turns: int
    stop_phrase: str | None
    expected_tool_calls: tuple[ToolCall, ...] | None
    where: str


@dataclass(frozen=True, slots=True)
class UserModelSpec:
    """The chat model that plays persona users: replayed from ``cassette`` (recorded from
    ``model``, a ``module:factory``, in the record modes)."""

    model_id: str
    cassette: Path
    model: str | None
    base: Path
    lines: Mapping[str, int] = field(default_factory=dict)  # of "cassette" and "model"


@dataclass(frozen=True, slots=True)
class TrajectorySpec:
    """The trajectory check of the conversations: how the tool calls made over a whole
    conversation must match its ``expected-tool-calls`` (the modes of ``TrajectoryMatch``)."""

    mode: TrajectoryMode = "superset"
    arguments: ArgumentMode = "exact"


@dataclass(frozen=True, slots=True)
class ConversationsSpec:
    """The conversation part of an evaluation: the cases, the per-turn checks, the user model
    and the trajectory check."""

    cases: tuple[ConversationSpec, ...]
    turn_strategies: tuple[StrategySpec, ...]
    user_model: UserModelSpec | None
    trajectory: TrajectorySpec | None = None


def _turn(doc: SuiteDocument, key: PathKey, value: Any) -> ScriptedTurn | None:
    if isinstance(value, str):
        if not value.strip():
            doc.report(key, "a scripted turn is the user's message and cannot be empty")
            return None
        return ScriptedTurn(value)
    if not isinstance(value, dict):
        doc.report(
            key, f"a turn is a message or a mapping with 'text', found {describe_value(value)}"
        )
        return None
    doc.check_keys(key, value, _TURN_KEYS, "turn")
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        doc.report(key, "missing 'text': the user's message of this turn (a non-empty string)")
        return None
    expected = value.get("expected-output")
    if expected is not None and not isinstance(expected, str):
        doc.report((*key, "expected-output"), "expected text")
        expected = None
    facts = doc.string_list((*key, "expected-facts"), value.get("expected-facts"), "[30 days]")
    context = doc.string_list((*key, "context"), value.get("context"), "[a passage]")
    return ScriptedTurn(text, expected, facts, context)


def _tool_calls(doc: SuiteDocument, key: PathKey, value: Any) -> tuple[ToolCall, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        doc.report(key, "expected a list of tool calls, e.g. [{name: lookup_invoice}]")
        return None
    calls = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            doc.report((*key, index), "a tool call is a mapping with a 'name' (and 'arguments')")
            continue
        try:
            calls.append(ToolCall(item["name"], dict(item.get("arguments") or {})))
        except (TestCaseError, TypeError, ValueError) as exc:
            doc.report((*key, index), str(exc))
    return tuple(calls)


def _case(doc: SuiteDocument, key: PathKey, value: dict[str, Any]) -> ConversationSpec | None:
    doc.check_keys(key, value, _CASE_KEYS, "conversation")
    ident = value.get("id")
    if not isinstance(ident, str) or not ident.strip():
        doc.report(key, "missing 'id': name the conversation (a non-empty string)")
        return None
    shown = f"conversation '{ident}'"
    raw_turns = value.get("turns")
    persona = value.get("persona")
    turns: tuple[ScriptedTurn, ...] | None = None
    if raw_turns is not None and persona is not None:
        doc.report(key, f"{shown}: give scripted 'turns' or a 'persona', not both")
    if raw_turns is not None:
        if not isinstance(raw_turns, list) or not raw_turns:
            doc.report(
                (*key, "turns"),
                f"{shown} has no turns: list the user's messages, e.g. turns: [Hello]",
            )
        else:
            parsed = [_turn(doc, (*key, "turns", i), t) for i, t in enumerate(raw_turns)]
            turns = tuple(t for t in parsed if t is not None)
    elif persona is None:
        doc.report(key, f"{shown} has no turns: give scripted 'turns' or a 'persona'")
    if persona is not None and (not isinstance(persona, str) or not persona.strip()):
        doc.report((*key, "persona"), "expected text: who the user is and what they want")
        persona = None
    opening = value.get("opening")
    if opening is not None and (not isinstance(opening, str) or not opening.strip()):
        doc.report((*key, "opening"), "expected the user's first message (non-empty text)")
        opening = None
    default_turns = len(turns) if turns else 6
    max_turns = whole(value.get("max-turns", default_turns))
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        doc.report((*key, "max-turns"), "expected a whole number of at least 1, e.g. 6")
        max_turns = default_turns
    stop = value.get("stop-phrase")
    if stop is not None and (not isinstance(stop, str) or not stop.strip()):
        doc.report((*key, "stop-phrase"), "expected a phrase (non-empty text)")
        stop = None
    tags = doc.string_list((*key, "tags"), value.get("tags"), "tags: [billing]")
    calls = _tool_calls(doc, (*key, "expected-tool-calls"), value.get("expected-tool-calls"))
    return ConversationSpec(
        ident, tags, turns, persona, opening, max_turns, stop, calls, doc.at(key)
    )


def _user_model(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> UserModelSpec | None:
    mapping = doc.section(
        key,
        value,
        "user-model: {model-id: customer, cassette: users.jsonl}",
        _USER_MODEL_KEYS,
        "user model",
    )
    if mapping is None:
        return None
    cassette = mapping.get("cassette")
    if not isinstance(cassette, str):
        doc.report(key, "the user model needs 'cassette: users.jsonl' (its recorded replies)")
        return None
    model = mapping.get("model")
    if model is not None and (not isinstance(model, str) or ":" not in model):
        doc.report((*key, "model"), "expected 'package.module:factory' returning a chat model")
        model = None
    model_id = doc.string((*key, "model-id"), mapping.get("model-id"), default="simulated-user")
    lines = {name: doc.where((*key, name))[0] for name in ("cassette", "model")}
    return UserModelSpec(model_id, base / cassette, model, base, lines)


def conversations(
    doc: SuiteDocument,
    key: PathKey,
    value: dict[str, Any],
    base: Path,
    turn_strategies: tuple[StrategySpec, ...],
) -> ConversationsSpec:
    """The conversation part of an evaluation (``key`` is where the evaluation is)."""
    raw = value.get("conversations")
    cases: list[ConversationSpec] = []
    if not isinstance(raw, list) or not raw:
        doc.report((*key, "conversations"), "expected a non-empty list of conversations")
        raw = []
    seen: dict[str, int] = {}
    for index, item in enumerate(raw):
        item_key: PathKey = (*key, "conversations", index)
        if not isinstance(item, dict):
            doc.report(item_key, f"each conversation is a mapping, found {describe_value(item)}")
            continue
        case = _case(doc, item_key, item)
        if case is None:
            continue
        if case.id in seen:
            doc.report(
                (*item_key, "id"),
                f"duplicate conversation id '{case.id}' (also item {seen[case.id]})",
            )
        seen[case.id] = index + 1
        cases.append(case)
    user_model = _user_model(doc, (*key, "user-model"), value.get("user-model"), base)
    if user_model is None and any(c.persona is not None for c in cases):
        doc.report(
            key,
            "a conversation with a 'persona' needs 'user-model' (the model playing the user, "
            "with its cassette)",
        )
    if "samples" in value:
        doc.report((*key, "samples"), "an evaluation has 'samples' or 'conversations', not both")
    trajectory = _trajectory(doc, (*key, "trajectory"), value.get("trajectory"))
    if trajectory is not None:
        for index, case in enumerate(cases):
            if case.expected_tool_calls is None:
                doc.report(
                    (*key, "conversations", index),
                    f"conversation '{case.id}' has no 'expected-tool-calls', which the "
                    "trajectory check needs; write expected-tool-calls: [] for none",
                )
    return ConversationsSpec(tuple(cases), turn_strategies, user_model, trajectory)


def _choice(doc: SuiteDocument, key: PathKey, value: Any, allowed: tuple[str, ...]) -> bool:
    if value in allowed:
        return True
    suggestion = doc.suggest(value, allowed)
    hint = f"did you mean '{suggestion}'?" if suggestion else "use " + ", ".join(allowed)
    doc.report(key, f"unknown mode {value!r}; {hint}")
    return False


def _trajectory(doc: SuiteDocument, key: PathKey, value: Any) -> TrajectorySpec | None:
    mapping = doc.section(
        key,
        value,
        "trajectory: {mode: superset, arguments: ignore}",
        _TRAJECTORY_KEYS,
        "trajectory check",
    )
    if mapping is None:
        return None
    spec = TrajectorySpec()
    mode = mapping.get("mode", spec.mode)
    arguments = mapping.get("arguments", spec.arguments)
    if not _choice(doc, (*key, "mode"), mode, _TRAJECTORY_MODES):
        mode = spec.mode
    if not _choice(doc, (*key, "arguments"), arguments, _ARGUMENT_MODES):
        arguments = spec.arguments
    return TrajectorySpec(cast("TrajectoryMode", mode), cast("ArgumentMode", arguments))


def conversation_schema() -> dict[str, Any]:
    """The JSON Schema of the conversation keys of an evaluation (for editors)."""
    turn = {
        "oneOf": [
            {"type": "string", "pattern": "\\S"},
            {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "pattern": "\\S"},
                    "expected-output": {"type": "string"},
                    "expected-facts": {"type": "array", "items": {"type": "string"}},
                    "context": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["text"],
                "additionalProperties": False,
            },
        ]
    }
    case = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "\\S"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "turns": {"type": "array", "items": turn, "minItems": 1},
            "persona": {"type": "string", "pattern": "\\S"},
            "opening": {"type": "string", "pattern": "\\S"},
            "max-turns": {"type": "integer", "minimum": 1},
            "stop-phrase": {"type": "string", "pattern": "\\S"},
            "expected-tool-calls": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    return {
        "conversations": {"type": "array", "items": case, "minItems": 1},
        "turn-strategies": {"type": "array", "items": {"$ref": "#/$defs/strategy"}},
        "trajectory": {
            "type": "object",
            "description": "tool calls over each conversation against its expected-tool-calls",
            "properties": {
                "mode": {"enum": list(_TRAJECTORY_MODES)},
                "arguments": {"enum": list(_ARGUMENT_MODES)},
            },
            "additionalProperties": False,
        },
        "user-model": {
            "type": "object",
            "properties": {
                "model-id": {"type": "string", "pattern": "\\S"},
                "cassette": {"type": "string"},
                "model": {"type": "string", "pattern": ":"},
            },
            "required": ["cassette"],
            "additionalProperties": False,
        },
    }
