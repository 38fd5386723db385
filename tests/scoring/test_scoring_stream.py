"""The streaming scorer: readers, chunking, bad-row policies, writers, summary, atomic output."""

from __future__ import annotations

import csv
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark import load_samples
from evalmark.errors import OptionalDependencyError, SampleError, ScoringInputError
from evalmark.metrics import (
    cosine_batch,
    json_match_batch,
    levenshtein_distance_batch,
    levenshtein_similarity_batch,
    rouge_l_batch,
    token_f1_batch,
)
from evalmark.scoring import Columns, ScoreOptions, parse_metrics, score_file
from evalmark.scoring import _summary as summary_module
from evalmark.scoring._pipeline import summary_json
from evalmark.scoring._summary import Distribution

TEXT_METRICS = "token_f1,rouge_l,levenshtein_similarity,levenshtein_distance"

PAIRS: list[tuple[str, str]] = [
    ("The cat sat on the mat.", "A cat sat on a mat"),
    ("", ""),
    ("", "something"),
    ("Zürich café naïve résumé", "zurich cafe naive resume"),
    ("東京は日本の首都です", "東京は首都"),
    ("emoji 😀 here 👍🏽", "emoji 😀 there"),
    ("e\u0301 combining", "é combining"),
    ('line one\nline two, with "quotes"', "line one\r\nline 2"),
    ("عربى نص", "نص عربى"),
    ("  spaces   everywhere  ", "spaces everywhere"),
]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def pair_rows(pairs: list[tuple[str, str]] = PAIRS) -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "expected": e, "actual": a} for i, (e, a) in enumerate(pairs)]


def options(metrics: str = TEXT_METRICS, **kwargs: Any) -> ScoreOptions:
    return ScoreOptions(parse_metrics(metrics), **kwargs)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def kernel_scores(pairs: list[tuple[str, str]]) -> dict[str, list[Any]]:
    e = [p[0] for p in pairs]
    a = [p[1] for p in pairs]
    return {
        "token_f1": token_f1_batch(e, a).tolist(),
        "rouge_l": rouge_l_batch(e, a).tolist(),
        "levenshtein_similarity": levenshtein_similarity_batch(e, a).tolist(),
        "levenshtein_distance": levenshtein_distance_batch(e, a).tolist(),
    }


# --- scores ----------------------------------------------------------------------------------


def test_jsonl_scores_equal_the_batch_kernels(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "pairs.jsonl", pair_rows())
    out = tmp_path / "scores.jsonl"
    summary = score_file(src, options(chunk_size=3), output=out)
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [f"q{i}" for i in range(len(PAIRS))]
    for name, expected in kernel_scores(PAIRS).items():
        assert [r[name] for r in rows] == expected
    assert summary.rows == len(PAIRS)
    assert summary.metrics["token_f1"].count == len(PAIRS)


