"""promptfoo results of the common shape are read through typed rows: the same import as
reading them as plain values, and any other file still goes the plain way."""

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
from evalmark.interop._promptfoo_results import _typed

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"


def _plain(path: Path, allow: tuple[str, ...] = ()) -> Imported:
    reader = Reader(path, Losses(allow))
    return _from_results(reader, reader.value)


def _same(typed: Imported, plain: Imported) -> None:
    assert typed.outputs == plain.outputs
    assert typed.kept == plain.kept
    assert typed.sha256 == plain.sha256
    assert typed.checks == plain.checks
    assert typed.lost == plain.lost
    assert [s.name for s in typed.samples] == [s.name for s in plain.samples]
    for one, other in zip(typed.samples, plain.samples, strict=True):
        assert one.metadata == other.metadata
        assert one.expected_output == other.expected_output
        assert one.parameters[0] == other.parameters[0]


@pytest.mark.parametrize("name", ["results.json", "rubric_results.json"])
def test_the_typed_rows_give_the_plain_import(name: str) -> None:
    path = FIXTURES / name
    assert _typed(path.read_bytes()) is not None
    _same(read("promptfoo", path), _plain(path))


def _row(index: int, provider: Any, output: Any, **extra: Any) -> dict[str, Any]:
    return {
        "promptIdx": 0,
        "testIdx": index,
        "testCase": {"vars": {"q": f"Q{index}é"}, "assert": [{"type": "equals", "value": "A"}]},
        "prompt": {"raw": f"Q{index}é?", "label": "{{q}}"},
        "provider": provider,
        "response": {"output": output, "cached": index % 2 == 0},
        "success": output == "A",
        "score": 1.0 if output == "A" else 0.0,
        "gradingResult": None,
        **extra,
    }


def _write(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    doc = {"evalId": "e", "results": {"version": 3, "timestamp": "t", "results": rows}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_generated_rows_give_the_plain_import(tmp_path: Path) -> None:
    rows = [
        _row(i, provider, output)
        for i in range(6)
        for provider, output in (({"id": "a:b", "label": ""}, "A"), ("c", {"x": [i]}))
    ]
    path = _write(tmp_path, rows)
    assert _typed(path.read_bytes()) is not None
    _same(read("promptfoo", path), _plain(path))


@pytest.mark.parametrize(
    "change",
    [
        {"extraField": 1},  # refused by name unless allowed
        {"testIdx": 1.0},  # not an integer: read as plain values
        {"prompt": {"label": "no raw"}},
    ],
)
def test_rows_of_another_shape_are_read_as_plain_values(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    rows = [_row(0, "p", "A"), _row(1, "p", "B", **change)]
    path = _write(tmp_path, rows)
    assert _typed(path.read_bytes()) is None
    try:
        expected: Any = _plain(path, ("result.extraField",))
    except ImportFormatError as error:
        with pytest.raises(ImportFormatError) as caught:
            read("promptfoo", path, allow_loss=["result.extraField"])
        assert str(caught.value) == str(error)
        return
    _same(read("promptfoo", path, allow_loss=["result.extraField"]), expected)


def test_a_repeated_answer_is_refused_on_the_typed_path_as_on_the_plain_one(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, [_row(0, "p", "A"), _row(1, "p", "B"), _row(1, "p", "B")])
    assert _typed(path.read_bytes()) is not None
    with pytest.raises(ImportFormatError) as plain:
        _plain(path)
    with pytest.raises(ImportFormatError) as typed:
        read("promptfoo", path)
    assert "answers test-2-prompt-1 twice" in str(typed.value)
    assert str(typed.value) == str(plain.value)
