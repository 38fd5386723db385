"""Properties of ``evalmark score`` over generated pair files with bad rows mixed in: one output
row per input row in order with its id, ``--on-error skip`` and ``null`` account for exactly the
bad rows, the summary's statistics are those of the written scores (ordered quantiles, a mean
that does not depend on the order of the rows), ``--max-chars`` nulls exactly the long rows,
the CSV and JSON Lines outputs agree, and an unknown metric or an empty file is exit 2.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from budget import examples
from cli_runs import in_folder, run_cli
from evalmark.metrics import token_f1

WORDS = st.lists(st.sampled_from(["cat", "sat", "mat", "dog", "a", "the"]), max_size=5).map(
    " ".join
)
PAIRS = st.lists(
    st.fixed_dictionaries({"expected": WORDS, "actual": WORDS}), min_size=1, max_size=10
)
NOT_RECORDS = st.sampled_from(['{"expected": ', "[1, 2]", "nope", "3", '"text"', "null"])
BAD_LINES = NOT_RECORDS | st.just('{"expected": "a"}')


folder = in_folder


def run(argv: list[str]) -> tuple[int, str]:
    code, _, err = run_cli(argv)
    return code, err


def write_pairs(path: Path, rows: list[dict[str, Any]], bad: dict[int, str] | None = None) -> None:
    """``rows`` as JSON Lines, with the raw line ``bad[i]`` put before row ``i``."""
    lines: list[str] = []
    for i, row in enumerate(rows):
        if bad and i in bad:
            lines.append(bad[i])
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS)
def test_every_row_is_scored_in_order_under_its_id(pairs: list[dict[str, str]]) -> None:
    rows = [{"id": f"r{i}", **p} for i, p in enumerate(pairs)]
    with folder() as here:
        write_pairs(here / "p.jsonl", rows)
        code, err = run(["score", "p.jsonl", "--metrics", "token_f1", "-o", "o.jsonl"])
        assert code == 0, err
        out = read_rows(here / "o.jsonl")
    assert [r["id"] for r in out] == [r["id"] for r in rows]
    for got, pair in zip(out, pairs, strict=True):
        assert got["token_f1"] == pytest.approx(token_f1(pair["expected"], pair["actual"]))


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS, st.dictionaries(st.integers(0, 9), NOT_RECORDS, max_size=3))
@example(  # a broken first line hid the "id" column of every row after it
    pairs=[{"expected": "", "actual": ""}], bad={0: '{"expected": '}
)
def test_on_error_skip_leaves_out_exactly_the_bad_lines(
    pairs: list[dict[str, str]], bad: dict[int, str]
) -> None:
    bad = {i: line for i, line in bad.items() if i < len(pairs)}
    rows = [{"id": f"r{i}", **p} for i, p in enumerate(pairs)]
    with folder() as here:
        write_pairs(here / "p.jsonl", rows, bad)
        argv = ["score", "p.jsonl", "--metrics", "token_f1", "-o", "o.jsonl"]
        code, err = run([*argv, "--on-error", "skip", "--summary", "s.json"])
        assert code == 0, err
        out = read_rows(here / "o.jsonl")
        summary = json.loads((here / "s.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in out] == [r["id"] for r in rows]
    assert summary["skipped"] == len(bad)
    assert summary["rows"] == len(rows) + len(bad)


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS, st.data())
def test_on_error_null_writes_a_null_row_for_each_bad_line(
    pairs: list[dict[str, str]], data: Any
) -> None:
    bad = data.draw(st.dictionaries(st.integers(0, len(pairs) - 1), BAD_LINES, max_size=3))
    with folder() as here:
        write_pairs(here / "p.jsonl", pairs, bad)
        argv = ["score", "p.jsonl", "--metrics", "token_f1", "-o", "o.jsonl"]
        code, err = run([*argv, "--on-error", "null", "--summary", "s.json"])
        assert code == 0, err
        out = read_rows(here / "o.jsonl")
        summary = json.loads((here / "s.json").read_text(encoding="utf-8"))
    assert len(out) == len(pairs) + len(bad)
    assert sum(r["token_f1"] is None for r in out) == len(bad)
    assert summary["metrics"]["token_f1"]["nulls"] == len(bad)


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS)
def test_the_summary_describes_the_written_scores(pairs: list[dict[str, str]]) -> None:
    with folder() as here:
        write_pairs(here / "p.jsonl", pairs)
        argv = ["score", "p.jsonl", "--metrics", "token_f1,rouge_l", "-o", "o.jsonl"]
        code, err = run([*argv, "--summary", "s.json"])
        assert code == 0, err
        out = read_rows(here / "o.jsonl")
        summary = json.loads((here / "s.json").read_text(encoding="utf-8"))
    for metric in ("token_f1", "rouge_l"):
        stats = summary["metrics"][metric]
        values = [r[metric] for r in out]
        assert stats["count"] == len(values)
        assert stats["mean"] == pytest.approx(sum(values) / len(values))
        assert stats["min"] == min(values) and stats["max"] == max(values)
        quantiles = [stats[k] for k in ("min", "p5", "p50", "p95", "max")]
        assert quantiles == sorted(quantiles)


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, st.randoms())
def test_the_summary_does_not_depend_on_the_order_of_the_rows(
    pairs: list[dict[str, str]], random: Any
) -> None:
    shuffled = list(pairs)
    random.shuffle(shuffled)
    summaries = []
    with folder() as here:
        for rows in (pairs, shuffled):
            write_pairs(here / "p.jsonl", rows)
            code, err = run(["score", "p.jsonl", "--metrics", "token_f1", "--summary", "s.json"])
            assert code == 0, err
            summaries.append(json.loads((here / "s.json").read_text(encoding="utf-8")))
    a, b = (s["metrics"]["token_f1"] for s in summaries)
    assert a["count"] == b["count"] and a["min"] == b["min"] and a["max"] == b["max"]
    assert a["mean"] == pytest.approx(b["mean"]) and a["p50"] == pytest.approx(b["p50"])


@settings(max_examples=examples(30), deadline=None)
@given(PAIRS, st.integers(0, 12))
def test_max_chars_nulls_exactly_the_rows_with_a_longer_text(
    pairs: list[dict[str, str]], limit: int
) -> None:
    with folder() as here:
        write_pairs(here / "p.jsonl", pairs)
        argv = ["score", "p.jsonl", "--metrics", "token_f1", "-o", "o.jsonl"]
        code, err = run([*argv, "--max-chars", str(limit)])
        assert code == 0, err
        out = read_rows(here / "o.jsonl")
    for got, pair in zip(out, pairs, strict=True):
        too_long = max(len(pair["expected"]), len(pair["actual"])) > limit
        assert (got["token_f1"] is None) == too_long, (pair, got)


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS)
def test_csv_and_json_lines_outputs_agree(pairs: list[dict[str, str]]) -> None:
    with folder() as here:
        write_pairs(here / "p.jsonl", pairs)
        for out in ("o.jsonl", "o.csv"):
            code, err = run(["score", "p.jsonl", "--metrics", "token_f1", "-o", out])
            assert code == 0, err
        lines = read_rows(here / "o.jsonl")
        with (here / "o.csv").open(encoding="utf-8", newline="") as handle:
            table = list(csv.DictReader(handle))
    assert [float(r["token_f1"]) for r in table] == [r["token_f1"] for r in lines]
    assert [int(r["row"]) for r in table] == [r["row"] for r in lines]


@settings(max_examples=examples(30), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
def test_an_unknown_metric_is_named_with_the_known_ones(name: str) -> None:
    from evalmark.metrics import METRICS

    assume(name not in METRICS)
    with folder() as here:
        (here / "p.jsonl").write_text('{"expected": "a", "actual": "a"}\n', encoding="utf-8")
        code, err = run(["score", "p.jsonl", "--metrics", name])
    assert code == 2 and err.startswith("evalmark score: error: unknown metric"), err
    assert repr(name) in err and "choose from: token_f1" in err


@settings(max_examples=examples(30), deadline=None)
@given(st.text(alphabet=" \n\t\r", max_size=6))
def test_a_file_with_no_records_is_exit_2(blank: str) -> None:
    with folder() as here:
        (here / "p.jsonl").write_text(blank, encoding="utf-8")
        code, err = run(["score", "p.jsonl", "--metrics", "token_f1"])
    assert code == 2 and err.startswith("evalmark score: error: ") and "empty" in err, err