def test_csv_with_multiline_quoted_fields_matches_jsonl(tmp_path: Path) -> None:
    src_jsonl = write_jsonl(tmp_path / "pairs.jsonl", pair_rows())
    src_csv = write_csv(
        tmp_path / "pairs.csv",
        ["id", "expected", "actual"],
        [[r["id"], r["expected"], r["actual"]] for r in pair_rows()],
    )
    for chunk_size in (1, 2, 4, 100):
        a, b = tmp_path / f"a{chunk_size}.csv", tmp_path / f"b{chunk_size}.csv"
        score_file(src_jsonl, options(chunk_size=chunk_size), output=a)
        score_file(src_csv, options(chunk_size=chunk_size), output=b)
        assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_output_is_identical_for_every_chunk_size_and_worker_count(
    tmp_path: Path, suffix: str
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    pairs = PAIRS * 7
    src = write_jsonl(tmp_path / "pairs.jsonl", pair_rows(pairs))
    outputs = set()
    summaries = set()
    for chunk_size in (1, 2, 3, 13, 64, 10_000):
        for workers in (1, 2, -1):
            out = tmp_path / f"out-{chunk_size}-{workers}{suffix}"
            summary = score_file(src, options(chunk_size=chunk_size, workers=workers), output=out)
            outputs.add(out.read_bytes())
            summaries.add(summary_json(summary))
    assert len(outputs) == 1
    assert len(summaries) == 1


def test_blank_lines_and_bom_are_ignored_and_rows_numbered(tmp_path: Path) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_bytes(
        b'\xef\xbb\xbf{"expected": "a", "actual": "a"}\n\n   \n{"expected": "b", "actual": "c"}\n'
    )
    out = tmp_path / "scores.jsonl"
    score_file(src, options("token_f1", chunk_size=1), output=out)
    assert read_jsonl(out) == [{"row": 0, "token_f1": 1.0}, {"row": 1, "token_f1": 0.0}]


def test_column_options_and_explicit_id(tmp_path: Path) -> None:
    rows = [{"key": 7, "ref": "x y", "ans": "x", "id": "ignored"}]
    src = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "scores.csv"
    cols = Columns(expected="ref", actual="ans", id="key")
    score_file(src, options("token_f1", columns=cols), output=out)
    assert out.read_text() == "key,token_f1\n7,0.6666666666666666\n"
    score_file(src, options("token_f1", columns=Columns("ref", "ans", id="")), output=out)
    assert out.read_text() == "row,token_f1\n0,0.6666666666666666\n"


@pytest.mark.parametrize(
    "ids", [["a", "b,c", 'say "hi"', "two\nlines", "", " padded "], ["plain", "ids", "only"]]
)
def test_csv_output_quotes_ids_that_need_it(tmp_path: Path, ids: list[str]) -> None:
    rows = [{"id": i, "expected": "x", "actual": "x"} for i in ids]
    src = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "scores.csv"
    score_file(src, options("token_f1"), output=out)
    with out.open(newline="", encoding="utf-8") as handle:
        parsed = list(csv.reader(handle))
    assert parsed == [["id", "token_f1"]] + [[i, "1.0"] for i in ids]


def test_json_match_scores_and_bool_output(tmp_path: Path) -> None:
    docs = [('{"a": 1, "b": [1, 2]}', '{"b": [1, 2], "a": 1.0}'), ("[1]", "not json")]
    rows = [{"expected": e, "actual": a} for e, a in docs]
    src = write_jsonl(tmp_path / "docs.jsonl", rows)
    out = tmp_path / "scores.csv"
    summary = score_file(src, options("json_match,json_match_strict"), output=out)
    expected = json_match_batch([d[0] for d in docs], [d[1] for d in docs]).tolist()
    assert expected == [True, False]
    assert out.read_text() == "row,json_match,json_match_strict\n0,true,false\n1,false,false\n"
    assert summary.metrics["json_match"].mean == 0.5


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@given(
    st.lists(st.tuples(texts, texts), max_size=30),
    st.integers(min_value=1, max_value=8),
    st.sampled_from(["jsonl", "csv"]),
)
def test_streamed_scores_equal_the_kernels_for_any_text(
    pairs: list[tuple[str, str]], chunk_size: int, kind: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / f"pairs.{kind}"
        if kind == "jsonl":
            write_jsonl(src, pair_rows(pairs))
        else:
            write_csv(
                src,
                ["id", "expected", "actual"],
                [[f"q{i}", e, a] for i, (e, a) in enumerate(pairs)],
            )
        out = Path(folder) / "scores.jsonl"
        if kind == "jsonl" and not pairs:  # no content at all: the empty-file rule
            with pytest.raises(ScoringInputError, match="is empty"):
                score_file(src, options(chunk_size=chunk_size), output=out)
            assert not out.exists()
            return
        score_file(src, options(chunk_size=chunk_size), output=out)
        rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [f"q{i}" for i in range(len(pairs))]
    for name, expected in kernel_scores(pairs).items():
        assert [r[name] for r in rows] == expected


# --- empty inputs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("e.jsonl", b""),
        ("blank.jsonl", b"\n\n  \n"),
        ("bom.jsonl", b"\xef\xbb\xbf\n"),
        ("e.csv", b""),
        ("bom.csv", b"\xef\xbb\xbf"),
    ],
)
def test_a_file_without_content_is_an_error_like_an_empty_samples_file(
    tmp_path: Path, name: str, content: bytes
) -> None:
    src = tmp_path / name
    src.write_bytes(content)
    out = tmp_path / "o.jsonl"
    with pytest.raises(ScoringInputError, match=rf"{name}: is empty") as caught:
        score_file(src, options(), output=out, summary_path=tmp_path / "s.json")
    assert "failed export" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    samples = tmp_path / "samples.jsonl"
    samples.write_bytes(content)
    with pytest.raises(SampleError, match="the file is empty"):
        load_samples(samples)


