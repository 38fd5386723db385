"""Budget gates from recorded latency, tokens and cost: per case and in total, on a report and
in a suite file's gate."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from evalmark import Scorer
from evalmark.errors import SuiteError
from evalmark.gates import require_budget
from evalmark.gates._rules import BudgetLimit, check_budgets
from evalmark.samples._samples import Sample
from evalmark.samples._testcase import TestCase, TokenUsage
from evalmark.strategies import ExactMatch
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

RECORDED = {
    "a": (120.0, 300, "0.002"),
    "b": (950.0, 1400, "0.011"),
    "c": (400.0, 700, "0.004"),
}
SAMPLES = [Sample(name=n, parameters=[n], expected_output="ok") for n in RECORDED]


def answer(question: str) -> TestCase:
    latency, tokens, cost = RECORDED[question]
    return TestCase(
        input=question,
        actual_output="ok",
        latency_ms=latency,
        token_usage=TokenUsage(input=tokens - 100, output=100),
        cost=Decimal(cost),
    )


REPORT = Scorer().evaluate(SAMPLES, answer, ExactMatch(), name="support")


def test_budgets_within_limits_pass_and_return_the_report() -> None:
    assert require_budget(REPORT, latency_ms=1000, tokens=1500, total_cost=0.017) is REPORT


def test_a_per_case_budget_names_the_cases_over_it() -> None:
    with pytest.raises(AssertionError) as info:
        require_budget(REPORT, latency_ms=500, total_tokens=2000)
    assert str(info.value) == (
        "report 'support': over budget. Failing budgets:\n"
        "  - latency (ms) per case is 950, above the budget 500 "
        "(1 of 3 cases over budget: b (950))\n"
        "  - tokens total is 2400, above the budget 2000 (summed over 3 of 3 cases)"
    )


def test_cost_is_summed_exactly() -> None:
    # 0.002 + 0.011 + 0.004 = 0.017 exactly: a float sum could land just above it.
    (gate,) = check_budgets([REPORT], {"cost": BudgetLimit(total=0.017)})
    assert gate.passed and gate.actual == 0.017 and gate.unit == "count"
    (gate,) = check_budgets([REPORT], {"cost": BudgetLimit(total=0.0169)})
    assert not gate.passed


def test_a_budget_over_data_nobody_recorded_fails() -> None:
    plain = Scorer().evaluate(SAMPLES, lambda q: "ok", ExactMatch(), name="plain")
    with pytest.raises(AssertionError, match="no case recorded latency"):
        require_budget(plain, latency_ms=100)
    with pytest.raises(ValueError, match="finite number >= 0"):
        BudgetLimit(per_case=-1)


def write_suite(tmp_path: Path, gate: str) -> Path:
    (tmp_path / "app.py").write_text(
        "from decimal import Decimal\n"
        "from evalmark.samples._testcase import TestCase, TokenUsage\n"
        f"RECORDED = {RECORDED!r}\n"
        "def answer(q):\n"
        "    latency, tokens, cost = RECORDED[q]\n"
        "    return TestCase(input=q, actual_output='ok', latency_ms=latency,\n"
        "                    token_usage=TokenUsage(input=tokens - 100, output=100),\n"
        "                    cost=Decimal(cost))\n",
        encoding="utf-8",
    )
    (tmp_path / "samples.yaml").write_text(
        "".join(f"- {{name: {n}, parameters: [{n}], expected-output: ok}}\n" for n in RECORDED),
        encoding="utf-8",
    )
    text = (
        "samples: samples.yaml\n"
        "application: {function: app.py:answer}\n"
        "strategies: [exact-match]\n"
        "gate:\n" + textwrap.indent(textwrap.dedent(gate), "  ") + "\n"
    )
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_suite_gate_checks_its_budgets(tmp_path: Path) -> None:
    gate = """\
    pass-rate: 1.0
    budget:
      latency-ms: {per-case: 1000}
      tokens: {per-case: 1000, total: 3000}
    """
    suite = load_suite(write_suite(tmp_path, gate))
    run = run_suite(suite)
    shown = [(g.label, g.actual, g.passed) for g in run.gates]
    assert shown == [
        ("pass rate (cases)", 1.0, True),
        ("latency (ms) per case", 950.0, True),
        ("tokens per case", 1400.0, False),
        ("tokens total", 2400.0, True),
    ]
    assert run.gates[2].detail == "1 of 3 cases over budget: b (1400)"
    assert not run.passed


def test_bad_budgets_are_reported_with_their_key(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"gate\.budget\.cost\.total: expected a number >= 0"):
        load_suite(write_suite(tmp_path, "budget: {cost: {total: -1}}"))
    with pytest.raises(
        SuiteError,
        match=r"gate\.budget\.latency: unknown key 'latency' in the budget; did you mean "
        r"'latency-ms'\?",
    ):
        load_suite(write_suite(tmp_path, "budget: {latency: {total: 1}}"))
