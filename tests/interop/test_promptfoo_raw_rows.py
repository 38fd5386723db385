"""Rows whose test cases are of the common shape keep their provider and response as JSON text
until read: whatever those texts hold, the import is the one of reading the file as plain
values (the column path, the row-by-row path, the samples' verdicts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.interop._model import Imported, Losses
from evalmark.interop._promptfoo import _from_results
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_results import _typed_cases

_MISSING = object()


def _row(index: int, provider: Any, response: Any) -> dict[str, Any]:
    row = {
        "promptIdx": 0,
        "testIdx": index,
        "testCase": {"vars": {"q": f"Q{index}"}, "assert": [{"type": "equals", "value": "A"}]},
        "prompt": {"raw": f"Q{index}?"},
        "provider": provider,
        "success": True,
    }
    if response is not _MISSING:
        row["response"] = response
    return row


def _write(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    doc = {"evalId": "e", "results": {"version": 3, "results": rows}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _plain(path: Path) -> Imported:
    reader = Reader(path, Losses(()))
    return _from_results(reader, reader.value)


def _same_import(path: Path) -> None:
    assert _typed_cases(path.read_bytes()) is not None  # the typed rows' path
    typed, plain = read("promptfoo", path), _plain(path)
    assert typed.outputs == plain.outputs
    assert typed.checks == plain.checks
    assert typed.columns(next(iter(typed.outputs))) == plain.columns(next(iter(plain.outputs)))
    assert [(s.name, s.metadata) for s in typed.samples] == [
        (s.name, s.metadata) for s in plain.samples
    ]


def test_one_provider_whose_text_differs_between_rows_is_one_build(tmp_path: Path) -> None:
    providers = [{"id": "a", "label": "L"}, {"label": "L", "id": "a"}]  # same, other order
    rows = [_row(i, providers[i % 2], {"output": "A", "cached": i}) for i in range(4)]
    _same_import(_write(tmp_path, rows))
    assert list(read("promptfoo", _write(tmp_path, rows)).outputs) == ["L"]


@pytest.mark.parametrize(
    "response",
    [
        {"output": "A", "tokenUsage": {"total": 3}, "cached": False},  # kept with the verdict
        {"output": {"json": [1, "é"]}},  # not a text: its JSON text is the answer
        {"cached": True},  # no output: an empty answer
        None,
        _MISSING,
        [],
    ],
)
def test_any_response_reads_as_the_plain_import(tmp_path: Path, response: Any) -> None:
    rows = [_row(0, "p", {"output": "A"}), _row(1, "p", response)]
    _same_import(_write(tmp_path, rows))


def test_two_providers_read_row_by_row_as_the_plain_import(tmp_path: Path) -> None:
    rows = [_row(i, provider, {"output": f"A{i}"}) for i in range(3) for provider in "pq"]
    path = _write(tmp_path, rows)
    _same_import(path)
    assert sorted(read("promptfoo", path).outputs) == ["p", "q"]


def test_a_repeated_answer_of_raw_rows_is_refused_as_on_the_plain_path(tmp_path: Path) -> None:
    path = _write(tmp_path, [_row(0, "p", {"output": "A"}), _row(0, "p", {"output": "B"})])
    with pytest.raises(ImportFormatError) as plain:
        _plain(path)
    with pytest.raises(ImportFormatError) as typed:
        read("promptfoo", path)
    assert str(typed.value) == str(plain.value)
