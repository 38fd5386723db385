"""The Rust scan of a common promptfoo results file (one pass for the re-score; the samples
from the typed reading when first read) gives what the typed reading gives: the same answers,
expected outputs, checks, kept fields, losses, hash and samples. It reads every common file,
and leaves any other to the typed or the plain reading."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings

from budget import examples
from evalmark.interop._model import Imported
from evalmark.interop._promptfoo_scan import _SHAPE_CARRIED
from evalmark.metrics._native import core
from promptfoo_files import imports, results_files, same

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"


@pytest.mark.parametrize("name", ["results.json", "rubric_results.json"])
def test_a_fixture_is_read_by_the_scan_as_by_typed_rows(name: str) -> None:
    quick, typed = imports(FIXTURES / name)
    assert isinstance(typed, Imported)
    if name == "rubric_results.json":  # a template in an assertion: left to typed rows
        assert quick is None
        return
    assert quick is not None
    same(quick, typed)
    assert list(quick.outputs) == ["openai-gpt-4o-mini", "anthropic-messages-claude-3-5-haiku"]


def test_one_providers_rows_of_a_fixture_are_read_by_the_scan_as_by_typed_rows(
    tmp_path: Path,
) -> None:
    document = json.loads((FIXTURES / "results.json").read_text(encoding="utf-8"))
    rows = document["results"]["results"]
    document["results"]["results"] = [row for row in rows if row["provider"] == rows[0]["provider"]]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    quick, typed = imports(path)
    assert quick is not None and isinstance(typed, Imported)
    same(quick, typed)
    assert quick.columns("openai-gpt-4o-mini") == (
        ["", "", "Madrid"],
        ["Paris.", "Tokyo", "Madrid"],
    )


@settings(max_examples=examples(200), deadline=None)
@given(found=results_files())
def test_the_scan_reads_a_common_file_as_typed_rows_and_leaves_the_others(
    found: tuple[bytes, bool],
) -> None:
    data, common = found
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.json"
        path.write_bytes(data)
        quick, typed = imports(path)
        if common:
            assert quick is not None
        if quick is not None:
            assert isinstance(typed, Imported)
            same(quick, typed)


def test_the_scan_is_refused_other_json() -> None:
    for data in [b"[]", b"{}", b'{"results": {"version": 3, "results": []}}', b"\xff"]:
        assert core.promptfoo_scan(data, _SHAPE_CARRIED) is None
