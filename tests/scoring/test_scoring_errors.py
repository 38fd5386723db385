"""Scoring inputs that are broken in the ways people break them: each gives a typed error (or a
bad row) naming the file, the exact line and what to do, and the CLI exits 2 without a trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.errors import ScoringInputError
from evalmark.scoring import Columns, ScoreOptions, parse_metrics, score_file


def options(metrics: str = "token_f1", **kwargs: Any) -> ScoreOptions:
    return ScoreOptions(parse_metrics(metrics), **kwargs)


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["score", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def good_jsonl(path: Path, rows: int = 3) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": f"r{i}", "expected": "a b", "actual": "a"}) + "\n"
            for i in range(rows)
        )
    )
    return path


# --- invalid UTF-8 at its exact line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "column"),
    [
        (b"expected,actual\na,b\nc,d\ne,f\ng,\xff\n", 5, 3),  # the example: line 5
        (b"expect\xe9d,actual\na,b\n", 1, 7),  # in the header
        (b'expected,actual\n"multi\nline \xff",b\n', 3, 6),  # inside a quoted value
        (b"\xef\xbb\xbfexpected,actual\na,\xc3\n", 2, 3),  # after a BOM, a cut sequence
        (b"expected,actual\n" + b"x,y\n" * 300_000 + b"caf\xe9,cafe\n", 300_002, 4),  # past 1 MiB
    ],
)
def test_invalid_utf8_in_a_csv_names_its_exact_line(
    tmp_path: Path, content: bytes, line: int, column: int
) -> None:
    src = tmp_path / "latin.csv"
    src.write_bytes(content)
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options())
    message = str(caught.value)
    assert caught.value.where == f"line {line}", message
    assert f"at column {column}" in message
    assert "not valid UTF-8" in message and "save the file as UTF-8" in message


def test_a_multibyte_character_cut_by_a_read_block_is_not_an_error_but_the_next_bad_byte_is(
    tmp_path: Path,
) -> None:
    from evalmark._files.source import invalid_utf8_position

    block = 1 << 20
    head = b"a" * (block - 1) + "é".encode()  # é straddles the first block boundary
    src = tmp_path / "x.bin"
    src.write_bytes(head + b"\nok\nbad \xff here\n")
    with src.open("rb") as stream:
        assert invalid_utf8_position(stream, block) == (3, 5)
    src.write_bytes(head + b"\n")
    with src.open("rb") as stream:
        assert invalid_utf8_position(stream, block) is None


def test_invalid_utf8_in_a_jsonl_line_is_a_bad_row_at_that_line(tmp_path: Path) -> None:
    src = good_jsonl(tmp_path / "pairs.jsonl", 4)
    src.write_bytes(src.read_bytes() + b'{"id": "r4", "expected": "caf\xe9", "actual": "x"}\n')
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options())
    assert caught.value.where == "line 5"
    assert "not UTF-8" in str(caught.value) and "(column 30)" in str(caught.value)


# --- nesting too deep ----------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [10_000, 100_000])
@pytest.mark.parametrize("first", [True, False])
def test_deep_nesting_in_a_jsonl_row_is_a_bad_row_with_its_line(
    tmp_path: Path, depth: int, first: bool
) -> None:
    deep = (
        json.dumps({"expected": "a", "actual": "b"})[:-1]
        + ', "x": '
        + "[" * depth
        + "]" * depth
        + "}\n"
    )
    src = tmp_path / "deep.jsonl"
    good = good_jsonl(tmp_path / "good.jsonl", 2).read_text()
    src.write_text(deep + good if first else good + deep)
    line = 1 if first else 3
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options())
    assert caught.value.where == f"line {line}"
    assert "nested too deeply" in str(caught.value)
    reported: list[Any] = []
    summary = score_file(src, options(on_error="skip"), on_bad_row=reported.append)
    assert [r.where for r in reported] == [f"line {line}"]
    assert summary.rows == 3 and summary.skipped == 1


def test_deep_nesting_in_a_csv_vector_cell_is_a_bad_row(tmp_path: Path) -> None:
    src = tmp_path / "v.csv"
    deep = "[" * 10_000 + "]" * 10_000
    src.write_text(f'expected_vector,actual_vector\n"[1, 0]","[1, 0]"\n"{deep}","[1, 0]"\n')
    with pytest.raises(ScoringInputError) as caught:
        score_file(src, options("cosine"))
    assert caught.value.where == "line 3" and caught.value.field == "expected_vector"


# --- the output path -----------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--summary", "-o"])
def test_a_folder_as_output_names_the_folder_and_leaves_no_part_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    src = good_jsonl(tmp_path / "pairs.jsonl")
    folder = tmp_path / "out.jsonl"
    folder.mkdir()
    for _ in range(2):  # every run, not only the first
        code, _, err = run(capsys, src, "--metrics", "token_f1", option, folder)
        assert code == 2
        assert err.startswith(f"evalmark score: error: {folder}: is a folder, not a file")
        assert "Traceback" not in err and ".part" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "pairs.jsonl"]
    assert list(folder.iterdir()) == []


def test_outputs_in_a_missing_folder_create_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = good_jsonl(tmp_path / "pairs.jsonl")
    out, summary = tmp_path / "new" / "scores.csv", tmp_path / "new" / "deeper" / "summary.json"
    code, _, err = run(capsys, src, "--metrics", "token_f1", "-o", out, "--summary", summary)
    assert code == 0, err
    assert out.read_text().splitlines()[0] == "id,token_f1"
    assert json.loads(summary.read_text())["rows"] == 3


def test_an_output_under_a_file_names_the_path_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = good_jsonl(tmp_path / "pairs.jsonl")
    target = src / "out.jsonl"  # the input file in the place of a folder
    code, _, err = run(capsys, src, "--metrics", "token_f1", "-o", target)
    assert code == 2
    assert err.startswith(f"evalmark score: error: {target}: cannot be written")
    assert ".part" not in err


# --- the empty-file rule -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.csv"])
def test_an_empty_input_exits_2_naming_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    src = tmp_path / name
    src.write_bytes(b"\n" if name.endswith(".jsonl") else b"")
    code, out, err = run(capsys, src, "--metrics", "token_f1")
    assert code == 2 and out == ""
    assert f"{src}: is empty" in err and "failed export" in err


# --- names of metrics ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("f1", "token_f1"),
        ("rougel", "rouge_l"),
        ("ROUGE-L", "rouge_l"),
        ("levenstein_similarity", "levenshtein_similarity"),
        ("json-match", "json_match"),
        ("levenstein_distance", "levenshtein_distance"),
    ],
)
def test_a_misspelt_metric_gets_the_name_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, meant: str
) -> None:
    src = good_jsonl(tmp_path / "pairs.jsonl")
    code, _, err = run(capsys, src, "--metrics", f"token_f1,{given}")
    assert code == 2
    assert f"unknown metric {given!r}; did you mean {meant!r}? choose from: token_f1" in err


def test_a_metric_with_no_close_name_lists_them_all() -> None:
    with pytest.raises(
        ValueError, match=r"unknown metric 'perplexity'; choose from: token_f1, "
    ) as caught:
        parse_metrics("perplexity")
    assert "did you mean" not in str(caught.value)


# --- bad rows keep their id --------------------------------------------------------------------


def test_null_scores_keep_the_id_of_bad_rows_in_every_output_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "bad.csv"
    src.write_text(
        "id,expected,actual\n"
        "r1,a,a\n"
        "r2,b,b,extra\n"  # a field too many: the id is still the first cell
        "r3,c\n"  # a field too few
        "r4,d,d\n"
    )
    for suffix in (".csv", ".jsonl"):
        out = tmp_path / f"scores{suffix}"
        code, _, err = run(capsys, src, "--metrics", "token_f1", "--on-error", "null", "-o", out)
        assert code == 0
        assert "null scores for line 3: has 4 fields" in err
        assert "null scores for line 4: has 2 fields" in err
        if suffix == ".csv":
            assert out.read_text().splitlines() == [
                "id,token_f1",
                "r1,1.0",
                "r2,",
                "r3,",
                "r4,1.0",
            ]
        else:
            rows = [json.loads(line) for line in out.read_text().splitlines()]
            assert rows == [
                {"id": "r1", "token_f1": 1.0},
                {"id": "r2", "token_f1": None},
                {"id": "r3", "token_f1": None},
                {"id": "r4", "token_f1": 1.0},
            ]


def test_a_bad_row_with_an_id_column_after_the_bad_cell_gets_no_guessed_id(tmp_path: Path) -> None:
    src = tmp_path / "bad.csv"
    src.write_text("expected,actual,id\na,a,r1\nb,with, a comma,r2\n")
    out = tmp_path / "scores.csv"
    score_file(src, options(on_error="null"), output=out)
    assert out.read_text().splitlines() == ["id,token_f1", "r1,1.0", ","]


@pytest.mark.parametrize("kind", ["list", "float", "struct"])
def test_a_parquet_id_column_that_cannot_identify_rows_is_refused(
    tmp_path: Path, kind: str
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    ids = {
        "list": pa.array([[None, 0.0]], pa.list_(pa.float64())),
        "float": pa.array([1.5]),
        "struct": pa.array([{"a": 1}]),
    }[kind]
    src = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"id": ids, "expected": ["a"], "actual": ["a"]}), src)
    with pytest.raises(ScoringInputError, match=r"field 'id': has type .*an id must be text or an"):
        score_file(src, options(), output=tmp_path / "scores.jsonl")
    summary = score_file(src, ScoreOptions(parse_metrics("token_f1"), columns=Columns(id="")))
    assert summary.rows == 1
