"""A results file whose test cases are all of the common shape is decoded with the cases
typed: each row's case is then what the plain reader's shortcut makes of it, and a file with
any other case is left to the plain reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.interop._promptfoo import _CARRIED
from evalmark.interop._promptfoo_results import _plain_test, _typed, _typed_plain

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"
PLAIN: list[dict[str, Any]] = [
    {},
    {"vars": {"q": "What?", "n": 2, "x": 1.5, "é": "ü\u2028"}},
    {"threshold": 0.5, "description": None},
    {"assert": [{"type": "equals", "value": "Paris"}], "description": "d", "metadata": {"a": 1}},
    {"assert": [{"threshold": 0.8, "value": "a b", "type": "levenshtein", "weight": 2}]},
    {"assert": [{"type": "contains", "value": ["x"]}, {"type": "is-json"}]},
    {"assert": [{"type": "equals", "value": None}, {"type": "equals", "value": 3}]},
]
OTHER: list[Any] = [
    None,
    {"vars": None},  # read as empty by the shortcut: left to the plain reader
    {"assert": None},
    [],
    {"vars": {"flag": True}},
    {"vars": {"none": None}},
    {"vars": {"nested": {"a": 1}}},
    {"vars": ["q"]},
    {"assert": {"type": "equals"}},
    {"assert": [{"type": "equals", "value": "{{ q }}"}], "vars": {"q": "x"}},
    {"assert": [{"type": "javascript", "value": "output"}]},
    {"assert": [{"type": "equals", "value": "x", "provider": "p"}]},
    {"assert": ["equals"]},
    {"assert": [{"value": "x"}]},
    {"assert": [{"type": ["equals"]}]},
    {"options": {}},
    {"assert": [{"type": "similar", "value": "a"}]},
]


def _with_case(case: Any) -> bytes:
    document = json.loads((FIXTURES / "results.json").read_text(encoding="utf-8"))
    for row in document["results"]["results"]:
        row["testCase"] = case
    return json.dumps(document).encode("utf-8")


def _cases(read: tuple[dict[str, Any], list[Any]] | None) -> list[Any]:
    assert read is not None
    return [row.test_case for row in read[1]]


@pytest.mark.parametrize("name", ["results.json", "rubric_results.json"])
def test_a_fixture_decoded_with_typed_cases_reads_as_the_shortcut(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    typed, plain = _typed_plain(data), _typed(data)
    expected = [_plain_test(case) for case in _cases(plain)]
    if None in expected:  # the rubric's fixture: a template in an assertion
        assert typed is None
        return
    assert typed is not None and plain is not None
    assert typed[0] == plain[0]
    assert _cases(typed) == expected


@pytest.mark.parametrize("case", PLAIN)
def test_a_plain_case_is_decoded_as_the_shortcut_reads_it(case: dict[str, Any]) -> None:
    data = _with_case(case)
    expected = [_plain_test(each) for each in _cases(_typed(data))]
    assert None not in expected
    found = _cases(_typed_plain(data))
    assert found == expected
    assert [list(each) for each in found] == [list(each) for each in expected]  # key order
    assert [[list(a) for a in each["assert"]] for each in found] == [
        [list(a) for a in each["assert"]] for each in expected
    ]


@pytest.mark.parametrize("case", OTHER)
def test_any_other_case_leaves_the_file_to_the_plain_reader(case: Any) -> None:
    assert _typed_plain(_with_case(case)) is None


_TEXT = st.text(alphabet=st.sampled_from(["a", " ", "{", "}", "é", "\u2028", "\n", "\ud800"]))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_TEXT, inner, max_size=2),
    max_leaves=4,
)
_ASSERT = st.dictionaries(
    st.sampled_from(["type", "value", "weight", "threshold", "provider"]),
    st.sampled_from(sorted(_CARRIED)) | st.sampled_from(["javascript", "similar"]) | _JSON,
    max_size=4,
)
_CASE = st.dictionaries(
    st.sampled_from(["vars", "assert", "threshold", "description", "metadata", "options"]),
    st.dictionaries(_TEXT, _JSON, max_size=3) | st.lists(_ASSERT, max_size=3) | _JSON,
    max_size=4,
)


@settings(max_examples=examples(150), deadline=None)
@given(cases=st.lists(_CASE, min_size=1, max_size=3))
def test_typed_cases_read_what_the_shortcut_reads_or_leave_the_file(
    cases: list[dict[str, Any]],
) -> None:
    document = json.loads((FIXTURES / "results.json").read_text(encoding="utf-8"))
    rows = document["results"]["results"][: len(cases)]
    for row, case in zip(rows, cases, strict=False):
        row["testCase"] = case
    document["results"]["results"] = rows
    data = json.dumps(document).encode("utf-8")
    found, plain = _typed_plain(data), _typed(data)
    if plain is None:  # not typed rows at all (a lone surrogate)
        assert found is None
        return
    expected = [_plain_test(case) for case in _cases(plain)]
    if found is None:  # left to the plain reader: fine only where it is not the common case
        assert None in expected or any(
            case.get("vars", {}) is None or case.get("assert", []) is None for case in _cases(plain)
        )
    else:
        assert _cases(found) == expected
