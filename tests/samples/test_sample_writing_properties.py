"""Properties of writing samples for generated values: a write that fails (text UTF-8 cannot
hold, anywhere among the samples) leaves the file that was there byte for byte and no stray
file beside it; a write that succeeds replaces it whole; and writing is deterministic."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, load_samples, write_samples
from evalmark.errors import SampleError

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
NAMES = TEXT.filter(str.strip)
SAMPLES = st.lists(
    st.builds(
        Sample,
        name=NAMES,
        parameters=st.lists(TEXT, max_size=2),
        expected_output=TEXT,
        tags=st.lists(NAMES, max_size=2).map(tuple),
    ),
    min_size=1,
    max_size=5,
    unique_by=lambda s: s.name,
)
SUFFIXES = st.sampled_from([".yaml", ".json", ".jsonl"])


@settings(max_examples=examples(40), deadline=None)
@given(SAMPLES, SAMPLES, SUFFIXES, st.data())
def test_a_failed_write_leaves_the_previous_file_and_no_stray_file(
    before: list[Sample], after: list[Sample], suffix: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(after) - 1))
    bad = Sample(name=after[at].name, parameters=["\ud800"], expected_output="x")
    broken = [*after[:at], bad, *after[at + 1 :]]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"samples{suffix}"
        write_samples(before, path)
        kept = path.read_bytes()
        with pytest.raises(SampleError, match=f"record {at + 1} "):
            write_samples(broken, path)
        assert path.read_bytes() == kept
        assert sorted(p.name for p in Path(folder).iterdir()) == [path.name]
        write_samples(after, path)
        assert list(load_samples(path)) == after


@settings(max_examples=examples(40), deadline=None)
@given(SAMPLES, SUFFIXES)
def test_writing_the_same_samples_gives_the_same_bytes(items: list[Sample], suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        one, two = Path(folder) / f"a{suffix}", Path(folder) / f"b{suffix}"
        write_samples(items, one)
        write_samples(iter(list(items)), two)
        assert one.read_bytes() == two.read_bytes()
