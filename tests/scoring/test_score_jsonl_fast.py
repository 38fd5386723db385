"""The JSONL reader's fast path (scoring/_jsonl_fast.py) cuts the same chunks as
``jsonl_batches``, reads the same texts and ids as msgspec, hands the kernels TextColumns, and
leaves every line it is not sure of to msgspec, so scores and error messages do not change."""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark._files.json_read import jsonl_batches
from evalmark.errors import ScoringInputError
from evalmark.metrics import TextColumn
from evalmark.scoring import ScoreOptions, _jsonl_fast, parse_metrics, score_file
from evalmark.scoring._chunks import Columns, Needs
from evalmark.scoring._jsonl import JsonlReader
from evalmark.scoring._jsonl_fast import FastRows, fast_chunks

KEYS = ("expected", "actual", "id")


def _texts(column: TextColumn) -> list[str]:
    offsets = column.offsets.tolist()
    return [column.data[offsets[i] : offsets[i + 1]].tobytes().decode() for i in range(len(column))]


_LINE = st.one_of(
    st.builds(
        lambda e, a, i, extra: json.dumps(
            {"x": extra, "actual": a, "id": i, "expected": e}, ensure_ascii=False
        ),
        st.text(),
        st.text(),
        st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=5)),
        st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False), st.lists),
    ),
    st.builds(lambda e: json.dumps({"expected": e, "actual": "b", "id": 1}), st.text()),
    st.sampled_from(["", " ", "\t", "\x0b", "\r", "[1]", '{"expected": 1}', "{bad", '"\\ud800"']),
)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(_LINE, max_size=40),
    ending=st.sampled_from(["\n", "\r\n"]),
    size=st.integers(1, 9),
    max_bytes=st.integers(1, 400),
    block=st.integers(1, 300),
    bom=st.booleans(),
)
def test_chunks_texts_and_ids_equal_the_msgspec_path(
    lines: list[str], ending: str, size: int, max_bytes: int, block: int, bom: bool
) -> None:
    data = ("\ufeff" if bom else "").encode() + ending.join(lines).encode("utf-8", "surrogatepass")
    row = msgspec.defstruct(
        "Row",
        [("e", str), ("a", str), ("i", str | int)],
        rename={"e": "expected", "a": "actual", "i": "id"},
    )
    decoder = msgspec.json.Decoder(row)
    old = list(jsonl_batches(io.BytesIO(data), 9, max_bytes, first_size=size))
    saved = _jsonl_fast.BLOCK_BYTES
    _jsonl_fast.BLOCK_BYTES = block  # blocks end mid-chunk
    try:
        new = list(fast_chunks(io.BytesIO(data), 9, max_bytes, size, KEYS))
    finally:
        _jsonl_fast.BLOCK_BYTES = saved
    assert [list(lines) for lines, _ in new] == [list(lines) for lines, _ in old]
    for (_, got), (_, texts) in zip(new, old, strict=True):
        if not isinstance(got, FastRows):
            assert got == texts
            continue
        rows = [decoder.decode(text.removeprefix(b"\xef\xbb\xbf")) for text in texts]
        assert _texts(got.expected) == [r.e for r in rows]
        assert _texts(got.actual) == [r.a for r in rows]
        assert got.ids == [r.i for r in rows]
        assert [type(i) for i in got.ids or []] == [type(r.i) for r in rows]


def test_plain_rows_reach_the_kernels_as_text_columns(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"expected": "a b", "actual": "a\\u00e9", "id": 3}\n', encoding="utf-8")
    reader = JsonlReader(path, Columns(), Needs(text=True, vectors=False), 10)
    try:
        (chunk,) = list(reader)
    finally:
        reader.close()
    assert isinstance(chunk.expected, TextColumn) and isinstance(chunk.actual, TextColumn)
    assert (_texts(chunk.expected), _texts(chunk.actual), chunk.ids) == (["a b"], ["aé"], [3])


def test_a_bad_row_among_plain_rows_is_named_as_before(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    rows = [json.dumps({"expected": f"x {i}", "actual": "x"}) for i in range(50)]
    rows[31] = '{"expected": "x", "actual": ["x"]}'
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(ScoringInputError) as caught:
        score_file(path, ScoreOptions(parse_metrics("token_f1"), chunk_size=20))
    assert (caught.value.where, caught.value.field) == ("line 32", "actual")
    assert "is an array; it must be a string" in str(caught.value)


def test_the_length_cap_and_row_by_row_rescoring_read_text_columns(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    rows = [("é" * 9, "é"), ("é" * 4, "{}"), ('{"a": 1}', '{"a": 1}')]
    path.write_text(
        "".join(json.dumps({"expected": e, "actual": a}) + "\n" for e, a in rows),
        encoding="utf-8",
    )
    out = tmp_path / "scores.jsonl"
    options = ScoreOptions(parse_metrics("json_match,token_f1"), max_chars=8)
    summary = score_file(path, options, output=out)
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written == [
        {"row": 0, "json_match": None, "token_f1": None},
        {"row": 1, "json_match": None, "token_f1": 0.0},
        {"row": 2, "json_match": True, "token_f1": 1.0},
    ]
    assert summary.metrics["token_f1"].nulls == 1
