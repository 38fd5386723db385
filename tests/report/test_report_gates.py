"""``Report.gates``: the gate conditions checked against a report, carried on a new report made by
``with_gates`` (pytest's ``min_pass_rate``, the suite runner) and through the JSON document (the
``"gate"`` key). A report is a frozen value: a gate never changes it."""

from __future__ import annotations

import json
import pickle

import pytest

from evalmark.errors import ReportFormatError
from evalmark.gates import pass_rate_gate, require_pass_rate
from evalmark.report import GateResult, Report, render_report
from evalmark.results._results import EvaluationResult, ResultColumn


def report_of(passed: int, total: int) -> Report:
    """``total`` samples under one check, the first ``passed`` passing."""
    results = [
        EvaluationResult.passing(1.0) if i < passed else EvaluationResult.failing(0.0, "wrong")
        for i in range(total)
    ]
    return Report(
        name="r",
        sample_names=[f"s{i}" for i in range(total)],
        sample_tags=[("t",)] * total,
        columns={"check": ResultColumn.from_results(results)},
    )


def test_a_report_no_gate_touched_has_no_gates() -> None:
    report = report_of(3, 4)
    assert report.gates == ()
    assert json.loads(render_report(report, "json"))["gate"] == []


def gated(report: Report, *minimums: float) -> Report:
    """``report`` carrying the pass-rate condition of each of ``minimums``."""
    return report.with_gates([pass_rate_gate(report, minimum) for minimum in minimums])


def test_a_gate_leaves_the_report_unchanged_and_returns_its_condition() -> None:
    report = report_of(3, 4)
    held = require_pass_rate(report, 0.5)
    with pytest.raises(AssertionError):
        require_pass_rate(report, 0.9)
    assert report.gates == ()
    assert (held.required, held.actual, held.passed, held.unit) == (0.5, 0.75, True, "rate")
    assert pass_rate_gate(report, 0.9).passed is False


def test_a_report_is_frozen_and_has_no_mutating_gate_method() -> None:
    report = report_of(3, 4)
    assert not hasattr(report, "record_gate")
    with pytest.raises(AttributeError, match="immutable"):
        report._gates = ()  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        report.name = "other"  # type: ignore[misc]


def test_a_suite_of_reports_is_frozen_too() -> None:
    from evalmark.report import SuiteReport

    suite = SuiteReport([report_of(1, 2)], name="s")
    with pytest.raises(AttributeError, match="immutable"):
        suite.name = "other"  # type: ignore[misc]
    assert suite.name == "s" and len(suite.reports) == 1


def test_with_gates_makes_a_new_report_keeping_each_condition_once_in_order() -> None:
    report = report_of(3, 4)
    first, second = pass_rate_gate(report, 0.5), pass_rate_gate(report, 0.9)
    carried = report.with_gates([first, second, first])
    assert carried is not report and report.gates == ()
    assert carried.gates == (first, second)
    assert (first.required, first.actual, first.passed, first.unit) == (0.5, 0.75, True, "rate")
    assert (second.required, second.actual, second.passed) == (0.9, 0.75, False)
    assert render_report(carried, "markdown") != render_report(report, "markdown")


def test_gates_survive_json_pickle_and_renaming() -> None:
    report = gated(report_of(1, 2), 0.9)
    back = Report.from_json(render_report(report, "json"))
    assert back.gates == report.gates
    assert render_report(back, "json") == render_report(report, "json")
    assert pickle.loads(pickle.dumps(report)).gates == report.gates
    assert report.with_name("other").gates == report.gates
    assert report.with_gates(()).gates == () and len(report.gates) == 1


def test_the_gate_key_is_checked_on_reading() -> None:
    document = json.loads(render_report(report_of(1, 2), "json"))
    document["gate"] = [{"label": "pass rate", "actual": "high", "required": 0.9, "passed": True}]
    with pytest.raises(ReportFormatError, match=r"gate\[0\].*actual must be a number"):
        Report.from_dict(document, source="r.json")
    document["gate"] = [{"label": "pass rate"}]
    with pytest.raises(ReportFormatError, match=r"gate\[0\].*missing the key"):
        Report.from_dict(document, source="r.json")


def test_gate_result_round_trips_through_its_dict() -> None:
    gate = GateResult("errors", 0, 2, False, "errored: a, b", unit="count")
    assert GateResult.from_dict(gate.to_dict()) == gate
    assert list(gate.to_dict()) == ["label", "actual", "required", "unit", "passed", "detail"]


def test_a_suite_shows_a_gate_shared_by_its_reports_once() -> None:
    from evalmark.gates._rules import check_cases
    from evalmark.report import SuiteReport

    first, second = report_of(2, 2), report_of(1, 2).with_name("other")
    gates = check_cases([first, second], pass_rate=0.9)
    first, second = first.with_gates(gates), second.with_gates(gates)
    markdown = render_report(SuiteReport([first, second]), "markdown")
    assert markdown.count("| every report | pass rate (cases) | 75.0% | >= 90% | FAILED |") == 1
    assert "| r | 100.0% | 2 of 2 | 0 | 0 | FAILED |" in markdown  # the run's gate failed
    document = json.loads(render_report(SuiteReport([first, second]), "json"))
    assert [len(r["gate"]) for r in document["reports"]] == [1, 1]


def test_junit_carries_each_gate_condition_as_a_testcase() -> None:
    import xml.etree.ElementTree as ET

    report = gated(report_of(3, 4), 0.5, 0.9)
    root = ET.fromstring(render_report(report, "junit"))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("6", "2")  # 4 checks + 2 conditions
    gates = [case for case in suite.iter("testcase") if case.get("classname") == "r.gate"]
    assert [case.find("failure") is None for case in gates] == [True, False]
    failure = gates[1].find("failure")
    assert failure is not None
    assert failure.get("message") == "pass rate (cases): 75.0%, required at least 90%"
    assert failure.text == "3 of 4 cases pass every check"
