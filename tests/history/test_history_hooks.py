"""Runs append to the history: ``evalmark run`` and a pytest session, and a broken history
never changes their verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.history import open_history
from evalmark.history._queries import list_runs

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


def test_evalmark_run_appends_each_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.sqlite"
    for build, code in (("healthy", 0), ("regressed", 1)):
        assert (
            main(["run", str(SUPPORT), "--build", build, "-q", "--no-report", "--history", str(db)])
            == code
        )
    with open_history(db) as store:
        runs = list_runs(store)
        assert [(r.build, r.gate_passed, r.cases_passed, r.cases) for r in runs] == [
            ("regressed", False, 9, 12),
            ("healthy", True, 12, 12),
        ]
        assert runs[0].inputs_digest != runs[1].inputs_digest  # different cassettes
        assert len(store.results_of(runs[0].id)) == 12 * 3
    capsys.readouterr()


def test_a_broken_history_is_a_warning_not_a_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "h.sqlite"
    bad.write_bytes(b"not sqlite" * 500)
    assert (
        main(
            ["run", str(SUPPORT), "--build", "healthy", "-q", "--no-report", "--history", str(bad)]
        )
        == 0
    )
    assert "warning: history not written" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                str(SUPPORT),
                "--build",
                "regressed",
                "-q",
                "--no-report",
                "--history",
                str(bad),
            ]
        )
        == 1
    )


def test_no_history_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "h.sqlite"
    monkeypatch.setenv("EVALMARK_HISTORY", str(db))
    assert main(["run", str(SUPPORT), "-q", "--no-report", "--no-history"]) == 0
    assert not db.exists()
    assert main(["run", str(SUPPORT), "-q", "--no-report"]) == 0
    assert db.exists()
    capsys.readouterr()


pytest_plugins = ["pytester"]


def test_a_pytest_session_appends_its_reports(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "session.sqlite"
    pytester.makepyfile(
        f"""
        from evalmark.pytest import evaluation_test
        from evalmark.strategies import ContainsFacts
        from evalmark.suite import load_application

        answer = load_application({str(SUPPORT)!r}, "healthy")

        @evaluation_test(samples={str(SUPPORT / "samples.yaml")!r}, function=answer,
                         strategy=ContainsFacts())
        def test_support():
            pass
        """
    )
    monkeypatch.setenv("EVALMARK_HISTORY", str(db))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=240)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*history: run 1*"])
    with open_history(db) as store:
        (run,) = list_runs(store)
        assert run.source == "pytest" and run.cases == 12
