"""pass@k and pass^k over repeated runs of the application: the estimators, the scorer, the
suite file and the gate."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest

from evalmark import Evaluation, Scorer
from evalmark.engine._repeats import pass_at_k, pass_hat_k, repeat_summary
from evalmark.errors import SuiteError
from evalmark.gates._rules import check_repeats
from evalmark.models._context import current_call
from evalmark.report import render_report
from evalmark.samples._samples import Sample
from evalmark.strategies import ExactMatch
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

SAMPLES = [Sample(name=n, parameters=[n], expected_output="yes") for n in ("a", "b", "c")]
# How many of 5 runs answer "yes", per sample.
GOOD_RUNS = {"a": 5, "b": 3, "c": 0}


def flaky(question: str) -> str:
    """Answers "yes" in the first GOOD_RUNS[question] runs (the run index says which run)."""
    context = current_call()
    assert context is not None and context.check == "application"
    return "yes" if context.repeat is not None and context.repeat < GOOD_RUNS[question] else "no"


def test_the_estimators_match_the_closed_forms() -> None:
    # n = 5 runs, c = 3 passed, k = 2:
    # pass@2 = 1 - C(2,2)/C(5,2) = 0.9; pass^2 = C(3,2)/C(5,2) = 0.3
    assert pass_at_k(5, 3, 2) == pytest.approx(0.9)
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)
    # k = n: some run passed / every run passed.
    assert (pass_at_k(5, 1, 5), pass_hat_k(5, 1, 5)) == (1.0, 0.0)
    assert (pass_at_k(5, 0, 5), pass_hat_k(5, 5, 5)) == (0.0, 1.0)
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(3, 1, 4)


def test_a_scorer_with_repeats_calls_the_application_k_times_per_sample() -> None:
    calls: Counter[str] = Counter()

    def counted(question: str) -> str:
        calls[question] += 1
        return flaky(question)

    report = Scorer(repeats=5, k=2).evaluate(SAMPLES, counted, ExactMatch())
    assert calls == Counter({"a": 5, "b": 5, "c": 5})
    repeats = report.metadata["repeats"]
    assert (repeats["n"], repeats["k"]) == (5, 2)
    assert repeats["cases"]["b"] == {"passes": 3, "pass_at_k": 0.9, "pass_hat_k": 0.3}
    assert repeats["pass_at_k"] == pytest.approx((1.0 + 0.9 + 0.0) / 3)
    assert repeats["pass_hat_k"] == pytest.approx((1.0 + 0.3 + 0.0) / 3)
    # The report's results are the first run's; the figures survive the JSON form.
    assert [row.passed for row in report.rows()] == [True, True, False]
    assert type(report).from_json(render_report(report, "json")).metadata["repeats"] == repeats


def test_evaluation_repeats_default_k_is_the_number_of_runs() -> None:
    report = Evaluation(SAMPLES).evaluate(flaky).using(ExactMatch()).repeats(5).run()
    cases = report.metadata["repeats"]["cases"]
    assert {n: (c["pass_at_k"], c["pass_hat_k"]) for n, c in cases.items()} == {
        "a": (1.0, 1.0),
        "b": (1.0, 0.0),
        "c": (0.0, 0.0),
    }
    gates = check_repeats([report], pass_at_k=0.6, pass_hat_k=0.5)
    assert [(g.label, g.passed) for g in gates] == [("pass@5", True), ("pass^5", False)]
    assert gates[1].detail == "mean over 3 cases; below 1: b, c"
    with pytest.raises(ValueError, match="k must be a whole number from 1 to repeats"):
        Scorer(repeats=2, k=3)


def test_a_gate_on_repeats_fails_a_run_without_them() -> None:
    report = Scorer().evaluate(SAMPLES, lambda q: "yes", ExactMatch())
    (gate,) = check_repeats([report], pass_hat_k=0.5)
    assert not gate.passed and "no repeats" in gate.detail
    assert repeat_summary([report])["pass_hat_k"] == 1.0


APP = """\
from evalmark.models._context import current_call

GOOD = {"a": 5, "b": 3, "c": 0}


def answer(question):
    repeat = current_call().repeat
    return "yes" if repeat < GOOD[question] else "no"
"""


def write_suite(tmp_path: Path, repeats: str, gate: str) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(
        "".join(f"- {{name: {n}, parameters: [{n}], expected-output: 'yes'}}\n" for n in "abc"),
        encoding="utf-8",
    )
    suite = f"""\
        name: flaky
        samples: samples.yaml
        application: {{function: app.py:answer}}
        strategies: [exact-match]
        {repeats}
        gate: {gate}
        """
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(suite), encoding="utf-8")
    return path


def test_a_suite_file_names_its_repeats_and_gates_on_pass_hat_k(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path, "repeats: {runs: 5, k: 2}", "{pass-hat-k: 0.4}"))
    assert (suite.repeats, suite.repeat_k, suite.gate.pass_hat_k) == (5, 2, 0.4)
    run = run_suite(suite)
    (gate,) = run.gates
    assert gate.label == "pass^2" and gate.actual == pytest.approx(1.3 / 3)
    assert gate.passed
    suite = load_suite(write_suite(tmp_path, "repeats: 5", "{pass-at-k: 0.9}"))
    assert not run_suite(suite).passed  # c never passes: pass@5 = 2/3


def test_bad_repeats_are_reported_with_their_key(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="repeats: expected a whole number of runs"):
        load_suite(write_suite(tmp_path, "repeats: 0", "{pass-rate: 0.5}"))
    with pytest.raises(SuiteError, match=r"repeats\.k: expected a whole number from 1 to runs"):
        load_suite(write_suite(tmp_path, "repeats: {runs: 2, k: 3}", "{pass-rate: 0.5}"))


def test_the_markdown_report_shows_pass_at_k_and_pass_hat_k_per_case() -> None:
    report = Scorer(repeats=5, k=2).evaluate(SAMPLES, flaky, ExactMatch())
    text = render_report(report, "markdown")
    assert "## Repeated runs: pass@2 and pass^2" in text
    assert "Overall: pass@2 **0.633**, pass^2 **0.433**." in text
    assert "| b | 3 of 5 | 0.900 | 0.300 |" in text
    assert "Repeated runs" not in render_report(
        Scorer().evaluate(SAMPLES, lambda q: "yes", ExactMatch()), "markdown"
    )


def test_repeats_give_the_same_report_at_any_concurrency() -> None:
    async def aflaky(question: str) -> str:
        return flaky(question)

    one = Scorer(repeats=5, k=2).evaluate(SAMPLES, flaky, ExactMatch())
    threads = Scorer(concurrency=4, repeats=5, k=2).evaluate(SAMPLES, flaky, ExactMatch())
    tasks = Scorer(concurrency=4, repeats=5, k=2).evaluate(SAMPLES, aflaky, ExactMatch())
    assert render_report(one, "json") == render_report(threads, "json")
    assert tasks.metadata["repeats"] == one.metadata["repeats"]
