"""`evalmark score`: arguments, printed summary, output files, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.metrics import rouge_l_batch, token_f1_batch

PAIRS = [
    ("The refund window is 30 days.", "Refunds are accepted within 30 days."),
    ("Paris", "paris"),
    ("東京", "東京都"),
    ("", ""),
]


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"r{i}", "expected": e, "actual": a}, ensure_ascii=False) + "\n"
            for i, (e, a) in enumerate(PAIRS)
        ),
        "utf-8",
    )
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["score", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prints_row_count_and_per_metric_statistics(
    pairs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        pairs,
        "--metrics",
        "token_f1,rouge_l,levenshtein_similarity,json_match_strict",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"{pairs}: 4 rows"
    assert lines[1].split() == [
        "metric",
        "count",
        "nulls",
        "mean",
        "min",
        "p5",
        "p50",
        "p95",
        "max",
    ]
    token_row = lines[2].split()
    expected_f1 = token_f1_batch([p[0] for p in PAIRS], [p[1] for p in PAIRS])
    assert token_row[:4] == ["token_f1", "4", "0", f"{expected_f1.mean():.4f}"]
    assert (
        token_row[4] == f"{expected_f1.min():.4f}" and token_row[-1] == f"{expected_f1.max():.4f}"
    )
    assert lines[5].split()[:3] == ["json_match_strict", "0", "4"]  # none of these is JSON
    assert (
        "json_match_strict is null for 4 rows it cannot score; the first, line 1, field 'expected'"
        in err
    )


def test_writes_scores_and_summary_files(
    pairs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path, summary_path = tmp_path / "scores.csv", tmp_path / "summary.json"
    code, out, _ = run(
        capsys, pairs, "--metrics", "rouge_l", "-o", out_path, "--summary", summary_path
    )
    assert code == 0
    rouge = rouge_l_batch([p[0] for p in PAIRS], [p[1] for p in PAIRS]).tolist()
    lines = out_path.read_text().splitlines()
    assert lines[0] == "id,rouge_l"
    assert [line.split(",")[0] for line in lines[1:]] == [f"r{i}" for i in range(len(PAIRS))]
    assert [float(line.split(",")[1]) for line in lines[1:]] == rouge
    summary = json.loads(summary_path.read_text())
    assert summary["rows"] == 4
    assert summary["metrics"]["rouge_l"]["count"] == 4
    assert set(summary["metrics"]["rouge_l"]) == {
        "count",
        "nulls",
        "mean",
        "min",
        "p5",
        "p50",
        "p95",
        "max",
    }
    assert f"scores written to {out_path}" in out


def test_same_bytes_on_every_run(
    pairs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = []
    for chunk_size, workers in ((1, 1), (3, 2), (1000, -1)):
        out_path = tmp_path / f"s{chunk_size}.jsonl"
        summary_path = tmp_path / f"s{chunk_size}.json"
        code, out, _ = run(
            capsys,
            pairs,
            "--metrics",
            "token_f1,levenshtein_similarity",
            "-o",
            out_path,
            "--summary",
            summary_path,
            "--chunk-size",
            chunk_size,
            "--workers",
            workers,
        )
        assert code == 0
        outputs.append((out_path.read_bytes(), summary_path.read_bytes(), out.splitlines()[:4]))
    assert outputs[0] == outputs[1] == outputs[2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metrics", "zzz"], "unknown metric 'zzz'"),
        (["--metrics", "token_f1", "--chunk-size", "0"], "--chunk-size must be at least 1"),
        (["--metrics", "token_f1", "--workers", "0"], "--workers must be -1"),
        (["--metrics", "token_f1", "-o", "scores.txt"], "cannot tell the output format"),
        (["--metrics", "token_f1", "--expected-col", "question"], "field 'question'"),
        (["--metrics", "cosine", "--expected-npy", "a.npy"], "give both --expected-npy"),
        (["--metrics", "token_f1", "--ray-address", "auto"], "--ray-address needs --engine ray"),
    ],
)
def test_usage_and_input_errors_exit_2(
    pairs: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(pairs.parent)
    code, out, err = run(capsys, pairs, *args)
    assert code == 2
    assert message in err
    assert err.startswith("evalmark score: error: ")
    assert out == ""


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, tmp_path / "nope.jsonl", "--metrics", "token_f1")
    assert code == 2
    assert "nope.jsonl: no such file" in err


def test_a_bad_line_exits_2_naming_it_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_text('{"expected": "a", "actual": "a"}\n{"expected": "a"}\n')
    out_path = tmp_path / "scores.jsonl"
    code, out, err = run(capsys, src, "--metrics", "token_f1", "-o", out_path)
    assert code == 2
    assert f"{src}, line 2, field 'actual': is missing" in err
    assert not out_path.exists()
    code, out, err = run(capsys, src, "--metrics", "token_f1", "-o", out_path, "--on-error", "skip")
    assert code == 0
    assert "skipped line 2, field 'actual': is missing" in err
    assert out.splitlines()[0] == f"{src}: 2 rows, 1 skipped"
    assert out_path.read_text() == '{"row":0,"token_f1":1.0}\n'


def test_many_bad_rows_are_counted_not_all_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "pairs.jsonl"
    src.write_text("not json\n" * 25)
    code, _, err = run(capsys, src, "--metrics", "token_f1", "--on-error", "skip")
    assert code == 0
    assert err.count("skipped line") == 10
    assert "skipped 25 bad rows in all (15 more not shown)" in err


def test_ctrl_c_exits_130_and_leaves_no_output(
    pairs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalmark.scoring import _writers as writers

    def interrupted(self: Any, scored: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(writers.JsonlScoreWriter, "write", interrupted)
    out_path = tmp_path / "scores.jsonl"
    code, _, err = run(capsys, pairs, "--metrics", "token_f1", "-o", out_path)
    assert code == 130
    assert "interrupted; no output was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.jsonl"]


def test_help_shows_an_example_and_the_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert "evalmark score golden/metrics/pairs.jsonl --metrics" in text
    for name in ("token_f1", "rouge_l", "levenshtein_similarity", "json_match", "cosine"):
        assert name in text


def test_missing_metrics_option_is_a_usage_error(
    pairs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", str(pairs)])
    assert exited.value.code == 2
    assert "--metrics" in capsys.readouterr().err


def test_progress_bar_when_asked(pairs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, pairs, "--metrics", "token_f1", "--progress")
    assert code == 0
    assert "rows/s" in err
    code, _, err = run(capsys, pairs, "--metrics", "token_f1")
    assert "rows/s" not in err  # not a terminal: quiet


def test_console_entry_point_runs(pairs: Path, tmp_path: Path) -> None:
    out_path = tmp_path / "scores.parquet"
    args = [sys.executable, "-m", "evalmark", "score", str(pairs), "--metrics", "token_f1"]
    if _has_pyarrow():
        args += ["-o", str(out_path)]
    done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{pairs}: 4 rows")


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "metrics"


def test_golden_pairs_score_the_same_from_jsonl_and_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = "token_f1,rouge_l,levenshtein_similarity,json_match"
    outputs = []
    for name in ("pairs.jsonl", "pairs.csv"):
        out_path = tmp_path / f"{name}.scores.jsonl"
        code, out, err = run(capsys, GOLDEN / name, "--metrics", metrics, "-o", out_path)
        assert code == 0, err
        outputs.append((out_path.read_bytes(), out.splitlines()[1:-1]))
        assert "json_match is null for" in err  # prose rows have no JSON to match
    assert outputs[0] == outputs[1]
    rows = (GOLDEN / "pairs.jsonl").read_text("utf-8").count("\n")
    assert outputs[0][0].count(b"\n") == rows > 0
