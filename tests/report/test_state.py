"""Value equality of reports and suites: equal exactly when their JSON documents are equal
(metadata and gate results included), never hashable, and kept through pickling."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_report_properties import TEXT, reports

from budget import examples
from evalmark.gates import pass_rate_gate
from evalmark.report import GateResult, Report, SuiteReport, render_report
from evalmark.results._results import EvaluationResult, ResultColumn


def document_of(report: Report) -> object:
    """The report's JSON document, as the JSON text holds it."""
    return json.loads(render_report(report, "json"))


def report_of(
    scores: list[float], *, name: str = "r", metadata: dict[str, Any] | None = None
) -> Report:
    """A report of one check over one sample per score (a score of 0.5 or more passes)."""
    results = [EvaluationResult(s >= 0.5, s, "why") for s in scores]
    return Report(
        name=name,
        sample_names=[f"s{i}" for i in range(len(scores))],
        sample_tags=[("t",)] * len(scores),
        columns={"check": ResultColumn.from_results(results)},
        outputs=["out"] * len(scores),
        metadata=metadata,
    )


def test_reports_built_alike_are_equal_and_differ_in_any_part() -> None:
    base = report_of([0.2, 0.9], metadata={"run": 1})
    assert base == report_of([0.2, 0.9], metadata={"run": 1})
    assert base != report_of([0.2, 0.8], metadata={"run": 1})  # one score
    assert base != report_of([0.2, 0.9], metadata={"run": 2})  # metadata
    assert base != base.with_name("other")
    assert base != base.with_gates([pass_rate_gate(base, 0.5)])  # a gate result
    assert base.with_gates([pass_rate_gate(base, 0.5)]) != base.with_gates(
        [pass_rate_gate(base, 0.4)]
    )
    assert base != report_of([0.2, 0.9, 0.9], metadata={"run": 1})


def test_a_report_is_not_hashable_and_not_equal_to_other_things() -> None:
    report = report_of([1.0])
    with pytest.raises(TypeError):
        hash(report)
    with pytest.raises(TypeError):
        hash(SuiteReport([report]))
    assert report != render_report(report, "json")
    assert report != SuiteReport([report])


def test_floats_compare_as_json_holds_them() -> None:
    # 0.0 and -0.0 are the same number; a NaN in metadata is written as "nan" and equals one.
    assert report_of([0.0]) == report_of([-0.0])
    nan = float("nan")
    assert report_of([1.0], metadata={"x": nan}) == report_of([1.0], metadata={"x": nan})
    assert report_of([1.0], metadata={"x": (1, 2)}) == report_of([1.0], metadata={"x": [1, 2]})
    assert report_of([1.0], metadata={"x": 0.1 + 0.2}) != report_of([1.0], metadata={"x": 0.3})


def test_a_lone_surrogate_equals_the_escape_it_is_written_as() -> None:
    report = report_of([1.0], name="a\ud800")
    again = Report.from_json(render_report(report, "json"))
    assert again.name == "a\\ud800"
    assert again == report
    assert SuiteReport([again], name="s\udfff") == SuiteReport([report], name="s\\udfff")


def test_pickling_keeps_an_equal_report() -> None:
    report = report_of([0.1, 0.7], metadata={"k": "v"})
    gated = report.with_gates([pass_rate_gate(report, 0.5)])
    assert pickle.loads(pickle.dumps(gated)) == gated


def test_suites_are_equal_when_their_reports_and_names_are() -> None:
    one, two = report_of([0.9], name="a"), report_of([0.1], name="b")
    assert SuiteReport([one, two]) == SuiteReport([report_of([0.9], name="a"), two])
    assert SuiteReport([one, two]) != SuiteReport([two, one])  # order is part of the document
    assert SuiteReport([one, two]) != SuiteReport([one, two], name="other")
    assert SuiteReport([one, two]) != SuiteReport([one])


@settings(max_examples=examples(40), deadline=None)
@given(reports(), reports())
def test_two_reports_are_equal_exactly_when_their_documents_are(
    first: Report, second: Report
) -> None:
    assert (first == second) == (document_of(first) == document_of(second))
    assert first == first.with_name(first.name)


@settings(max_examples=examples(40), deadline=None)
@given(reports(), TEXT, st.booleans())
def test_a_changed_name_metadata_or_gate_makes_a_report_unequal(
    report: Report, text: str, passed: bool
) -> None:
    assert report == Report.from_json(render_report(report, "json"))
    key = "\x00key"  # the generator's metadata keys never hold NUL: a new key
    assert report.with_metadata(**{key: text}) != report
    extra = GateResult("extra gate", 0.5, 0.5, passed, text)
    assert report.with_gates([*report.gates, extra]) != report
    assert report.with_name(report.name + "!") != report
