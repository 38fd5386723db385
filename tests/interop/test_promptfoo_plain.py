"""The promptfoo results reader's shortcut for tests of the common shape makes what the
general test reader makes, and leaves every other test to it; one provider's rows read by
column are read as they are row by row, and a file of the keys promptfoo writes is read in
one pass as it is part by part."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.interop import read
from evalmark.interop._model import Losses
from evalmark.interop._promptfoo import _test
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_results import (
    _columns,
    _each_row,
    _plain_test,
    _typed,
    _typed_by_parts,
)

PLAIN: list[dict[str, Any]] = [
    {},
    {"vars": {"q": "What?", "n": 2, "x": 1.5}},
    {"vars": None, "assert": None, "threshold": 0.5},
    {"assert": [{"type": "equals", "value": "Paris"}], "description": "d", "metadata": {"a": 1}},
    {"assert": [{"threshold": 0.8, "value": "a b", "type": "levenshtein", "weight": 2}]},
    {"assert": [{"type": "contains", "value": ["x"]}, {"type": "is-json"}]},
]
OTHER: list[dict[str, Any]] = [
    {"vars": {"flag": True}},
    {"vars": {"nested": {"a": 1}}},
    {"vars": ["q"]},
    {"assert": {"type": "equals"}},
    {"assert": [{"type": "equals", "value": "{{ q }}"}], "vars": {"q": "x"}},
    {"assert": [{"type": "javascript", "value": "output"}]},
    {"assert": [{"type": "equals", "value": "x", "provider": "p"}]},
    {"assert": ["equals"]},
    {"assert": [{"type": ["equals"]}]},
    {"options": {}},
    {"assert": [{"type": "similar", "value": "a"}]},
]


def _reader(tmp_path: Path) -> Reader:
    path = tmp_path / "results.json"
    path.write_text("{}", encoding="utf-8")
    return Reader(path, Losses([]), value={})


@pytest.mark.parametrize("test", PLAIN)
def test_a_plain_test_is_read_as_the_general_reader_reads_it(
    tmp_path: Path, test: dict[str, Any]
) -> None:
    assert _plain_test(test) == _test(_reader(tmp_path), test, {}, ("results", 0, "testCase"))


@pytest.mark.parametrize("test", OTHER)
def test_any_other_test_is_left_to_the_general_reader(tmp_path: Path, test: dict[str, Any]) -> None:
    assert _plain_test(test) is None


FIXTURE = Path(__file__).parent / "fixtures" / "promptfoo" / "results.json"


def test_one_providers_rows_read_by_column_are_read_as_row_by_row(tmp_path: Path) -> None:
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    rows = document["results"]["results"]
    document["results"]["results"] = [r for r in rows if r["provider"] == rows[0]["provider"]]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    typed = _typed(path.read_bytes())
    assert typed is not None
    by_column = _columns(typed[1], {})
    assert by_column is not None
    assert by_column == _each_row(Reader(path, Losses([]), value={}), typed[1], {})
    imported = read("promptfoo", path)
    assert imported.samples == read("promptfoo", path).samples
    assert len(imported.samples) == len(document["results"]["results"])


@pytest.mark.parametrize("name", ["results.json", "rubric_results.json"])
def test_a_results_file_read_in_one_pass_is_read_as_part_by_part(tmp_path: Path, name: str) -> None:
    data = (FIXTURE.parent / name).read_bytes()
    assert _typed(data) is not None
    assert _typed(data) == _typed_by_parts(data)
    document = json.loads(data)
    document["sharedBy"] = "someone"  # a key promptfoo does not write: read part by part
    other = json.dumps(document).encode("utf-8")
    typed = _typed(other)
    assert typed is not None
    assert typed[0]["sharedBy"] == "someone"
    assert typed == _typed_by_parts(other)
