"""``evalmark history``: every action on a small history, and the errors a person meets."""

from __future__ import annotations

from pathlib import Path

import pytest
from history_builders import make_run

from evalmark.cli import main
from evalmark.history import open_history


@pytest.fixture
def history(db: Path) -> Path:
    with open_history(db) as store:
        for passed in (True, False, True):
            store.append(make_run([("a", "judge", passed, float(passed)), ("b", "f1", True, 0.9)]))
    return db


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ls_show_trend(history: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "history", "--history", str(history), "ls")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["run", "started", "suite"]
    assert [line.split()[0] for line in lines[2:]] == ["3", "2", "1"]
    code, out, _ = run(capsys, "history", "--history", str(history), "show", "2")
    assert code == 0 and "1 of 2 cases pass every check" in out and "FAIL" in out
    code, out, _ = run(capsys, "history", "--history", str(history), "trend", "--metric", "judge")
    assert code == 0 and "mean score 1.000 -> 1.000 over 3 runs" in out


def test_diff_and_flaky_with_rates(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "history", "--history", str(history), "diff", "1", "2")
    assert code == 0 and out.startswith("pass rate (cases): run 1 100.0% (2/2) -> run 2 50.0%")
    assert "cases: 1 regressed, 0 fixed" in out and "checks: 1 regression" in out
    assert "judge" in out
    rates = tmp_path / "rates.json"
    code, out, _ = run(capsys, "history", "--history", str(history), "flaky", "--rates", str(rates))
    assert code == 0
    assert "a" in out and "2/3" in out and "33.3%" in out
    from evalmark.noise._rates import read_rates

    measured = read_rates(rates)
    assert (measured.false_fail.errors, measured.false_fail.trials) == (1, 6)
    assert (measured.false_pass.errors, measured.false_pass.trials) == (0, 0)
    assert "history flaky" in measured.source


def test_html_writes_one_self_contained_page(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(
        capsys, "history", "--history", str(history), "html", "-o", str(tmp_path / "site")
    )
    assert code == 0
    page = (tmp_path / "site" / "index.html").read_text()
    assert "<script src" not in page and "http://" not in page.replace("http://www.w3.org", "")
    assert '"runs":[' in page


def test_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.sqlite"
    code, _, err = run(capsys, "history", "--history", str(missing), "ls")
    assert code == 2 and "no history at" in err and "Traceback" not in err
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 1000)
    code, _, err = run(capsys, "history", "--history", str(bad), "ls")
    assert code == 2 and "move it aside" in err
    good = tmp_path / "good.sqlite"
    open_history(good).close()
    code, _, err = run(capsys, "history", "--history", str(good), "show", "7")
    assert code == 2 and "no run 7" in err
