"""Ray Data integration: the same scores as the single-machine scorer, row for row."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import evalmark.ray  # noqa: E402
from evalmark.cli import main  # noqa: E402
from evalmark.errors import ScoringInputError  # noqa: E402
from evalmark.scoring import ScoreOptions, parse_metrics, score_file  # noqa: E402

# Ray warns about its own deprecated settings when its data context starts.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")

METRICS = ["token_f1", "rouge_l", "levenshtein_similarity", "json_match"]
PAIRS = [
    ('{"a": 1}', '{"a": 1.0}'),
    ("The cat sat on the mat.", "A cat sat on a mat"),
    ("", ""),
    ("東京は日本の首都です", "東京は首都"),
    ("emoji 😀 here", "emoji 😀 there"),
    ("[1, 2]", "[2, 1]"),
] * 40


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


def write_pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": i, "expected": e, "actual": a}, ensure_ascii=False) + "\n"
            for i, (e, a) in enumerate(PAIRS)
        ),
        "utf-8",
    )
    return path


def local_rows(
    path: Path, tmp_path: Path, metrics: list[str], **kwargs: Any
) -> list[dict[str, Any]]:
    out = tmp_path / "local.jsonl"
    score_file(path, ScoreOptions(parse_metrics(metrics), **kwargs), output=out)
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_scores_equal_single_machine_row_for_row(tmp_path: Path) -> None:
    src = write_pairs(tmp_path)
    expected = local_rows(
        src, tmp_path, ["token_f1", "rouge_l", "levenshtein_similarity"], chunk_size=7
    )
    table = pa.table(
        {
            "id": list(range(len(PAIRS))),
            "expected": [p[0] for p in PAIRS],
            "actual": [p[1] for p in PAIRS],
        }
    )
    dataset = ray.data.from_arrow(table).repartition(5)
    scored = evalmark.ray.score(
        dataset, ["token_f1", "rouge_l", "levenshtein_similarity"], batch_size=16
    )
    rows = sorted(scored.take_all(), key=lambda row: row["id"])
    assert len(rows) == len(expected)
    for mine, theirs in zip(rows, expected, strict=True):
        assert mine["id"] == theirs["id"]
        for name in ("token_f1", "rouge_l", "levenshtein_similarity"):
            assert mine[name] == theirs[name]  # bit for bit


def test_summarize_equals_the_local_summary(tmp_path: Path) -> None:
    src = write_pairs(tmp_path)
    names = ["token_f1", "levenshtein_similarity"]
    local = score_file(src, ScoreOptions(parse_metrics(names)))
    dataset = ray.data.read_json(str(src))
    remote = evalmark.ray.summarize(evalmark.ray.score(dataset, names, batch_size=50))
    assert remote.metrics == local.metrics
    assert remote.rows == local.rows


def test_bad_rows_under_each_policy() -> None:
    table = pa.table(
        {
            "id": ["a", "b", "c", "d"],
            "expected": ["[1]", "{broken", None, "[2]"],
            "actual": ["[1]", "[1]", "x", "[2]"],
        }
    )
    dataset = ray.data.from_arrow(table)
    nulls = evalmark.ray.score(dataset, ["json_match"], id="id", on_error="null").take_all()
    assert [row["json_match"] for row in nulls] == [True, None, None, True]
    kept = evalmark.ray.score(dataset, ["json_match"], id="id", on_error="skip").take_all()
    assert [(row["id"], row["json_match"]) for row in kept] == [
        ("a", True),
        ("b", None),
        ("d", True),
    ]
    with pytest.raises(Exception, match=r"id 'c', field 'expected': is null") as caught:
        evalmark.ray.score(dataset, ["json_match"], id="id").take_all()
    assert isinstance(caught.value, ScoringInputError) or "ScoringInputError" in str(caught.value)


def test_missing_column_is_named() -> None:
    dataset = ray.data.from_arrow(pa.table({"question": ["q"], "answer": ["a"]}))
    with pytest.raises(ScoringInputError, match="field 'expected': is not a column"):
        evalmark.ray.score(dataset, ["token_f1"])


def test_cosine_from_list_columns_equals_local(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((30, 8)), rng.standard_normal((30, 8))
    table = pa.table(
        {"id": list(range(30)), "expected_vector": a.tolist(), "actual_vector": b.tolist()}
    )
    src = tmp_path / "v.parquet"
    pq.write_table(table, src, row_group_size=7)
    expected = local_rows(src, tmp_path, ["cosine"])
    rows = evalmark.ray.score(ray.data.read_parquet(str(src)), ["cosine"], batch_size=4).take_all()
    assert [r["cosine"] for r in rows] == [r["cosine"] for r in expected]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_cli_ray_engine_writes_the_same_bytes_as_local(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    src = write_pairs(tmp_path)
    if suffix == ".parquet":
        src_parquet = tmp_path / "pairs.parquet"
        pq.write_table(
            pa.Table.from_pylist([json.loads(x) for x in src.read_text().splitlines()]),
            src_parquet,
            row_group_size=50,
        )
        src = src_parquet
    elif suffix == ".csv":
        src_csv = tmp_path / "pairs.csv"
        import csv

        with src_csv.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "expected", "actual"])
            writer.writerows([i, e, a] for i, (e, a) in enumerate(PAIRS))
        src = src_csv
    common = [str(src), "--metrics", ",".join(METRICS), "--on-error", "null", "--chunk-size", "33"]
    outputs = []
    for engine in ("local", "ray"):
        out, summary = tmp_path / f"{engine}.jsonl", tmp_path / f"{engine}.json"
        code = main(
            ["score", *common, "--engine", engine, "-o", str(out), "--summary", str(summary)]
        )
        assert code == 0
        outputs.append((out.read_bytes(), summary.read_bytes()))
    capsys.readouterr()
    assert outputs[0] == outputs[1]
    assert outputs[0][0].count(b"\n") == len(PAIRS)


def test_cli_ray_engine_bad_rows_follow_the_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "pairs.parquet"
    pq.write_table(
        pa.table({"expected": ["a", "b", None, "d"], "actual": ["a", "x", "c", "d"]}), src
    )
    out = tmp_path / "scores.jsonl"
    base = ["score", str(src), "--metrics", "token_f1", "--engine", "ray", "-o", str(out)]
    assert main(base) == 2
    assert "row 2 (from 0), field 'expected': is null" in capsys.readouterr().err
    assert not out.exists()
    assert main([*base, "--on-error", "skip"]) == 0
    assert [json.loads(line)["row"] for line in out.read_text().splitlines()] == [0, 1, 3]
    assert main([*base, "--on-error", "null"]) == 0
    scores = [json.loads(line)["token_f1"] for line in out.read_text().splitlines()]
    assert scores == [1.0, 0.0, None, 1.0]


def test_score_file_on_ray_gives_the_local_files_and_summary(tmp_path: Path) -> None:
    src = write_pairs(tmp_path)
    options = ScoreOptions(parse_metrics(METRICS), chunk_size=29, on_error="null")
    local = score_file(
        src, options, output=tmp_path / "local.jsonl", summary_path=tmp_path / "local.json"
    )
    remote = evalmark.ray.score_file_on_ray(
        src, options, output=tmp_path / "ray.jsonl", summary_path=tmp_path / "ray.json"
    )
    assert remote == local and remote.rows == len(PAIRS)
    for suffix in (".jsonl", ".json"):
        written = (tmp_path / f"ray{suffix}").read_bytes()
        assert written == (tmp_path / f"local{suffix}").read_bytes()


def test_score_file_on_ray_refuses_the_local_only_options(tmp_path: Path) -> None:
    src = write_pairs(tmp_path)
    capped = ScoreOptions(parse_metrics(["token_f1"]), max_chars=10)
    with pytest.raises(ValueError, match="--max-chars works with --engine local only"):
        evalmark.ray.score_file_on_ray(src, capped, output=tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
