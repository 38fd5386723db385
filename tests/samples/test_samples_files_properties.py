"""Write-then-load round trips of samples, test cases and conversations in every format, for
generated values with hostile text; text UTF-8 cannot store gives a typed error and no file."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import (
    Conversation,
    Sample,
    TestCase,
    load_conversations,
    load_samples,
    load_test_cases,
    write_conversations,
    write_samples,
    write_test_cases,
)
from evalmark.errors import EvalmarkError
from evalmark.samples._case import ReasoningStep, TokenUsage, ToolCall

SUFFIXES = (".yaml", ".json", ".jsonl")
# Text a file format must escape: controls, quotes, YAML indicators, bidi marks, line breaks.
PIECES = st.sampled_from(
    [
        "\x00",
        "\x07",
        "\x1b",
        "\x7f",
        "\x85",
        "\u2028",
        "\u202e",
        "\ufeff",
        "\t",
        "\n",
        "\r\n",
        "\r",
        '"',
        "'",
        ": ",
        "- ",
        "#",
        "&a",
        "*a",
        "!!str",
        "---",
        "...",
        "{",
        "[",
        "%",
        "@",
        "yes",
        "null",
        "~",
        "0x1F",
        "1e3",
        "  ",
        "é",
        "名",
        "😀",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=5).map("".join)
NAME = TEXT.filter(lambda s: s.strip() != "")
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def samples(draw: st.DrawFn) -> Sample:
    many = draw(st.booleans())
    return Sample(
        name=draw(NAME),
        parameters=draw(st.lists(VALUES, max_size=3)),  # type: ignore[arg-type]
        expected_output=None if many else draw(TEXT),
        expected_outputs=tuple(draw(st.lists(TEXT, max_size=3))) if many else None,
        expected_facts=tuple(draw(st.lists(TEXT, max_size=2))),
        context=tuple(draw(st.lists(TEXT, max_size=2))),
        tags=tuple(draw(st.lists(NAME, max_size=2))),
        metadata=draw(st.dictionaries(TEXT, VALUES, max_size=2)),
    )


TOOL_CALLS = st.builds(
    ToolCall,
    NAME,
    st.dictionaries(TEXT, VALUES, max_size=2),
    st.none() | TEXT | st.integers(),
    duration_ms=st.none() | st.floats(0, 1e6),
    id=st.none() | TEXT,
)
CASES = st.builds(
    TestCase,
    TEXT,
    TEXT,
    expected_output=st.none() | TEXT,
    retrieval_context=st.lists(TEXT, max_size=2).map(tuple),
    tool_calls=st.lists(TOOL_CALLS, max_size=2).map(tuple),
    expected_tool_calls=st.none() | st.lists(TOOL_CALLS, max_size=2).map(tuple),
    reasoning_trace=st.lists(
        st.builds(
            ReasoningStep,
            st.sampled_from(["plan", "thought", "observation", "action"]),
            TEXT,
            st.none() | TOOL_CALLS,
        ),
        max_size=2,
    ).map(tuple),
    latency_ms=st.none() | st.floats(0, 1e7),
    token_usage=st.none() | st.builds(TokenUsage, st.integers(0, 10**6), st.integers(0, 10**6)),
    cost=st.none() | st.decimals(min_value=0, allow_nan=False, allow_infinity=False, places=6),
    tags=st.lists(NAME, max_size=2).map(tuple),
    metadata=st.dictionaries(TEXT, VALUES, max_size=2),
    name=st.none() | NAME,
)
CONVERSATIONS = st.builds(
    Conversation,
    NAME,
    st.none() | TEXT,
    st.lists(CASES, min_size=1, max_size=3).map(tuple),
)


def round_trip(items: list[Any], write: Any, load: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for suffix in SUFFIXES:
            if not items and suffix == ".jsonl":
                continue  # an empty JSON Lines file holds no list
            path = Path(folder) / f"data{suffix}"
            write(items, path)
            assert list(load(path)) == items, suffix
            first = path.read_bytes()
            write(list(load(path)), path)
            assert path.read_bytes() == first, f"{suffix}: writing what was read changes the file"


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(samples(), max_size=4, unique_by=lambda s: s.name))
def test_samples_written_load_back_equal_in_every_format(items: list[Sample]) -> None:
    round_trip(items, write_samples, load_samples)


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(CASES, max_size=3))
def test_test_cases_written_load_back_equal_in_every_format(items: list[TestCase]) -> None:
    round_trip(items, write_test_cases, load_test_cases)


@settings(max_examples=examples(15), deadline=None)
@given(st.lists(CONVERSATIONS, max_size=3, unique_by=lambda c: c.id))
def test_conversations_written_load_back_equal_in_every_format(
    items: list[Conversation],
) -> None:
    round_trip(items, write_conversations, load_conversations)


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("field", ["name", "expected_output", "tags", "metadata", "parameters"])
def test_a_lone_surrogate_gives_a_typed_error_and_no_file(
    tmp_path: Path, suffix: str, field: str
) -> None:
    bad = "half \ud800"
    fields: dict[str, Any] = {"name": "s", "parameters": [], "expected_output": "x"}
    fields[field] = {
        "tags": (bad,),
        "metadata": {"k": bad},
        "parameters": [bad],
    }.get(field, bad)
    path = tmp_path / f"s{suffix}"
    with pytest.raises(EvalmarkError, match=r"record 1 .* lone surrogate"):
        write_samples([Sample(**fields)], path)
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []
