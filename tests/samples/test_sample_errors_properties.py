"""Property of the sample loader: in a generated JSON Lines file of samples, one broken sample
anywhere gives a ``SampleError`` that names the file and that sample's line, and every sample
of a file without one loads."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import load_samples
from evalmark.errors import SampleError

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=10)
RECORDS = st.lists(
    st.fixed_dictionaries(
        {
            "name": TEXT.filter(str.strip),
            "parameters": st.lists(TEXT, min_size=1, max_size=2),
            "expected_output": TEXT,
        },
        optional={
            "tags": st.lists(TEXT.filter(str.strip), max_size=2),
            "context": st.lists(TEXT, max_size=2),
        },
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda r: r["name"],
)
BREAKS = st.sampled_from(["no expectation", "name is a number", "tags is text", "not a mapping"])


def _broken(record: dict[str, Any], how: str) -> Any:
    record = dict(record)
    if how == "no expectation":  # an expected answer, facts, context or a rubric: none of them
        for key in ("expected_output", "expected_outputs", "expected_facts", "context"):
            record.pop(key, None)
        record.pop("metadata", None)
    elif how == "name is a number":
        record["name"] = 7
    elif how == "tags is text":
        record["tags"] = 5
    else:
        return [record["name"]]
    return record


@settings(max_examples=examples(60))
@given(RECORDS, BREAKS, st.data())
def test_one_broken_sample_is_named_by_its_line(
    records: list[dict[str, Any]], how: str, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(records) - 1), label="broken")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "samples.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        assert [s.name for s in load_samples(path)] == [r["name"] for r in records]
        lines = [json.dumps(r) for r in records]
        lines[index] = json.dumps(_broken(records[index], how))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with pytest.raises(SampleError) as caught:
            load_samples(path)
    assert caught.value.line == index + 1
    assert str(path) in str(caught.value)
