"""openai/evals' own test cases for its basic classes (``match_test.py``, ``includes_test.py``,
``fuzzy_match_test.py``, ``json_match_test.py``, ``utils_test.py``), copied as data and run
against evalmark's ``openai-evals`` check and its importer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._openai_evals import (
    OpenAIEvalsMatch,
    openai_f1_score,
    openai_fuzzy_normalize,
)


def _sample(ideal: str | list[str]) -> Sample:
    if isinstance(ideal, str):
        return Sample(name="s", parameters=Parameters(["Hello"]), expected_output=ideal)
    if len(ideal) == 1:
        return Sample(name="s", parameters=Parameters(["Hello"]), expected_output=ideal[0])
    return Sample(name="s", parameters=Parameters(["Hello"]), expected_outputs=tuple(ideal))


@pytest.mark.parametrize(("completion", "ideal", "match"), [("world", "world", True)])
@pytest.mark.parametrize("listed", [False, True])
def test_match_cases(completion: str, ideal: str, match: bool, listed: bool) -> None:
    check = OpenAIEvalsMatch("Match")
    assert check.evaluate(_sample([ideal] if listed else ideal), completion).passed is match


@pytest.mark.parametrize(
    ("completion", "ideal", "match", "ignore_case"),
    [
        ("world", "world", True, False),
        ("world", "wOrLd", True, True),
        ("world", ["world"], True, False),
        ("world", ["foo", "bar"], False, False),
        ("world", ["worldfoo", "worldbar"], False, False),
    ],
)
def test_includes_cases(
    completion: str, ideal: str | list[str], match: bool, ignore_case: bool
) -> None:
    check = OpenAIEvalsMatch("Includes", ignore_case=ignore_case)
    assert check.evaluate(_sample(ideal), completion).passed is match


@pytest.mark.parametrize(
    ("completion", "ideal", "accuracy", "f1"),
    [
        ("world", "world", 1.0, 1.0),
        ("world", "foo", 0.0, 0.0),
        ("world", ["some foo world", "dummy"], 1.0, 0.5),
    ],
)
def test_fuzzy_match_cases_with_their_f1_score(
    completion: str, ideal: str | list[str], accuracy: float, f1: float
) -> None:
    result = OpenAIEvalsMatch("FuzzyMatch").evaluate(_sample(ideal), completion)
    assert (result.passed, result.score) == (accuracy == 1.0, accuracy)
    assert result.metadata["f1_score"] == f1
    assert openai_f1_score(completion, [ideal] if isinstance(ideal, str) else ideal) == f1


JSON_CASES: list[tuple[str, str | list[str], float]] = [
    ('{ "key": "value" }', '{ "key": "value" }', 1.0),
    ('{\n   "key":"value"\n   }\n', '{ "key": "value" }', 1.0),
    ('{ "key2": "foo", "key1": "bar" }', '{ "key1": "bar", "key2": "foo" }', 1.0),
    ('{ "key": "value" }', '{ "key": "notvalue" }', 0.0),
    ('{ "key": 100 }', '{ "key": 100 }', 1.0),
    ('{ "key": 100 }', '{ "key": 100.1 }', 0.0),
    ('{ "key": 100 }', ['{ "key": 100.1 }', '{ "key": 100 }'], 1.0),
    ('{ "key": 100 }', ['{ "key": 100.1 }', '{ "key": 99.9 }'], 0.0),
    ('{ "key": "value" }', '{ "anotherkey": "value" }', 0.0),
    ('{ "key": "value" }', '{ "key": "value", "anotherkey": "value" }', 0.0),
    ('{ "key": "value", "anotherkey": "value" }', '{ "key": "value" }', 0.0),
    ('{ "key": [1.0,2.0,3.0] }', '{ "key": [1, 2, 3] }', 1.0),
    ('{ "key": [1, 2, 3] }', '{ "key": [1, 2, 3, 3] }', 0.0),
    ('{ "key": [1, 2, 3] }', '{ "key": [1, 3, 2] }', 0.0),
    ('{ "key": [] }', '{ "key": [1] }', 0.0),
    ('{ "key": "value }', '{ "key": "value" }', 0.0),
    # json_match's own rule, beyond its tests: a null (a missing value) never matches
    ('{ "key": null }', '{ "key": null }', 0.0),
    ("null", "null", 0.0),
    ("[null]", "[null]", 0.0),
]


@pytest.mark.parametrize(("completion", "ideal", "accuracy"), JSON_CASES)
def test_json_match_cases(completion: str, ideal: str | list[str], accuracy: float) -> None:
    result = OpenAIEvalsMatch("JsonMatch").evaluate(_sample(ideal), completion)
    assert (result.passed, result.score) == (accuracy == 1.0, accuracy)


def test_an_ideal_answer_that_is_not_json_is_an_error_of_the_sample() -> None:
    """OpenAI Evals parses every ideal answer before comparing, and lets a bad one raise."""
    result = OpenAIEvalsMatch("JsonMatch").evaluate(_sample(['{"a": 1}', "{bad"]), '{"a": 1}')
    assert not result.passed and result.error is not None
    assert "not JSON" in result.explanation


@pytest.mark.parametrize(
    ("text", "normalized"), [("", ""), ("Hello", "hello"), ("hello\nworld", "hello world")]
)
def test_normalize_cases(text: str, normalized: str) -> None:
    assert openai_fuzzy_normalize(text) == normalized


@pytest.mark.parametrize(
    ("s1", "s2", "match"),
    [
        ("", "", True),
        ("x", "", False),
        ("Hello", "Hello", True),
        ("hello", "othello", True),
        ("hello", "oh tello", False),
        ("Hello World", "foo\nhello world", True),
        ("who's there?", "whos there", True),
        ("who's there?", "whosthere", False),
        ("an apple a day that the", "apple day that", True),
    ],
)
def test_fuzzy_match_util_cases_both_ways(s1: str, s2: str, match: bool) -> None:
    check = OpenAIEvalsMatch("FuzzyMatch")
    assert check.evaluate(_sample(s2), s1).passed is match
    assert check.evaluate(_sample(s1), s2).passed is match


@pytest.mark.parametrize("eval_class", ["Match", "Includes", "FuzzyMatch", "JsonMatch"])
@pytest.mark.parametrize(
    "line", [None, "", {"ideal": "world"}, {"input": "world"}, {"input": "Hello", "ideal": 42}]
)
def test_samples_the_classes_assert_against_are_refused_at_import(
    tmp_path: Path, eval_class: str, line: Any
) -> None:
    """evals' ``test_eval_sample_raises`` cases (and Match's ``ideal=42``): a sample that is not
    an object, or lacks ``input`` or ``ideal``, or whose ideal is not text."""
    (tmp_path / "samples.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "x:\n  id: x.dev.v0\nx.dev.v0:\n"
        f"  class: evals.elsuite.basic.m:{eval_class}\n"
        "  args: {samples_jsonl: samples.jsonl}\n",
        encoding="utf-8",
    )
    with pytest.raises(ImportFormatError, match=r"samples\.jsonl:1"):
        read("openai-evals", spec)
