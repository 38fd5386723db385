"""Property of ``evalmark schema``: every file the library writes for generated samples, test
cases and conversations is valid under the JSON Schema the command prints for its kind."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import (
    Conversation,
    Sample,
    TestCase,
    write_conversations,
    write_samples,
    write_test_cases,
)
from evalmark.cli import main
from evalmark.samples._case import TokenUsage, ToolCall

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
NAME = TEXT.filter(str.strip)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | TEXT,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2),
    max_leaves=5,
)
SAMPLES = st.builds(
    Sample,
    name=NAME,
    parameters=st.lists(VALUES, max_size=2),
    expected_output=TEXT,
    expected_facts=st.lists(TEXT, max_size=2).map(tuple),
    context=st.lists(TEXT, max_size=2).map(tuple),
    tags=st.lists(NAME, max_size=2).map(tuple),
    metadata=st.dictionaries(TEXT, VALUES, max_size=2),
)
TOOL_CALLS = st.builds(ToolCall, NAME, st.dictionaries(TEXT, VALUES, max_size=2), TEXT)
CASES = st.builds(
    TestCase,
    TEXT,
    TEXT,
    expected_output=st.none() | TEXT,
    retrieval_context=st.lists(TEXT, max_size=2).map(tuple),
    tool_calls=st.lists(TOOL_CALLS, max_size=2).map(tuple),
    token_usage=st.none() | st.builds(TokenUsage, st.integers(0, 10**6), st.integers(0, 10**6)),
    tags=st.lists(NAME, max_size=2).map(tuple),
    name=st.none() | NAME,
)
CONVERSATIONS = st.builds(
    Conversation, NAME, st.none() | TEXT, st.lists(CASES, min_size=1, max_size=2).map(tuple)
)
KINDS: dict[str, tuple[st.SearchStrategy[Any], Callable[..., Any]]] = {
    "samples": (SAMPLES, write_samples),
    "testcases": (CASES, write_test_cases),
    "conversations": (CONVERSATIONS, write_conversations),
}


def _schema(kind: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["schema", kind]) == 0
    schema: dict[str, Any] = json.loads(out.getvalue())
    return schema


VALIDATORS = {kind: jsonschema.Draft202012Validator(_schema(kind)) for kind in KINDS}


@settings(max_examples=examples(40))
@given(
    st.sampled_from(sorted(KINDS)).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(
                KINDS[k][0],
                min_size=1,
                max_size=3,
                unique_by=lambda i: getattr(i, "name", None) or id(i),
            ),
        )
    )
)
def test_what_the_library_writes_is_valid_under_the_printed_schema(
    drawn: tuple[str, list[Any]],
) -> None:
    kind, items = drawn
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "items.json"
        KINDS[kind][1](items, path)
        document = json.loads(path.read_text("utf-8"))
    errors = [e.message for e in VALIDATORS[kind].iter_errors(document)]
    assert errors == []
