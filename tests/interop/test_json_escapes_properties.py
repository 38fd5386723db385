"""Properties of the JSON files the importers and the GitHub annotations read, for any text: a
character outside the Basic Multilingual Plane, which JSON writers escape as a surrogate pair
(YAML's parser refuses that escape), never hides what is in the file: a sample file's names are
found at their lines, and a promptfoo config's problem is reported as itself."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.report._github import sample_lines

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
NAMES = st.lists(st.text("abcdefgh-", min_size=1, max_size=6), min_size=1, max_size=5, unique=True)


@example(names=["a"], texts=["\U00010000"], indent=None)
@settings(max_examples=examples(60), deadline=None)
@given(NAMES, st.lists(TEXT, min_size=5, max_size=5), st.none() | st.integers(0, 4))
def test_every_sample_in_a_json_file_is_found_at_the_line_it_starts_on(
    names: list[str], texts: list[str], indent: int | None
) -> None:
    records = [{"name": n, "parameters": [t]} for n, t in zip(names, texts, strict=False)]
    text = json.dumps(records, indent=indent)
    lines = text.split("\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "samples.json"
        path.write_text(text, encoding="utf-8")
        found = sample_lines([path])
    assert list(found) == names
    for name, (where, line) in found.items():
        assert where == path
        later = "\n".join(lines[line - 1 :])
        assert json.dumps(name) in later  # the record starts on or before its name's line
        if indent is not None:
            assert lines[line - 1].strip() in ("{", "[{", "[ {") or lines[line - 1].endswith("{")


@example(text="\U00010000", kind="bogus-kind")
@settings(max_examples=examples(60), deadline=None)
@given(TEXT, st.sampled_from(["bogus-kind", "python", "factuality"]))
def test_a_problem_in_a_promptfoo_json_config_is_reported_as_itself(text: str, kind: str) -> None:
    config = {
        "prompts": ["Answer {{q}}"],
        "tests": [{"vars": {"q": text}, "assert": [{"type": kind, "value": "x"}]}],
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "promptfooconfig.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        with pytest.raises(ImportFormatError) as caught:
            read("promptfoo", path)
    message = str(caught.value)
    assert f"--allow-loss assert:{kind}" in message
    assert "YAML" not in message
