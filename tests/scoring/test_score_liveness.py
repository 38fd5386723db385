"""`evalmark score` on huge rows: Ctrl-C exits 130 at once with no output file, long rows are
announced, ``--max-chars`` reports the rows it leaves out, ``--workers`` is bounded."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from children import CPU_CLOCK, LineReader, cpu_seconds, wait_for_cpu
from evalmark import _core
from evalmark.cli import main

# A pair of 3,000,000- and 3,000,100-character texts: minutes of Levenshtein (lengths that
# differ by more than the kernel's band of 64 diagonals holds, so the full recurrence runs).
HUGE = 1_500_000


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


@pytest.fixture
def huge(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "huge.jsonl",
        [
            {"id": "small", "expected": "the cat", "actual": "the cat sat"},
            {"id": "big", "expected": "ab" * HUGE, "actual": "ba" * (HUGE + 50)},
        ],
    )


def run(capsys: pytest.CaptureFixture[str], *argv: Any) -> tuple[int, str, str]:
    code = main(["score", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.skipif(
    sys.platform == "win32" or not CPU_CLOCK, reason="SIGINT, and the child's CPU clock in /proc"
)
def test_ctrl_c_during_a_huge_row_exits_130_without_output(huge: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.jsonl"
    summary = tmp_path / "summary.json"
    argv = ["score", str(huge), "--metrics", "levenshtein_similarity,rouge_l", "-o", str(out)]
    children_cpu = _children_cpu()
    child = subprocess.Popen(
        [sys.executable, "-m", "evalmark", *argv, "--summary", str(summary), "--progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stderr is not None
        reader = LineReader(child.stderr)
        # --progress announces the long row before scoring it: the kernel is running then.
        first = reader.line(timeout=120)
        while "line 2" not in first:
            first = reader.line(timeout=120)
        # half a CPU second into the row (minutes of work left), whatever the machine's load
        sent = wait_for_cpu(child, cpu_seconds(child.pid) + 0.5, timeout=120)
        child.send_signal(signal.SIGINT)
        stderr = reader.rest(child, timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        if child.stderr is not None:
            child.stderr.close()
    used = _children_cpu() - children_cpu - sent  # CPU seconds from SIGINT to the exit
    assert "texts of 3,000,000 and 3,000,100 characters" in first
    assert child.returncode == 130, stderr
    assert used < 3.0, f"{used:.2f} CPU s from SIGINT to the exit"
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip() and "━" not in line]
    assert lines[-1] == "evalmark score: interrupted; no output was written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.jsonl"]


def _children_cpu() -> float:
    """CPU seconds used by the reaped child processes of this process."""
    import resource  # POSIX only

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_max_chars_reports_each_long_row_and_scores_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "expected": "the cat sat", "actual": "the cat sat down"},
            {"id": "b", "expected": "é" * 101, "actual": "short"},
            {"id": "c", "expected": "hello", "actual": "x" * 150},
            {"id": "d", "expected": "é" * 100, "actual": "é" * 100},
        ],
    )
    out, summary = tmp_path / "scores.jsonl", tmp_path / "summary.json"
    code, stdout, err = run(
        capsys,
        path,
        "--metrics",
        "token_f1,levenshtein_similarity",
        "--max-chars",
        100,
        "-o",
        out,
        "--summary",
        summary,
    )
    assert code == 0
    assert stdout.splitlines()[0] == f"{path}: 4 rows, 2 over --max-chars"
    reported = [line for line in err.splitlines() if "too long" in line]
    assert len(reported) == 2
    assert "line 2 (id 'b')" in reported[0] and "expected has 101 characters" in reported[0]
    assert "line 3 (id 'c')" in reported[1] and "actual has 150 characters" in reported[1]
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["a", "b", "c", "d"]
    assert rows[1]["levenshtein_similarity"] is None and rows[2]["token_f1"] is None
    assert rows[3]["levenshtein_similarity"] == 1.0  # exactly at the cap: scored
    assert rows[0]["token_f1"] is not None
    doc = json.loads(summary.read_text("utf-8"))
    assert doc["too_long"] == [
        {"where": "line 2", "id": "b", "expected_chars": 101, "actual_chars": 5},
        {"where": "line 3", "id": "c", "expected_chars": 5, "actual_chars": 150},
    ]
    assert doc["metrics"]["levenshtein_similarity"]["nulls"] == 2


def test_without_a_cap_the_summary_has_no_too_long_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "p.jsonl", [{"expected": "a" * 500, "actual": "b"}])
    summary = tmp_path / "s.json"
    code, _, err = run(capsys, path, "--metrics", "levenshtein_similarity", "--summary", summary)
    assert code == 0 and "too long" not in err
    assert "too_long" not in json.loads(summary.read_text("utf-8"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", _core.MAX_WORKERS + 1], f"from 1 to {_core.MAX_WORKERS}"),
        (["--workers", 2**70], f"from 1 to {_core.MAX_WORKERS}"),
        (["--workers", 0], "--workers must be -1"),
        (["--max-chars", -1], "--max-chars must be a count"),
        (["--max-chars", 5, "--engine", "ray"], "--max-chars works with --engine local only"),
    ],
)
def test_bad_limits_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[Any], message: str
) -> None:
    path = _write(tmp_path / "p.jsonl", [{"expected": "a", "actual": "b"}])
    code, _, err = run(capsys, path, "--metrics", "token_f1", *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_workers_at_the_bound_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "p.jsonl", [{"expected": "a b", "actual": "a"}])
    code, out, _ = run(capsys, path, "--metrics", "token_f1", "--workers", 4)
    assert code == 0 and "1 rows" in out.splitlines()[0]


def test_the_ticker_shows_the_work_of_a_long_row_as_it_advances() -> None:
    import evalmark.metrics as em
    from evalmark._progress import NoProgress
    from evalmark.scoring._progress import WorkTicker

    seen: list[str] = []

    class Recorder(NoProgress):
        def describe(self, extra: str) -> None:
            seen.append(extra)

    before = em.work_done()
    with WorkTicker(Recorder(), expected=1.6e8, interval=0.02):
        # two texts with no symbol in common: the bound on the distance widens to the full
        # length, and the last try still skips the corners of the 100,100 · ⌈100,000 / 64⌉
        # word matrix (about 40% of it), so more than half of it is counted
        em.levenshtein_distance("ab" * 50_000, "cd" * 50_050)
    assert em.work_done() - before >= 100_000 * (100_000 // 64) // 2
    assert seen[-1] == ""  # the label alone again
    shown = [float(s.split()[2]) for s in seen[:-1]]
    assert shown, "no update while the row was scored"
    assert all("word operations done" in s and "of at most 1.6e+08" in s for s in seen[:-1])
    assert shown == sorted(shown) and shown[-1] > 0
