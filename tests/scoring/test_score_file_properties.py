"""Properties of ``score_file`` over generated rows: the chunk size and the input format
(JSON Lines, CSV, Parquet) never change the scores or the summary; every output format holds the
same scores; the summary's figures equal numpy's over the scores written; a metric list is read
in order and a bad one refused naming it; and any bytes give a summary or a typed error."""

from __future__ import annotations

import contextlib
import csv
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import EvalmarkError
from evalmark.metrics import token_f1_batch
from evalmark.scoring import ScoreOptions, parse_metrics, score_file
from evalmark.scoring._registry import METRICS

TEXTS = st.text(st.characters(exclude_categories=("Cs",)), max_size=16)
WORDS = st.lists(st.sampled_from(["a", "b", "the", "cat", "名", "é"]), max_size=5).map(" ".join)
PAIRS = st.lists(st.tuples(TEXTS | WORDS, TEXTS | WORDS), min_size=1, max_size=25)
METRIC_SETS = st.lists(
    st.sampled_from(
        ["token_f1", "levenshtein_distance", "squad_exact_match", "rouge_l", "json_match"]
    ),
    min_size=1,
    max_size=3,
    unique=True,
)


def write_input(path: Path, pairs: list[tuple[str, str]]) -> Path:
    ids = [f"r{i}" for i in range(len(pairs))]
    if path.suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "expected", "actual"])
            writer.writerows([i, e, a] for i, (e, a) in zip(ids, pairs, strict=True))
    elif path.suffix == ".parquet":
        table = pa.table(
            {"id": ids, "expected": [e for e, _ in pairs], "actual": [a for _, a in pairs]}
        )
        pq.write_table(table, path)
    else:
        rows = [{"id": i, "expected": e, "actual": a} for i, (e, a) in zip(ids, pairs, strict=True)]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cell(text: str) -> Any:
    """A score as a CSV output writes it: true/false, empty for none, else a number."""
    words: dict[str, Any] = {"true": True, "false": False, "": None}
    return words[text] if text in words else float(text)


def read_output(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            return [
                {k: v if k == "id" else _cell(v) for k, v in row.items()}
                for row in csv.DictReader(handle)
            ]
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()  # type: ignore[no-any-return]
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _score(src: Path, metrics: list[str], chunk: int, out: Path) -> Any:
    return score_file(src, ScoreOptions(parse_metrics(metrics), chunk_size=chunk), output=out)


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS, METRIC_SETS, st.integers(1, 30), st.integers(1, 30))
def test_the_chunk_size_changes_neither_the_scores_nor_the_summary(
    pairs: list[tuple[str, str]], metrics: list[str], a: int, b: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        src = write_input(Path(folder) / "rows.jsonl", pairs)
        one, two = Path(folder) / "a.jsonl", Path(folder) / "b.jsonl"
        first, second = _score(src, metrics, a, one), _score(src, metrics, b, two)
        assert one.read_bytes() == two.read_bytes()
    assert first.as_dict() == second.as_dict()


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, METRIC_SETS)
def test_every_input_format_of_the_same_rows_scores_the_same(
    pairs: list[tuple[str, str]], metrics: list[str]
) -> None:
    outputs, summaries = [], []
    with tempfile.TemporaryDirectory() as folder:
        for suffix in (".jsonl", ".csv", ".parquet"):
            src = write_input(Path(folder) / f"rows{suffix}", pairs)
            out = Path(folder) / f"out{suffix}.jsonl"
            summaries.append(_score(src, metrics, 7, out).as_dict())
            outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    assert summaries[0] == summaries[1] == summaries[2]


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, METRIC_SETS)
def test_every_output_format_holds_the_same_scores_in_input_order(
    pairs: list[tuple[str, str]], metrics: list[str]
) -> None:
    read_back = []
    with tempfile.TemporaryDirectory() as folder:
        src = write_input(Path(folder) / "rows.jsonl", pairs)
        for suffix in (".jsonl", ".csv", ".parquet"):
            out = Path(folder) / f"out{suffix}"
            _score(src, metrics, 5, out)
            read_back.append(read_output(out))
    for rows in read_back:
        assert [r["id"] for r in rows] == [f"r{i}" for i in range(len(pairs))]
    for name in metrics:
        columns = [[r[name] for r in rows] for rows in read_back]
        assert columns[0] == columns[1] == columns[2], name


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS)
def test_the_summary_figures_are_numpys_over_the_scores(pairs: list[tuple[str, str]]) -> None:
    scores = token_f1_batch([e for e, _ in pairs], [a for _, a in pairs])
    with tempfile.TemporaryDirectory() as folder:
        src = write_input(Path(folder) / "rows.jsonl", pairs)
        summary = _score(src, ["token_f1"], 4, Path(folder) / "o.jsonl")
    figures = summary.metrics["token_f1"]
    assert (summary.rows, summary.skipped, figures.count, figures.nulls) == (
        len(pairs),
        0,
        len(pairs),
        0,
    )
    assert figures.mean == pytest.approx(float(np.mean(scores)), abs=1e-12)
    assert figures.min == float(np.min(scores)) and figures.max == float(np.max(scores))
    for q, got in ((5, figures.p5), (50, figures.p50), (95, figures.p95)):
        assert got == pytest.approx(float(np.percentile(scores, q)), abs=1e-12)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(sorted(METRICS)), min_size=1, max_size=4, unique=True))
