"""``evalmark run SUITE --test-cases FILE``: the suite's checks and gate applied to recorded
test cases (issue: seed parity, second round, the AgentTestCase model)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from evalmark import Scorer, TestCase
from evalmark.cli import main
from evalmark.strategies import ExactMatch

APP = "def answer(question):\n    raise AssertionError('the application must not be called')\n"


def write_suite(tmp_path: Path, pass_rate: float) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(
        "- {name: capital, parameters: [capital of France?], expected-output: Paris}\n"
        "- {name: sum, parameters: [2 + 2?], expected-output: '4'}\n",
        encoding="utf-8",
    )
    suite = f"""\
        name: recorded
        samples: samples.yaml
        application: {{function: app.py:answer}}
        strategies: [exact-match]
        gate: {{pass-rate: {pass_rate}}}
        report: {{dir: {(tmp_path / "out").as_posix()}, formats: [json]}}
        """
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(suite), encoding="utf-8")
    return path


def write_cases(tmp_path: Path) -> Path:
    rows = [
        {"name": "capital", "input": "capital of France?", "actual-output": "Paris"},
        {"name": "sum", "input": "2 + 2?", "actual-output": "5"},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(("pass_rate", "code"), [(0.5, 0), (0.9, 1)])
def test_the_suite_gate_applies_to_recorded_test_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pass_rate: float, code: int
) -> None:
    suite = write_suite(tmp_path, pass_rate)
    cases = write_cases(tmp_path)
    assert main(["run", str(suite), "--test-cases", str(cases), "--no-history"]) == code
    report = json.loads((tmp_path / "out" / "recorded.json").read_text(encoding="utf-8"))
    assert "test-cases" in json.dumps(report)
    out = capsys.readouterr().out
    assert "capital" in out and "sum" in out


def test_a_missing_test_case_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write_suite(tmp_path, 0.5)
    assert main(["run", str(suite), "--test-cases", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "nope.jsonl" in err and "Traceback" not in err


def test_the_scorer_scores_recorded_test_cases_too() -> None:
    cases = [TestCase("capital of France?", "Paris", expected_output="Paris", name="capital")]
    report = Scorer().evaluate_test_cases(cases, ExactMatch())
    assert report.pass_rate == 1.0
