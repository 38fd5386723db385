"""The source hash an import records: equal for equal file lists, different for different ones,
even where the names and contents concatenate to the same bytes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.interop._model import hash_later, source_hash


def _write(folder: Path, files: list[tuple[str, bytes]]) -> list[Path]:
    paths = []
    for index, (name, content) in enumerate(files):
        sub = folder / str(index)  # the same name may appear twice in a list
        sub.mkdir(parents=True)
        path = sub / name
        path.write_bytes(content)
        paths.append(path)
    return paths


def test_files_whose_names_and_contents_run_together_hash_apart(tmp_path: Path) -> None:
    # Under the old framing (name, NUL, content, NUL per file) both lists fed the digest
    # b"a\0x\0b\0y\0" and hashed the same.
    one = _write(tmp_path / "one", [("a", b"x\0b\0y")])
    two = _write(tmp_path / "two", [("a", b"x"), ("b", b"y")])
    assert source_hash(one) != source_hash(two)


def test_a_name_cannot_pass_for_content(tmp_path: Path) -> None:
    # Old framing: b"a\0" + b"" + b"\0" twice versus one file "a" holding b"\0a\0".
    one = _write(tmp_path / "one", [("a", b""), ("a", b"")])
    two = _write(tmp_path / "two", [("a", b"\0a\0")])
    assert source_hash(one) != source_hash(two)


NAMES = st.text(st.sampled_from("ab.-_1"), min_size=1, max_size=4).filter(
    lambda n: n not in (".", "..")
)
FILES = st.lists(st.tuples(NAMES, st.binary(max_size=6)), max_size=3)


@settings(max_examples=examples(80), deadline=None)
@given(FILES, FILES)
def test_the_hash_is_equal_exactly_for_equal_file_lists(
    first: list[tuple[str, bytes]], second: list[tuple[str, bytes]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        one = _write(Path(folder) / "one", first)
        two = _write(Path(folder) / "two", second)
        assert (source_hash(one) == source_hash(two)) == (first == second)
        assert source_hash(one) == source_hash(list(one))  # the same files, the same hash


def test_a_hash_computed_in_a_thread_is_the_hash_and_its_failure_the_callers(
    tmp_path: Path,
) -> None:
    (path,) = _write(tmp_path, [("log.json", b'{"a": 1}')])
    data = path.read_bytes()
    assert (
        hash_later([path], {path: data})()
        == source_hash([path])
        == source_hash([path], {path: data})
    )
    missing = tmp_path / "gone.json"
    digest = hash_later([missing], {})  # the thread cannot read it: the caller sees why
    with pytest.raises(FileNotFoundError):
        digest()
