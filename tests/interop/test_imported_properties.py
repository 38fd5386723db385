"""Properties of ``Imported``, what an importer returns, over generated Ragas datasets: its
source names the format, the file and the SHA-256 of the file's name and bytes (equal bytes,
equal hash; other bytes, another hash); a build's test cases are its samples in order, each with its
question, recorded answer and expected output."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.interop import Imported, read

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
ROWS = st.lists(
    st.fixed_dictionaries({"user_input": TEXT, "response": TEXT}, optional={"reference": TEXT}),
    min_size=1,
    max_size=5,
)


def read_rows(folder: str, name: str, rows: list[dict[str, Any]]) -> Imported:
    path = Path(folder) / name
    path.write_bytes(lines(rows))
    return read("ragas", path)


def lines(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


@settings(max_examples=examples(40), deadline=None)
@given(ROWS, ROWS)
def test_the_source_names_the_file_and_hashes_its_name_and_bytes(
    rows: list[dict[str, Any]], others: list[dict[str, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        first = read_rows(one, "data.jsonl", rows)
        again = read_rows(two, "data.jsonl", rows)
        other = read_rows(two, "data.jsonl", others)
    assert isinstance(first, Imported)
    assert first.source["format"] == "ragas" and first.source["lost"] == []
    assert [Path(f).name for f in first.source["files"]] == ["data.jsonl"]
    framed = b"".join(len(part).to_bytes(8, "big") + part for part in (b"data.jsonl", lines(rows)))
    oracle = hashlib.sha256(framed).hexdigest()
    assert first.source["sha256"] == first.sha256 == again.sha256 == oracle
    assert (other.sha256 == first.sha256) == (lines(others) == lines(rows))


@settings(max_examples=examples(40), deadline=None)
@given(ROWS)
def test_a_builds_test_cases_are_its_samples_in_order(rows: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        imported = read_rows(folder, "data.jsonl", rows)
    cases = imported.test_cases("ragas")
    assert [c.input for c in cases] == [r["user_input"] for r in rows]
    assert [c.actual_output for c in cases] == [r["response"] for r in rows]
    assert [c.expected_output for c in cases] == [r.get("reference", "") for r in rows]