def test_a_metric_list_is_read_in_order_whatever_its_spacing(names: list[str]) -> None:
    expected = [METRICS[n] for n in names]
    assert list(parse_metrics(",".join(names))) == expected
    assert list(parse_metrics(" , ".join(names) + ",")) == expected
    assert list(parse_metrics(names)) == expected


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.sampled_from(sorted(METRICS)), min_size=1, max_size=3, unique=True),
    st.text(st.characters(codec="ascii", categories=("Ll", "Nd")), min_size=1, max_size=8).filter(
        lambda n: n not in METRICS
    ),
    st.data(),
)
def test_an_unknown_or_repeated_metric_is_refused_naming_it(
    names: list[str], bad: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(names)))
    with pytest.raises(ValueError, match=repr(bad)):
        parse_metrics([*names[:at], bad, *names[at:]])
    with pytest.raises(ValueError, match=f"{names[0]!r} is given twice"):
        parse_metrics([*names, names[0]])


@settings(max_examples=examples(60), deadline=None)
@given(
    st.binary(max_size=80) | TEXTS.map(str.encode),
    st.sampled_from([".jsonl", ".csv", ".parquet"]),
    st.sampled_from(["fail", "skip", "null"]),
)
def test_any_bytes_give_a_summary_or_a_typed_error(data: bytes, suffix: str, policy: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / f"rows{suffix}"
        src.write_bytes(data)
        options = ScoreOptions(parse_metrics("token_f1"), on_error=policy)
        with contextlib.suppress(EvalmarkError):  # any other exception fails the property
            score_file(src, options, output=Path(folder) / "o.jsonl")


BAD_ROWS = st.sampled_from(["not json", "no actual", "actual is a number", "a list"])


@settings(max_examples=examples(40), deadline=None)
@given(PAIRS, BAD_ROWS, st.data())
def test_under_the_fail_policy_a_bad_row_is_named_by_file_and_line_and_nothing_is_written(
    pairs: list[tuple[str, str]], how: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(pairs) - 1))
    lines = [
        json.dumps({"id": f"r{i}", "expected": e, "actual": a}) for i, (e, a) in enumerate(pairs)
    ]
    lines[at] = {
        "not json": "{'id': 1}",
        "no actual": json.dumps({"id": "x", "expected": "e"}),
        "actual is a number": json.dumps({"id": "x", "expected": "e", "actual": 3}),
        "a list": "[1, 2]",
    }[how]
    with tempfile.TemporaryDirectory() as folder:
        src, out = Path(folder) / "rows.jsonl", Path(folder) / "o.jsonl"
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with pytest.raises(EvalmarkError) as caught:
            _score(src, ["token_f1"], 3, out)
        assert not out.exists()
    assert f"rows.jsonl, line {at + 1}" in str(caught.value)


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, st.sampled_from([".ndjson", ".json", ".JSONL"]))
def test_every_json_lines_suffix_reads_as_jsonl(pairs: list[tuple[str, str]], suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        first = write_input(Path(folder) / "rows.jsonl", pairs)
        other = Path(folder) / f"other{suffix}"
        other.write_bytes(first.read_bytes())
        a, b = Path(folder) / "a.jsonl", Path(folder) / "b.jsonl"
        _score(first, ["token_f1"], 4, a)
        _score(other, ["token_f1"], 4, b)
        assert a.read_bytes() == b.read_bytes()
