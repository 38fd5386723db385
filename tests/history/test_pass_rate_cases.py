"""The history's pass rate is the report's: the share of cases whose every check passed, named
"pass rate (cases)" by ``history ls|show|trend|diff`` and the dashboard."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from history_builders import make_run

from evalmark import Sample, Scorer
from evalmark.cli import main
from evalmark.history import CaseResult, open_history
from evalmark.history._from_report import results_from_reports
from evalmark.history._queries import case_verdicts, run_summary, trend
from evalmark.strategies import Contains, ExactMatch

# Case "a" fails one of its two checks, "b" passes both: checks 3/4, cases 1/2.
HALF = [("a", "facts", True, 1.0), ("a", "f1", False, 0.2), ("b", "facts", True, 1.0)]
HALF += [("b", "f1", True, 0.9)]


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_trend_counts_cases_not_checks(db: Path) -> None:
    with open_history(db) as store:
        store.append(make_run(HALF))
        (point,) = trend(store)
        assert (point.evaluations, point.cases, point.cases_passed) == (4, 2, 1)
        assert point.pass_rate == 0.5  # checks would say 0.75
        assert point.mean_score == pytest.approx((1.0 + 0.2 + 1.0 + 0.9) / 4)
        (facts,) = trend(store, metric="facts")
        assert (facts.cases, facts.pass_rate) == (2, 1.0)
        assert run_summary(store, 1).pass_rate == point.pass_rate


def test_an_errored_result_never_passes_its_case(db: Path) -> None:
    passed_but_errored = CaseResult("a", "judge", True, 1.0, "TimeoutError: slow", "", ())
    run = make_run([("b", "judge", True, 1.0)])
    run = replace(run, results=(*run.results, passed_but_errored))
    with open_history(db) as store:
        store.append(run)
        assert trend(store)[0].pass_rate == 0.5
        assert run_summary(store, 1).cases_passed == 1
        assert case_verdicts(store, 1) == {"b": True, "a": False}


def test_trend_agrees_with_the_report_it_was_recorded_from(db: Path) -> None:
    samples = [
        Sample(name=f"s{i}", parameters=[f"q{i}"], expected_output=f"a{i}", tags=("t",) * (i % 2))
        for i in range(6)
    ]
    answers = {"q0": "a0", "q1": "a1 and more", "q2": "x", "q3": "a3", "q4": "a4!", "q5": "a5"}
    report = Scorer().evaluate(samples, answers.__getitem__, ExactMatch(), Contains())
    run = make_run([])
    run = replace(run, results=tuple(results_from_reports([report])))
    with open_history(db) as store:
        store.append(run)
        (point,) = trend(store)
        assert point.pass_rate == pytest.approx(report.pass_rate)
        assert point.pass_rate != pytest.approx(report.summary.passed / report.summary.evaluations)
        (tagged,) = trend(store, tag="t")
        assert tagged.pass_rate == pytest.approx(report.cases(tag="t").pass_rate)


def test_a_database_written_before_the_change_reads_by_cases(db: Path) -> None:
    with open_history(db) as store:
        store.append(make_run(HALF))
    # what an older evalmark left: the same tables and rows, nothing derived stored
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert stored == 4 and "cases" not in tables
    with open_history(db) as store:
        assert trend(store)[0].pass_rate == 0.5


def test_the_cli_names_the_case_pass_rate(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with open_history(db) as store:
        store.append(make_run(HALF))
        store.append(make_run([(c, k, True, 1.0) for c, k, _, _ in HALF]))
    where = ("history", "--history", str(db))
    trend_out = _cli(capsys, *where, "trend")
    header, _, first, second = trend_out.splitlines()[1:5]
    assert "pass rate (cases)" in header and "cases" in header.split()
    assert "1/2" in first and "50.0%" in first and "75.0%" not in first
    assert "2/2" in second and "100.0%" in second
    assert "pass rate (cases)" in _cli(capsys, *where, "ls").splitlines()[0]
    show = _cli(capsys, *where, "show", "1")
    assert "pass rate (cases): 50.0% (1 of 2 cases pass every check)" in show
    diff = _cli(capsys, *where, "diff", "1", "2").splitlines()
    assert diff[0] == "pass rate (cases): run 1 50.0% (1/2) -> run 2 100.0% (2/2)"
    assert diff[1:3] == ["cases: 0 regressed, 1 fixed", "  fixed: a"]
    assert diff[3] == "checks: 1 fix"


def test_the_dashboard_labels_its_rate_charts_cases(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open_history(db) as store:
        store.append(make_run(HALF))
    _cli(capsys, "history", "--history", str(db), "html", "-o", str(tmp_path / "site"))
    page = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert 'chart("pass rate (cases)"' in page and 'chart("pass rate (cases), tag "' in page
    assert 'chart("pass rate"' not in page
