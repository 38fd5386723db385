"""Ragas ``EvaluationDataset`` JSONL (``EvaluationDataset.to_jsonl``): single-turn samples
(``user_input`` a text) and multi-turn samples (``user_input`` a list of messages).

``user_input`` is the sample's parameter (a multi-turn conversation: the message list itself,
sent as its JSON); ``reference`` the expected output; ``reference_contexts`` the context;
``response`` the answer of the recorded build ``ragas``; ``retrieved_contexts`` and
``reference_tool_calls`` go to the test cases (``retrieval-context``, ``expected-tool-calls``);
``rubrics`` and ``reference_topics`` are kept in the sample's metadata. Ragas datasets name no
metric: the suite's checks come from ``--check``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import Imported, Losses, jsonl_rows, source_hash
from evalmark.samples._case import ToolCall
from evalmark.samples._sample import Parameters, Sample

__all__ = ["read_ragas"]

_KNOWN = {
    "user_input",
    "response",
    "reference",
    "retrieved_contexts",
    "reference_contexts",
    "reference_tool_calls",
    "rubrics",
    "reference_topics",
}


def _error(message: str, path: Path, line: int, field: str | None = None) -> Any:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=field)])


def _texts(value: Any, field: str, path: Path, line: int) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _error(f"'{field}' must be a list of texts", path, line, field)


def _question(value: Any, path: Path, line: int) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(m, Mapping) and isinstance(m.get("content"), str) for m in value
    ):
        return [dict(m) for m in value]
    raise _error("'user_input' must be a text or a list of messages", path, line, "user_input")


def _calls(value: Any, path: Path, line: int) -> tuple[ToolCall, ...]:
    if not isinstance(value, list) or not all(
        isinstance(c, Mapping) and isinstance(c.get("name"), str) and set(c) <= {"name", "args"}
        for c in value
    ):
        raise _error(
            "'reference_tool_calls' must be a list of {name, args}",
            path,
            line,
            "reference_tool_calls",
        )
    return tuple(ToolCall(name=c["name"], arguments=dict(c.get("args") or {})) for c in value)


def read_ragas(path: Path, losses: Losses) -> Imported:
    """Read a Ragas EvaluationDataset JSONL file (see the module's docstring)."""
    samples: list[Sample] = []
    answers: dict[str, str] = {}
    extra: dict[str, dict[str, Any]] = {}
    missing: int | None = None
    for line, row in jsonl_rows(path):
        if not isinstance(row, Mapping) or "user_input" not in row:
            raise _error("a sample needs 'user_input'", path, line, "user_input")
        for key in sorted(k for k in set(row) - _KNOWN if row[k] is not None):
            losses.refuse(key, f"field {key!r} is not carried", str(path), line, key)
        name = f"sample-{len(samples) + 1}"
        reference = row.get("reference")
        metadata = {
            f"ragas-{key.replace('_', '-')}": row[key]
            for key in ("rubrics", "reference_topics")
            if row.get(key) is not None
        }
        contexts = row.get("reference_contexts")
        samples.append(
            Sample(
                name=name,
                parameters=Parameters([_question(row["user_input"], path, line)]),
                expected_output=reference if isinstance(reference, str) else "",
                context=()
                if contexts is None
                else _texts(contexts, "reference_contexts", path, line),
                metadata=metadata,
            )
        )
        case: dict[str, Any] = {}
        if row.get("retrieved_contexts") is not None:
            case["retrieval_context"] = _texts(
                row["retrieved_contexts"], "retrieved_contexts", path, line
            )
        if row.get("reference_tool_calls") is not None:
            case["expected_tool_calls"] = _calls(row["reference_tool_calls"], path, line)
        if case:
            extra[name] = case
        if isinstance(row.get("response"), str):
            answers[name] = row["response"]
        elif missing is None:
            missing = line
    if answers and missing is not None:
        raise _error(
            "some samples have a response and this one has none: a recorded build needs every "
            "answer",
            path,
            missing,
            "response",
        )
    return Imported(
        format="ragas",
        version="evaluation-dataset-jsonl",
        files=(str(path),),
        sha256=source_hash([path]),
        samples=tuple(samples),
        checks=(),
        outputs={"ragas": answers} if answers else {},
        lost=losses.used(),
        extra=extra,
    )
