"""Wording: one helper counts nouns (no "1 reports"), a successful report has no empty
"0 failing" section, and the gate's figures read the same in every output."""

from __future__ import annotations

import pytest

from evalmark import Sample, Scorer
from evalmark.gates import pass_rate_gate, require_pass_rate
from evalmark.gates._rules import GateResult
from evalmark.report import Report, SuiteReport, render_report
from evalmark.report._wording import gate_cells, gate_relation, plural
from evalmark.strategies import ExactMatch


@pytest.mark.parametrize(
    ("count", "one", "many", "said"),
    [
        (0, "report", None, "0 reports"),
        (1, "report", None, "1 report"),
        (2, "report", None, "2 reports"),
        (1, "entry", "entries", "1 entry"),
        (3, "entry", "entries", "3 entries"),
        (1, "failing case", None, "1 failing case"),
    ],
)
def test_plural(count: int, one: str, many: str | None, said: str) -> None:
    assert plural(count, one, many) == said


def test_gate_cells_state_measure_requirement_and_verdict() -> None:
    held = GateResult("pass rate (cases)", 0.8, 0.9, True)
    missed = GateResult("pass rate (cases)", 0.9, 0.75, False)
    errors = GateResult("errors", 0, 2, False, unit="count")
    assert gate_cells(held) == ("90.0%", ">= 80%", "passed")
    assert gate_cells(missed) == ("75.0%", ">= 90%", "FAILED")
    assert gate_relation(missed) == "< 90%"
    assert gate_cells(errors) == ("2", "<= 0", "FAILED")
    assert gate_relation(errors) == "> 0"


def one_sample_report(answer: str, name: str) -> Report:
    sample = Sample(name="only", parameters=["q"], expected_output="right")
    return Scorer().evaluate([sample], lambda q: answer, ExactMatch(), name=name)


def test_a_passing_suite_has_no_empty_failing_section_and_counts_in_the_singular() -> None:
    report = one_sample_report("right", "ok")
    markdown = render_report(SuiteReport([report], name="s"), "markdown")
    assert "0 failing" not in markdown and "1 reports" not in markdown
    assert "## Failing cases: none" in markdown
    assert "1 of 1 case passed every check (0 failed, 0 errors); 1 of 1 check" in markdown
    assert "1 report." in markdown
    single = render_report(report, "markdown")
    assert "## Failures: none" in single and "0 checks" not in single


def test_a_failing_report_counts_one_failing_case_in_the_singular() -> None:
    report = one_sample_report("wrong", "bad")
    markdown = render_report(SuiteReport([report], name="s"), "markdown")
    assert "## bad: 1 failing case\n" in markdown
    assert "## Failures: 1 check in 1 case" in render_report(report, "markdown")
    with pytest.raises(AssertionError, match=r"\(0 of 1 case passed every check, 1 failed, 0 "):
        require_pass_rate(report, 1.0)


def test_markdown_and_json_show_the_gate_per_condition() -> None:
    report = one_sample_report("wrong", "bad")
    gate = pass_rate_gate(report, 0.5, strategy="ExactMatch")
    report = report.with_gates([gate])
    markdown = render_report(report, "markdown")
    assert "## Gate\n\n**Gate FAILED**" in markdown
    assert (
        "| pass rate (cases) for strategy 'ExactMatch' | 0.0% | >= 50% | FAILED | "
        "0 of 1 case pass every check |"
    ) in markdown
