"""Round trips and typed errors of the one reader and the one writer of data files, for
generated documents: what ``dump_yaml``/``json.dumps`` write, ``read_records`` reads back; any
bytes give records or a typed error that names a line; the atomic writer leaves the old file or
the whole new one and no temporary file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark._files.atomic import write_atomically, write_together
from evalmark._files.read import read_records
from evalmark._files.source import line_col_of_byte
from evalmark._files.text import escape_surrogates, has_surrogates, to_utf8
from evalmark._files.yaml_write import dump_yaml
from evalmark.errors import DataFileError, SampleError

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=10,
)
records = st.lists(st.dictionaries(text, values, min_size=1, max_size=4), min_size=1, max_size=4)


def _encode(fmt: str, items: list[dict[str, Any]]) -> bytes:
    if fmt == "yaml":
        return dump_yaml(items)
    if fmt == "json":
        return json.dumps(items, ensure_ascii=False).encode("utf-8")
    return "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items).encode("utf-8")


@settings(max_examples=examples(80))
@given(records, st.sampled_from(["yaml", "json", "jsonl"]))
@example([{"note": "\x85"}], "yaml")
@example([{"note": "a\u2028b"}], "yaml")
def test_written_records_read_back_equal(items: list[dict[str, Any]], fmt: Any) -> None:
    read = read_records(_encode(fmt, items), "x." + fmt, fmt, SampleError)
    assert [r.value for r in read] == items
    assert [r.index for r in read] == list(range(len(items)))
    lines = _encode(fmt, items).count(b"\n") + 1
    assert all(1 <= r.line <= lines for r in read)


@settings(max_examples=examples(150))
@given(
    st.binary(max_size=40)
    | st.text(st.sampled_from("{}[]\":,- \n\tab1#&*!|>'\\"), max_size=30).map(str.encode),
    st.sampled_from(["yaml", "json", "jsonl"]),
)
def test_any_bytes_give_records_or_a_typed_error_with_a_line(data: bytes, fmt: Any) -> None:
    try:
        read_records(data, "x." + fmt, fmt, SampleError)
    except DataFileError as exc:
        lines = data.count(b"\n") + 1
        for problem in exc.problems:
            assert problem.line is None or 1 <= problem.line <= lines + 1, problem


@settings(max_examples=examples(100))
@given(st.text(max_size=30), st.data())
def test_line_and_column_of_a_byte_equal_counting_characters(
    value: str, data: st.DataObject
) -> None:
    encoded = value.encode("utf-8", "surrogatepass")
    index = data.draw(st.integers(0, len(value)))
    offset = len(value[:index].encode("utf-8", "surrogatepass"))
    before = value[:index]
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    assert line_col_of_byte(encoded, offset) == (line, column)


@settings(max_examples=examples(100))
@given(st.text(max_size=30))
@example("\udcff")
def test_escaped_text_holds_no_surrogate_and_encodes(value: str) -> None:
    escaped = escape_surrogates(value)
    assert not has_surrogates(escaped)
    assert (escaped == value) == (not has_surrogates(value))
    assert to_utf8(value).decode("utf-8") == escaped


@settings(max_examples=examples(200))
@given(st.text(st.characters(exclude_categories=()), max_size=30))
@example("\udcff")
@example("\U0001f600\ud83d")
def test_a_lone_surrogate_is_found_wherever_it_is(value: str) -> None:
    assert has_surrogates(value) == any(0xD800 <= ord(c) <= 0xDFFF for c in value)


@settings(max_examples=examples(60))
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=4))
def test_the_atomic_writer_leaves_the_last_whole_file_and_nothing_else(
    contents: list[bytes],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.bin"
        for data in contents:
            write_atomically(target, data)
            assert target.read_bytes() == data
        assert os.listdir(folder) == ["out.bin"]


@settings(max_examples=examples(30))
@given(
    st.lists(st.tuples(st.binary(max_size=50), st.binary(max_size=50)), min_size=1, max_size=3),
    st.booleans(),
)
def test_files_written_together_all_appear_or_none(
    steps: list[tuple[bytes, bytes]], fail: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a", Path(folder) / "b"
        write_together([(a, b"old a"), (b, b"old b")])

        def refuse() -> None:
            raise KeyboardInterrupt

        for first, second in steps:
            before = (a.read_bytes(), b.read_bytes())
            if fail:
                with pytest.raises(KeyboardInterrupt):
                    write_together([(a, first), (b, second)], before_commit=refuse)
                assert (a.read_bytes(), b.read_bytes()) == before
            else:
                write_together([(a, first), (b, second)])
                assert (a.read_bytes(), b.read_bytes()) == (first, second)
        assert sorted(os.listdir(folder)) == ["a", "b"]
