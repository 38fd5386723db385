"""The promptfoo results reader's shortcut for tests of the common shape makes what the
general test reader makes, and leaves every other test to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalmark.interop._model import Losses
from evalmark.interop._promptfoo import _test
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_results import _plain_test

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
    {"assert": [{"type": "rouge-n", "value": "a"}]},
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