@pytest.mark.parametrize(
    ("name", "content"),
    [("h.csv", b"expected,actual\n"), ("bom-header.csv", b"\xef\xbb\xbfexpected,actual\r\n")],
)
def test_an_explicitly_empty_table_gives_empty_outputs(
    tmp_path: Path, name: str, content: bytes
) -> None:
    src = tmp_path / name
    src.write_bytes(content)
    out_jsonl, out_csv = tmp_path / "o.jsonl", tmp_path / "o.csv"
    summary = score_file(src, options(), output=out_jsonl, summary_path=tmp_path / "s.json")
    score_file(src, options(), output=out_csv)
    assert summary.rows == 0
    assert summary.metrics["token_f1"].count == 0
    assert summary.metrics["token_f1"].mean is None
    assert out_jsonl.read_bytes() == b""
    assert (
        out_csv.read_text() == "row,token_f1,rouge_l,levenshtein_similarity,levenshtein_distance\n"
    )
    assert json.loads((tmp_path / "s.json").read_text())["rows"] == 0


def test_empty_parquet_input_and_output(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "e.parquet"
    pq.write_table(
        pa.table({"expected": pa.array([], pa.string()), "actual": pa.array([], pa.string())}), src
    )
    out = tmp_path / "o.parquet"
    summary = score_file(src, options("token_f1"), output=out)
    table = pq.read_table(out)
    assert summary.rows == 0
    assert table.num_rows == 0
    assert table.column_names == ["row", "token_f1"]


# --- bad rows ----------------------------------------------------------------------------------

BAD_JSONL = (
    '{"id": 1, "expected": "a", "actual": "a"}\n'
    '{"id": 2, "expected": "b", "actual": \n'  # line 2: malformed
    '{"id": 3, "actual": "c"}\n'  # line 3: missing field
    "\n"
    '{"id": 4, "expected": 5, "actual": "d"}\n'  # line 5: a number
    "[1, 2]\n"  # line 6: not an object
    '{"id": 7, "expected": "g", "actual": "g"}\n'
)


@pytest.mark.parametrize("chunk_size", [1, 2, 100])
def test_fail_names_the_first_bad_line_and_writes_nothing(tmp_path: Path, chunk_size: int) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text(BAD_JSONL)
    out = tmp_path / "scores.jsonl"
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options("token_f1", chunk_size=chunk_size), output=out)
    message = str(caught.value)
    assert "bad.jsonl, line 2:" in message
    assert "not valid JSON" in message
    assert "--on-error" in message
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_skip_leaves_bad_rows_out_and_reports_each(tmp_path: Path, chunk_size: int) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text(BAD_JSONL)
    out = tmp_path / "scores.jsonl"
    reported: list[Any] = []
    summary = score_file(
        src,
        options("token_f1", chunk_size=chunk_size, on_error="skip"),
        output=out,
        on_bad_row=reported.append,
    )
    assert read_jsonl(out) == [{"id": 1, "token_f1": 1.0}, {"id": 7, "token_f1": 1.0}]
    assert [(r.where, r.field) for r in reported] == [
        ("line 2", ""),
        ("line 3", "expected"),
        ("line 5", "expected"),
        ("line 6", ""),
    ]
    assert "missing" in reported[1].problem
    assert "a number" in reported[2].problem
    assert (summary.rows, summary.skipped) == (6, 4)
    assert summary.metrics["token_f1"].count == 2


def test_null_keeps_bad_rows_with_null_scores(tmp_path: Path) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text(BAD_JSONL)
    out = tmp_path / "scores.csv"
    summary = score_file(src, options("token_f1,rouge_l", on_error="null"), output=out)
    # A bad row keeps its id when the id itself can be read (lines 3 and 5); a line that is not
    # JSON (2) or not an object (6) has none.
    assert out.read_text().splitlines() == [
        "id,token_f1,rouge_l",
        "1,1.0,1.0",
        ",,",
        "3,,",
        "4,,",
        ",,",
        "7,1.0,1.0",
    ]
    stats = summary.metrics["token_f1"]
    assert (stats.count, stats.nulls, summary.skipped) == (2, 4, 0)


