"""DeepEval's multi-turn records as evalmark conversations: a conversational golden (``scenario``
and ``turns``, as ``EvaluationDataset.save_as`` writes it) or a conversational test case of a
test run (``conversationalTestCases``: ``turns`` with ``order``, ``metricsData``).

The user turns are the scripted user's messages, in order; the assistant turns are the replies
of the recorded build ``deepeval`` (a conversation either answers every user turn, or none).
The turns must alternate, starting with the user, as evalmark's simulated conversations do.
What no check reads (the scenario, the expected outcome, the user description, a test run's
recorded metric results...) is kept verbatim in ``source.json`` by conversation name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import ImportedConversation, Losses

__all__ = ["BUILD", "is_conversational", "read_conversation"]

BUILD = "deepeval"
"""The recorded build of a DeepEval file's answers."""

# A turn's fields: carried (role, content, order), kept verbatim, or lost unless allowed.
_TURN_KEPT = ("user_id", "userId", "metadata", "comments")
_TURN_LOST = (
    "retrieval_context",
    "retrievalContext",
    "tools_called",
    "toolsCalled",
    "mcp_tools_called",
    "mcp_resources_called",
    "mcp_prompts_called",
)
_TURN_KEYS = frozenset({"role", "content", "order", *_TURN_KEPT, *_TURN_LOST})
# A conversation's fields besides its turns: its name, its tags, and what is kept verbatim.
_CASE_KEPT = frozenset(
    {
        "scenario",
        "expected_outcome",
        "expectedOutcome",
        "user_description",
        "userDescription",
        "persona",
        "context",
        "comments",
        "additional_metadata",
        "metadata",
        "custom_column_key_values",
        "success",
        "metricsData",
        "runDuration",
        "evaluationCost",
        "order",
        "flaky",
    }
)
_CASE_KEYS = frozenset({"name", "turns", "tags", *_CASE_KEPT})


def is_conversational(record: Any) -> bool:
    """True for a conversational golden (a ``scenario`` or ``turns``, no ``input``)."""
    return (
        isinstance(record, Mapping)
        and "input" not in record
        and ("scenario" in record or "turns" in record)
    )


def _error(message: str, path: Path, line: int | None, field: str | None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=field)])


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _turns(value: Any, where: str, path: Path, line: int | None) -> list[Any]:
    if isinstance(value, str):  # CSV writes the turns as JSON text
        try:
            value = json.loads(value)
        except ValueError:
            raise _error("'turns' is not a JSON list of turns", path, line, where) from None
    if not isinstance(value, list) or not value:
        raise _error(
            "a conversation needs its turns (role and content); one with only a scenario has "
            "no messages to script: simulate it with DeepEval first and import the test run",
            path,
            line,
            where,
        )
    turns: list[Any] = value
    if all(isinstance(t, Mapping) and isinstance(t.get("order"), int) for t in turns):
        turns = sorted(turns, key=lambda t: t["order"])
    return turns


def read_conversation(
    record: Mapping[str, Any],
    index: int,
    where: str,
    path: Path,
    line: int | None,
    losses: Losses,
) -> tuple[ImportedConversation, dict[str, Any]]:
    """One conversation and what is kept of it verbatim (see the module docstring)."""
    for key in sorted(k for k in set(record) - _CASE_KEYS if not _empty(record[k])):
        losses.refuse(key, f"field {key!r} is not carried", str(path), line, f"{where}.{key}")
    name = str(record.get("name") or f"conversation-{index + 1}")
    users: list[str] = []
    replies: list[str] = []
    kept_turns: list[dict[str, Any]] = []
    for number, turn in enumerate(_turns(record.get("turns"), f"{where}.turns", path, line)):
        at = f"{where}.turns[{number}]"
        if not isinstance(turn, Mapping) or not isinstance(turn.get("content"), str):
            raise _error("a turn needs a role and a content text", path, line, at)
        role = turn.get("role")
        expected = "user" if len(users) == len(replies) else "assistant"
        if role not in ("user", "assistant"):
            raise _error(f"a turn's role is 'user' or 'assistant', not {role!r}", path, line, at)
        if role != expected:
            raise _error(
                f"turn {number + 1} is an {role} turn where the {expected} speaks: evalmark "
                "scripts conversations that alternate, the user first",
                path,
                line,
                at,
            )
        for key in sorted(k for k in set(turn) - _TURN_KEYS if not _empty(turn[k])):
            losses.refuse(f"turns.{key}", f"turn field {key!r} is not carried", str(path), line, at)
        for key in _TURN_LOST:
            if not _empty(turn.get(key)):
                what = f"turn field {key!r} (what the assistant used) is not carried"
                losses.refuse(f"turns.{key}", what, str(path), line, f"{at}.{key}")
        (users if role == "user" else replies).append(turn["content"])
        kept = {k: turn[k] for k in _TURN_KEPT if not _empty(turn.get(k))}
        if kept:
            kept_turns.append({"turn": number + 1, **kept})
    if replies and len(replies) != len(users):
        raise _error(
            "the last user turn has no reply: a recorded build needs a reply to every user turn",
            path,
            line,
            f"{where}.turns",
        )
    tags = record.get("tags")
    conversation = ImportedConversation(
        name=name,
        turns=tuple(users),
        answers={BUILD: tuple(replies)} if replies else {},
        tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
    )
    kept_case = {k: record[k] for k in sorted(_CASE_KEPT) if not _empty(record.get(k))}
    if kept_turns:
        kept_case["turns"] = kept_turns
    return conversation, kept_case
