"""DeepEval goldens and test cases, as ``EvaluationDataset.save_as`` writes them: a JSON list,
JSONL, or CSV (list fields joined with ``|``, tool calls and metadata as JSON text, as
DeepEval itself reads them back).

``input`` is the sample's parameter, ``expected_output`` its expected output, ``context`` its
context; ``actual_output`` is the answer of the recorded build ``deepeval``. ``retrieval_context``,
``tools_called`` and ``expected_tools`` go to the test cases (``Imported.test_cases``, and
``testcases/deepeval.jsonl`` in the suite folder); ``name`` names the sample; ``comments``,
``source_file``, ``additional_metadata``, ``custom_column_key_values`` and the token counts and
cost are kept in the sample's metadata. DeepEval's files declare no metric: the suite's checks
come from ``--check``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from evalmark._files.json_read import read_json
from evalmark._files.yaml_read import read_yaml_document
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._deepeval_turns import BUILD, is_conversational, read_conversation
from evalmark.interop._model import (
    Imported,
    ImportedConversation,
    Losses,
    jsonl_rows,
    source_hash,
)
from evalmark.samples._case import ToolCall
from evalmark.samples._sample import Parameters, Sample

__all__ = ["KEPT", "read_deepeval", "single_turn"]

_LISTS = ("context", "retrieval_context")
_TOOLS = ("tools_called", "expected_tools")
KEPT = {
    "comments": "deepeval-comments",
    "source_file": "deepeval-source-file",
    "additional_metadata": "deepeval-additional-metadata",
    "custom_column_key_values": "deepeval-custom-column-key-values",
    "token_cost": "deepeval-token-cost",
    "input_token_count": "deepeval-input-token-count",
    "output_token_count": "deepeval-output-token-count",
}
_KNOWN = {"input", "actual_output", "expected_output", "name", "tags", *_LISTS, *_TOOLS, *KEPT}
_JSON_TEXT = {"additional_metadata", "custom_column_key_values"}
_TOOL_KEYS = {"name", "type", "inputParameters", "input_parameters", "output"}


def _rows(path: Path) -> Iterator[tuple[int, Any]]:
    """Each record with its line."""
    if path.suffix == ".csv":
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline=""))
        line = reader.line_num + 1
        for row in reader:
            yield line, row
            line = reader.line_num + 1
    elif path.suffix == ".jsonl":
        yield from jsonl_rows(path)
    elif path.suffix == ".json":
        # the JSON reader, not YAML's: YAML refuses a character escaped as a surrogate pair
        for item in read_json(path.read_bytes(), str(path), ImportFormatError):
            yield item.line, item.value
    else:
        record = read_yaml_document(path.read_bytes(), str(path), ImportFormatError)
        if record is None or not isinstance(record.value, list):
            raise _error("a DeepEval JSON file is a list of goldens or test cases", path, None)
        for index, item in enumerate(record.value):
            yield record.position((index,))[0], item


def _error(message: str, path: Path, line: int | None, field: str | None = None) -> Any:
    return ImportFormatError([Problem(message, path=str(path), line=line, record=field)])


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _tools(
    value: Any, field: str, path: Path, line: int | None, losses: Losses
) -> tuple[ToolCall, ...]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise _error(f"'{field}' is not a JSON list of tool calls", path, line, field) from None
    if not isinstance(value, list):
        raise _error(f"'{field}' must be a list of tool calls", path, line, field)
    calls = []
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise _error(f"a tool call of '{field}' needs a name", path, line, field)
        for key in sorted(k for k in set(item) - _TOOL_KEYS if not _empty(item[k])):
            losses.refuse(
                f"{field}.{key}", f"tool call field {key!r} is not carried", str(path), line, field
            )
        if item.get("type", "FUNCTION") != "FUNCTION":
            losses.refuse(
                f"{field}.type",
                f"tool type {item['type']!r} is not carried",
                str(path),
                line,
                field,
            )
        arguments = item.get("inputParameters", item.get("input_parameters")) or {}
        calls.append(
            ToolCall(name=item["name"], arguments=dict(arguments), result=item.get("output"))
        )
    return tuple(calls)


def _texts(value: Any, field: str, path: Path, line: int | None) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(value.split("|"))  # DeepEval's own delimiter for lists in CSV and JSONL
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _error(f"'{field}' must be a list of texts", path, line, field)


def _kept(field: str, value: Any, path: Path, line: int | None) -> Any:
    if field in _JSON_TEXT and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise _error(f"'{field}' is not JSON", path, line, field) from None
    if field.endswith("_count") and isinstance(value, str):
        return int(value)
    if field == "token_cost" and isinstance(value, str):
        return float(value)
    return value


def single_turn(
    rows: Iterable[tuple[int | None, Any]],
    path: Path,
    losses: Losses,
    kept: Mapping[str, str] = KEPT,
) -> tuple[list[Sample], dict[str, str], dict[str, dict[str, Any]]]:
    """The samples, answers and test-case fields of single-turn records (goldens or test
    cases, snake_case keys); ``kept`` maps the fields kept in metadata to their keys."""
    samples: list[Sample] = []
    answers: dict[str, str] = {}
    extra: dict[str, dict[str, Any]] = {}
    missing_answer: tuple[int | None] | None = None
    known = _KNOWN | set(kept)
    for line, row in rows:
        if not isinstance(row, Mapping) or not isinstance(row.get("input"), str):
            raise _error("a golden needs an 'input' text", path, line, "input")
        for key in sorted(k for k in set(row) - known if not _empty(row[k])):
            losses.refuse(key, f"field {key!r} is not carried", str(path), line, key)
        name = row.get("name") or f"golden-{len(samples) + 1}"
        metadata = {
            meta: _kept(field, row[field], path, line)
            for field, meta in kept.items()
            if not _empty(row.get(field))
        }
        expected = row.get("expected_output")
        tags = row.get("tags")
        sample = Sample(
            name=str(name),
            parameters=Parameters([row["input"]]),
            expected_output=expected if isinstance(expected, str) else "",
            context=()
            if _empty(row.get("context"))
            else _texts(row["context"], "context", path, line),
            tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
            metadata=metadata,
        )
        samples.append(sample)
        case: dict[str, Any] = {}
        if not _empty(row.get("retrieval_context")):
            case["retrieval_context"] = _texts(
                row["retrieval_context"], "retrieval_context", path, line
            )
        if not _empty(row.get("tools_called")):
            case["tool_calls"] = _tools(row["tools_called"], "tools_called", path, line, losses)
        if not _empty(row.get("expected_tools")):
            case["expected_tool_calls"] = _tools(
                row["expected_tools"], "expected_tools", path, line, losses
            )
        if case:
            extra[sample.name] = case
        if _empty(row.get("actual_output")):
            missing_answer = missing_answer or (line,)
        else:
            answers[sample.name] = str(row["actual_output"])
    if answers and missing_answer is not None:
        raise _error(
            "some records have an actual_output and this one has none: a recorded build needs "
            "every answer",
            path,
            missing_answer[0],
            "actual_output",
        )
    return samples, answers, extra


def read_deepeval(path: Path, losses: Losses) -> Imported:
    """Read a DeepEval goldens or test-case file (see the module's docstring; test-run files:
    :mod:`~evalmark.interop._deepeval_runs`)."""
    rows = list(_rows(path))
    if rows and is_conversational(rows[0][1]):
        return _conversational(rows, path, losses)
    samples, answers, extra = single_turn(rows, path, losses)
    return imported(
        path,
        path.suffix.lstrip(".") or "json",
        losses,
        samples=samples,
        answers=answers,
        extra=extra,
    )


def imported(
    path: Path,
    version: str,
    losses: Losses,
    *,
    samples: Iterable[Sample] = (),
    answers: Mapping[str, str] | None = None,
    kept: Mapping[str, Any] | None = None,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
    conversations: Iterable[ImportedConversation] = (),
) -> Imported:
    """What one DeepEval file imports as: its samples (or conversations), the recorded answers
    as the build ``deepeval``, and the losses the user allowed."""
    return Imported(
        format="deepeval",
        version=version,
        files=(str(path),),
        sha256=source_hash([path]),
        samples=tuple(samples),
        checks=(),
        outputs={BUILD: answers} if answers else {},
        lost=losses.used(),
        kept=kept or {},
        extra=extra or {},
        conversations=tuple(conversations),
    )


def _conversational(rows: list[tuple[int, Any]], path: Path, losses: Losses) -> Imported:
    """Conversational goldens: one conversation each (see :mod:`._deepeval_turns`)."""
    conversations = []
    kept: dict[str, Any] = {}
    for index, (line, row) in enumerate(rows):
        if not is_conversational(row):
            raise _error(
                "a file mixes conversational goldens with single-turn ones", path, line, "input"
            )
        conversation, rest = read_conversation(row, index, f"[{index}]", path, line, losses)
        if conversation.name in kept:
            raise _error(f"two conversations are named {conversation.name!r}", path, line, "name")
        conversations.append(conversation)
        kept[conversation.name] = rest
    answered = [c for c in conversations if c.answers]
    if answered and len(answered) != len(conversations):
        unanswered = next(c.name for c in conversations if not c.answers)
        raise _error(
            f"conversation {unanswered!r} has no assistant turns while others do: a recorded "
            "build needs every reply",
            path,
            None,
            "turns",
        )
    version = f"conversational-{path.suffix.lstrip('.') or 'json'}"
    return imported(
        path, version, losses, kept={"conversations": kept}, conversations=conversations
    )