@pytest.mark.parametrize("policy", ["fail", "skip", "null"])
def test_a_metric_that_cannot_score_a_row_gives_a_null_and_a_note(
    tmp_path: Path, policy: Any
) -> None:
    rows = [{"expected": "[1]", "actual": "[1]"}] * 5 + [{"expected": "{oops", "actual": "{}"}]
    rows += [{"expected": '{"a": 1}', "actual": '{"a": 1}'}] * 4
    src = write_jsonl(tmp_path / "docs.jsonl", rows)
    out = tmp_path / "o.jsonl"
    notes: list[Any] = []
    summary = score_file(
        src,
        options("json_match,token_f1", chunk_size=4, on_error=policy),
        output=out,
        on_bad_row=notes.append,
    )
    scored = read_jsonl(out)
    assert scored[5] == {"row": 5, "json_match": None, "token_f1": 0.0}
    assert all(r["json_match"] is True for i, r in enumerate(scored) if i != 5)
    assert (summary.rows, summary.skipped) == (10, 0)
    assert summary.metrics["json_match"].nulls == 1
    assert summary.metrics["token_f1"].nulls == 0
    [note] = notes
    assert (note.where, note.field, note.metric) == ("line 6", "expected", "json_match")
    assert "not valid JSON" in note.problem
    assert "row 0" not in note.problem  # the kernel's batch-relative row is not shown


def test_rejected_rows_are_found_by_halving_large_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalmark.scoring import _compute as compute

    monkeypatch.setattr(compute, "ROW_BY_ROW", 2)
    rows = [{"expected": "[1]", "actual": "[1]"}] * 40
    for bad in (0, 17, 18, 39):
        rows[bad] = {"expected": "prose", "actual": "[1]"}
    src = write_jsonl(tmp_path / "docs.jsonl", rows)
    out = tmp_path / "o.jsonl"
    notes: list[Any] = []
    score_file(src, options("json_match", chunk_size=40), output=out, on_bad_row=notes.append)
    assert [n.where for n in notes] == ["line 1", "line 18", "line 19", "line 40"]
    assert [r["json_match"] for r in read_jsonl(out)] == [
        None if i in (0, 17, 18, 39) else True for i in range(40)
    ]


def test_csv_bad_rows_name_the_starting_line(tmp_path: Path) -> None:
    src = tmp_path / "bad.csv"
    src.write_text('expected,actual\n"multi\nline",x\nonly one field\na,b\n', "utf-8")
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options("token_f1", chunk_size=1))
    assert "bad.csv, line 4:" in str(caught.value)
    assert "has 1 fields where the header has 2" in str(caught.value)


def test_csv_missing_column_is_named_with_the_header(tmp_path: Path) -> None:
    src = write_csv(tmp_path / "p.csv", ["question", "answer"], [["a", "b"]])
    with pytest.raises(
        ScoringInputError, match=r"field 'expected': is not a column.*question, answer"
    ):
        score_file(src, options("token_f1"))


def test_malformed_csv_quoting_is_an_input_error(tmp_path: Path) -> None:
    src = tmp_path / "q.csv"
    src.write_text('expected,actual\na,b\n"c"d,e\n', "utf-8")
    with pytest.raises(ScoringInputError, match=r"q\.csv, line 3: is not valid CSV"):
        score_file(src, options("token_f1"))


def test_csv_invalid_utf8_is_an_input_error(tmp_path: Path) -> None:
    src = tmp_path / "latin.csv"
    src.write_bytes(b"expected,actual\ncaf\xe9,cafe\n")
    with pytest.raises(ScoringInputError, match="not valid UTF-8"):
        score_file(src, options("token_f1"))


def test_parquet_null_names_row_group_and_field(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "p.parquet"
    table = pa.table({"expected": ["a", "b", "c", None, "e"], "actual": ["a", "b", "c", "d", "e"]})
    pq.write_table(table, src, row_group_size=2)
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options("token_f1"))
    message = str(caught.value)
    assert "row group 1, row 1 (row 3 of the file, from 0)" in message
    assert "field 'expected': is null" in message
    out = tmp_path / "o.jsonl"
    score_file(src, options("token_f1", on_error="null"), output=out)
    assert [r["token_f1"] for r in read_jsonl(out)] == [1.0, 1.0, 1.0, None, 1.0]


# --- Parquet ------------------------------------------------------------------------------------


@pytest.mark.parametrize("large", [False, True])
def test_parquet_input_gives_the_same_output_as_jsonl(tmp_path: Path, large: bool) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = pair_rows(PAIRS * 5)
    text = pa.large_string() if large else pa.string()
    table = pa.table(
        {
            "id": pa.array([r["id"] for r in rows]),
            "expected": pa.array([r["expected"] for r in rows], text),
            "actual": pa.array([r["actual"] for r in rows], text),
        }
    )
    src_parquet = tmp_path / "pairs.parquet"
    pq.write_table(table, src_parquet, row_group_size=7)
    src_jsonl = write_jsonl(tmp_path / "pairs.jsonl", rows)
    for suffix in (".jsonl", ".csv", ".parquet"):
        a, b = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
        summary_a = score_file(src_jsonl, options(chunk_size=4), output=a)
        summary_b = score_file(src_parquet, options(chunk_size=4), output=b)
        assert a.read_bytes() == b.read_bytes()
        assert summary_a == summary_b


