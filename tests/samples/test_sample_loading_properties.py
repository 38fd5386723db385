"""Properties of loading samples from generated files: in YAML and JSON too, one broken sample
anywhere is named by the file and its line; several files merge in the order given and a name
used twice across them is refused naming both places; a tag filter keeps exactly the samples
carrying one of its tags, in order; and any bytes give samples or a typed error."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import load_samples, load_test_cases
from evalmark.errors import EvalmarkError, SampleError

TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=10)
NAMES = TEXT.filter(lambda s: s.strip() == s and s != "")
TAGS = st.lists(st.sampled_from(["smoke", "vip", "slow", "名"]), max_size=2, unique=True)
RECORDS = st.lists(
    st.fixed_dictionaries(
        {
            "name": NAMES,
            "parameters": st.lists(TEXT, min_size=1, max_size=2),
            "expected-output": TEXT,
            "tags": TAGS,
        }
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda r: r["name"],
)
BREAKS = st.sampled_from(["no expectation", "name is a number", "tags is text", "unknown key"])


def broken(record: dict[str, Any], how: str) -> dict[str, Any]:
    record = dict(record)
    if how == "no expectation":
        del record["expected-output"]
    elif how == "name is a number":
        record["name"] = 7
    elif how == "tags is text":
        record["tags"] = 5
    else:
        record["expected-outptu"] = "x"
    return record


def yaml_text(records: list[Any]) -> tuple[str, list[int]]:
    """A YAML list of records, one block each, and the line each starts on."""
    parts, starts, line = [], [], 1
    for record in records:
        block = yaml.safe_dump([record], allow_unicode=True, sort_keys=False, width=10**6)
        starts.append(line)
        parts.append(block)
        line += block.count("\n")
    return "".join(parts), starts


def json_text(records: list[Any]) -> tuple[str, list[int]]:
    """A JSON array with one record per line, and the line of each."""
    body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    return "[\n" + body + "\n]\n", list(range(2, len(records) + 2))


WRITERS = {".yaml": yaml_text, ".json": json_text}


@settings(max_examples=examples(60), deadline=None)
@given(RECORDS, BREAKS, st.sampled_from(sorted(WRITERS)), st.data())
def test_one_broken_sample_in_yaml_or_json_is_named_by_file_and_line(
    records: list[dict[str, Any]], how: str, suffix: str, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(records) - 1), label="broken")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"samples{suffix}"
        text, _ = WRITERS[suffix](records)
        path.write_text(text, encoding="utf-8")
        assert [s.name for s in load_samples(path)] == [r["name"] for r in records]
        records = [*records[:index], broken(records[index], how), *records[index + 1 :]]
        text, starts = WRITERS[suffix](records)
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SampleError) as caught:
            load_samples(path)
    end = starts[index + 1] if index + 1 < len(starts) else 10**9
    assert caught.value.line is not None and starts[index] <= caught.value.line < end
    assert str(path) in str(caught.value)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(RECORDS, min_size=2, max_size=3), st.data())
def test_files_merge_in_order_and_a_repeated_name_is_refused_naming_both_places(
    files: list[list[dict[str, Any]]], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, records in enumerate(files):
            path = Path(folder) / f"s{i}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
            paths.append(path)
        names = [r["name"] for records in files for r in records]
        if len(set(names)) == len(names):
            assert [s.name for s in load_samples(*paths)] == names
            return
        with pytest.raises(SampleError) as caught:
            load_samples(*paths)
    message = str(caught.value)
    assert "names must be unique across all sources" in message
    assert sum(str(p) in message for p in paths) == 2  # where it is, and where it was first


@settings(max_examples=examples(60), deadline=None)
@given(RECORDS, st.lists(st.sampled_from(["smoke", "vip", "slow", "名"]), min_size=1, max_size=2))
def test_a_tag_filter_keeps_the_samples_with_one_of_its_tags_in_order_or_names_an_unused_tag(
    records: list[dict[str, Any]], tags: list[str]
) -> None:
    kept = [r["name"] for r in records if set(r["tags"]) & set(tags)]
    unused = set(tags) - {t for r in records for t in r["tags"]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.yaml"
        path.write_text(yaml_text(records)[0], encoding="utf-8")
        if unused:
            with pytest.raises(SampleError) as caught:  # a tag no sample carries: a misspelling
                load_samples(path, tags=tags)
            assert any(repr(t) in str(caught.value) for t in unused)
            return
        assert [s.name for s in load_samples(path, tags=tags)] == kept
        assert [s.name for s in load_samples(path, tags=list(reversed(tags)))] == kept


@settings(max_examples=examples(60), deadline=None)
@given(
    st.binary(max_size=60) | TEXT.map(str.encode),
    st.sampled_from([".yaml", ".json", ".jsonl"]),
    st.sampled_from([load_samples, load_test_cases]),
)
@example(b"\xff", ".yaml", load_samples)
@example(b"- &a [*a]", ".yaml", load_samples)
@example(b"[" * 5000, ".json", load_samples)
def test_any_bytes_give_records_or_a_typed_error(data: bytes, suffix: str, load: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"s{suffix}"
        path.write_bytes(data)
        with contextlib.suppress(EvalmarkError):  # any other exception fails the property
            load(path)


CASES = st.lists(
    st.fixed_dictionaries(
        {"input": TEXT, "actual-output": TEXT},
        optional={"expected-output": TEXT, "name": NAMES, "latency-ms": st.floats(0, 1e6)},
    ),
    min_size=1,
    max_size=6,
)
CASE_BREAKS = st.sampled_from(["no input", "input is a list", "latency is text", "unknown key"])


@settings(max_examples=examples(40), deadline=None)
@given(CASES, CASE_BREAKS, st.data())
def test_one_broken_test_case_in_json_lines_is_named_by_its_line(
    records: list[dict[str, Any]], how: str, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(records) - 1), label="broken")
    record = dict(records[index])
    if how == "no input":
        del record["input"]
    elif how == "input is a list":
        record["input"] = ["a"]
    elif how == "latency is text":
        record["latency-ms"] = "fast"
    else:
        record["actual-outptu"] = "x"
    records = [*records[:index], record, *records[index + 1 :]]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        with pytest.raises(EvalmarkError) as caught:
            load_test_cases(path)
    assert getattr(caught.value, "line", None) == index + 1
    assert str(path) in str(caught.value)