def test_parquet_dictionary_columns_are_read(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "d.parquet"
    table = pa.table(
        {"expected": pa.array(["a b", "a b"]).dictionary_encode(), "actual": ["a", "b"]}
    )
    pq.write_table(table, src)
    out = tmp_path / "o.jsonl"
    score_file(src, options("token_f1"), output=out)
    assert [r["token_f1"] for r in read_jsonl(out)] == token_f1_batch(
        ["a b"] * 2, ["a", "b"]
    ).tolist()


def test_parquet_wrong_column_type_is_refused(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src = tmp_path / "n.parquet"
    pq.write_table(pa.table({"expected": [1, 2], "actual": ["a", "b"]}), src)
    with pytest.raises(ScoringInputError, match="field 'expected': has type int64"):
        score_file(src, options("token_f1"))


def test_missing_pyarrow_says_which_extra_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "p.parquet"
    src.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(OptionalDependencyError, match=r"evalmark\[arrow\]"):
        score_file(src, options("token_f1"))
    with pytest.raises(OptionalDependencyError, match=r"evalmark\[arrow\]"):
        score_file(
            write_jsonl(tmp_path / "p.jsonl", pair_rows()), options(), output=tmp_path / "o.parquet"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl", "p.parquet"]


# --- vectors -----------------------------------------------------------------------------------


def test_cosine_from_list_columns_and_npy_files_equal_the_kernel(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((9, 5))
    b = rng.standard_normal((9, 5))
    b[4] = 0.0  # a zero vector scores 0.0
    reference = cosine_batch(a, b).tolist()
    rows = [
        {"id": i, "expected_vector": a[i].tolist(), "actual_vector": b[i].tolist()}
        for i in range(9)
    ]
    src = write_jsonl(tmp_path / "v.jsonl", rows)
    out = tmp_path / "o.jsonl"
    score_file(src, options("cosine", chunk_size=4), output=out)
    assert [r["cosine"] for r in read_jsonl(out)] == reference
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    ids = write_jsonl(tmp_path / "ids.jsonl", [{"id": i} for i in range(9)])
    npy = options(
        "cosine", chunk_size=2, expected_npy=tmp_path / "a.npy", actual_npy=tmp_path / "b.npy"
    )
    score_file(ids, npy, output=out)
    assert [r["cosine"] for r in read_jsonl(out)] == reference


def test_vector_problems_are_bad_rows(tmp_path: Path) -> None:
    rows = [
        {"expected_vector": [1.0, 0.0], "actual_vector": [1.0, 0.0]},
        {"expected_vector": [1.0, 0.0, 2.0], "actual_vector": [1.0, 0.0]},
        {"expected_vector": [1.0, 1e400], "actual_vector": [1.0, 0.0]},
        {"expected_vector": "no", "actual_vector": [1.0, 0.0]},
    ]
    src = tmp_path / "v.jsonl"
    src.write_text("\n".join(json.dumps(r).replace("Infinity", "1e400") for r in rows))
    reported: list[Any] = []
    out = tmp_path / "o.jsonl"
    score_file(src, options("cosine", on_error="null"), output=out, on_bad_row=reported.append)
    assert [r["cosine"] for r in read_jsonl(out)] == [1.0, None, None, None]
    assert [(r.where, r.field) for r in reported] == [
        ("line 2", "expected_vector"),
        ("line 3", ""),
        ("line 4", "expected_vector"),
    ]
    assert "3 dimensions where the earlier rows have 2" in reported[0].problem
    assert "out of range" in reported[1].problem
    assert "must be an array of numbers" in reported[2].problem


def test_non_finite_npy_vectors_are_bad_rows(tmp_path: Path) -> None:
    a = np.ones((4, 3))
    a[2, 1] = np.nan
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", np.ones((4, 3)))
    ids = write_jsonl(tmp_path / "ids.jsonl", [{"id": i} for i in range(4)])
    npy = options("cosine", expected_npy=tmp_path / "a.npy", actual_npy=tmp_path / "b.npy")
    with pytest.raises(ScoringInputError) as caught:
        score_file(ids, npy)
    assert "ids.jsonl, line 3, field 'expected vector (a.npy)': holds NaN or infinity" in str(
        caught.value
    )


def test_npy_with_the_wrong_row_count_is_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones((3, 4)))
    np.save(tmp_path / "b.npy", np.ones((3, 4)))
    ids = write_jsonl(tmp_path / "ids.jsonl", [{"id": i} for i in range(2)])
    npy = options("cosine", expected_npy=tmp_path / "a.npy", actual_npy=tmp_path / "b.npy")
    with pytest.raises(ScoringInputError, match="has 3 vectors but the input has 2 data rows"):
        score_file(ids, npy, output=tmp_path / "o.jsonl")
    assert not (tmp_path / "o.jsonl").exists()


# --- atomic output -----------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_interruption_mid_write_leaves_no_partial_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    from evalmark.scoring import _writers as writers

    src = write_jsonl(tmp_path / "pairs.jsonl", pair_rows(PAIRS * 3))
    out = tmp_path / f"scores{suffix}"
    summary_path = tmp_path / "summary.json"
    out.write_bytes(b"previous run")
    calls = {"n": 0}
    writer_class = {
        ".jsonl": writers.JsonlScoreWriter,
        ".csv": writers.CsvScoreWriter,
        ".parquet": writers.ParquetScoreWriter,
    }[suffix]
    original = writer_class.write

    def interrupted(self: Any, scored: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        original(self, scored)

    monkeypatch.setattr(writer_class, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        score_file(src, options(chunk_size=4), output=out, summary_path=summary_path)
    assert calls["n"] == 3
    assert out.read_bytes() == b"previous run"
    assert not summary_path.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.jsonl", f"scores{suffix}"]


def test_output_may_not_overwrite_the_input(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "pairs.jsonl", pair_rows())
    with pytest.raises(ValueError, match="would overwrite the input"):
        score_file(src, options(), output=src)
    with pytest.raises(ValueError, match="output format"):
        score_file(src, options(), output=tmp_path / "scores.txt")


def test_files_get_the_usual_permissions(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "pairs.jsonl", pair_rows())
    out = tmp_path / "scores.jsonl"
    score_file(src, options(), output=out)
    assert out.stat().st_mode & 0o777 == src.stat().st_mode & 0o777


# --- summary -----------------------------------------------------------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(
    st.lists(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0]) | finite, min_size=1, max_size=300),
    st.integers(min_value=1, max_value=50),
)
def test_summary_is_exact_and_independent_of_chunking(values: list[float], chunk: int) -> None:
    dist = Distribution()
    for i in range(0, len(values), chunk):
        dist.add(np.array(values[i : i + chunk]))
    stats = dist.summary()
    array = np.array(values)
    assert stats.count == len(values)
    assert stats.min == array.min() and stats.max == array.max()
    assert stats.mean == math.fsum(values) / len(values)
    assert [stats.p5, stats.p50, stats.p95] == np.percentile(array, [5, 50, 95]).tolist()
    whole = Distribution()
    whole.add(array[::-1])
    assert whole.summary() == stats


def test_summary_switches_to_raw_scores_without_changing_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(5000), np.full(3000, 0.5)])
    small = Distribution()
    for part in np.array_split(values, 17):
        small.add(part)
    monkeypatch.setattr(summary_module, "_SMALL_TABLE", 10)
    raw = Distribution()
    for part in np.array_split(values, 17):
        raw.add(part)
    assert raw._raw is not None and small._raw is None
    assert raw.summary() == small.summary()
    assert small.summary().p50 == float(np.percentile(values, 50))


def test_large_counts_keep_the_mean_exact() -> None:
    dist = Distribution()
    for _ in range(3):
        dist.add(np.full(1_000_000, 0.1))
    dist.add(np.full(7, 1 / 3))
    total = 3_000_000 * 0.1  # exact rational sum, rounded once
    from fractions import Fraction

    exact = Fraction(0.1) * 3_000_000 + Fraction(1 / 3) * 7
    assert dist.summary().mean == float(exact) / 3_000_007
    assert total > 0


def test_parse_metrics_errors() -> None:
    with pytest.raises(ValueError, match="unknown metric 'zzz'; choose from: token_f1"):
        parse_metrics("token_f1,zzz")
    with pytest.raises(ValueError, match="given twice"):
        parse_metrics("rouge_l, rouge_l")
    with pytest.raises(ValueError, match="no metric given"):
        parse_metrics(" , ")
    assert [m.name for m in parse_metrics(["cosine", "json_match"])] == ["cosine", "json_match"]
