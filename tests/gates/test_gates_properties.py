"""Properties of the gates over generated reports: the raising and the recording form of the
pass-rate gate agree, both are monotone in the minimum, a tag gate reads the tagged cases only,
gates written into a report read back from every JSON form, the no-drop gate is monotone in the
drop it allows, and the assertion chain agrees with the report's own counts.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.gates import assert_that, pass_rate_gate, require_no_drop, require_pass_rate
from evalmark.report import GateResult, Report, compare, render_report
from evalmark.results._results import ResultColumn

NAMES = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=1, max_size=10)
TAGS = st.lists(st.sampled_from(["red", "blue"]), max_size=2, unique=True).map(tuple)
MINIMA = st.floats(0.0, 1.0)


@st.composite
def reports(draw: st.DrawFn, names: list[str] | None = None) -> Report:
    names = names or sorted(set(draw(NAMES)))
    checks = draw(st.lists(st.sampled_from(["c1", "c2", "c3"]), min_size=1, unique=True))
    columns = {
        c: ResultColumn.from_results(
            [
                EvaluationResult(p, 1.0 if p else 0.0, "")
                for p in draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
            ]
        )
        for c in checks
    }
    return Report(
        name="r",
        sample_names=names,
        sample_tags=[draw(TAGS) for _ in names],
        columns=columns,
    )


def raises(minimum: float, report: Report, **where: str) -> bool:
    try:
        require_pass_rate(report, minimum, **where)
    except AssertionError:
        return True
    return False


@settings(max_examples=examples(60), deadline=None)
@given(reports(), MINIMA)
def test_the_raising_and_recording_gates_agree(report: Report, minimum: float) -> None:
    gate = pass_rate_gate(report, minimum)
    assert gate.passed == (not raises(minimum, report))
    assert gate.actual == pytest.approx(report.pass_rate)
    assert gate.required == minimum


@settings(max_examples=examples(60), deadline=None)
@given(reports(), MINIMA, MINIMA)
def test_a_higher_minimum_never_turns_a_failing_gate_into_a_passing_one(
    report: Report, m1: float, m2: float
) -> None:
    low, high = sorted((m1, m2))
    assert pass_rate_gate(report, low).passed or not pass_rate_gate(report, high).passed
    assert raises(high, report) or not raises(low, report)


@settings(max_examples=examples(60), deadline=None)
@given(reports(), st.sampled_from(["red", "blue"]))
def test_a_tag_gate_reads_the_tagged_cases_only(report: Report, tag: str) -> None:
    if tag not in report.tags:
        return
    mask = report.tag_mask(tag)
    rows = list(report.rows())
    tagged = [row for row, keep in zip(rows, mask, strict=True) if keep]
    clean = sum(all(r.passed for r in row.results.values()) for row in tagged)
    gate = pass_rate_gate(report, 0.5, tag=tag)
    assert gate.actual == pytest.approx(clean / len(tagged))


@settings(max_examples=examples(40), deadline=None)
@given(reports(), st.lists(MINIMA, min_size=1, max_size=3))
def test_gates_written_into_a_report_read_back(report: Report, minima: list[float]) -> None:
    gated = report.with_gates([pass_rate_gate(report, m) for m in minima])
    again = Report.from_json(render_report(gated, "json"))
    assert again == gated
    assert again.gates == gated.gates
    for gate in gated.gates:
        assert GateResult.from_dict(gate.to_dict()) == gate


@settings(max_examples=examples(40), deadline=None)
@given(reports(), MINIMA)
def test_the_assertion_chain_agrees_with_the_pass_rate(report: Report, minimum: float) -> None:
    try:
        assert_that(report).has_pass_rate_greater_than(minimum)
        held = True
    except AssertionError:
        held = False
    assert held == (report.pass_rate > minimum)
    assert_that(report).has_passed_count(report.passed).has_failed_count(report.failed)
    assert_that(report).has_evaluation_count(report.evaluations)


@settings(max_examples=examples(40), deadline=None)
@given(st.data(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_the_no_drop_gate_is_monotone_in_the_drop_it_allows(
    data: st.DataObject, d1: float, d2: float
) -> None:
    names = sorted(set(data.draw(NAMES)))
    before = data.draw(reports(names))
    after = data.draw(reports(names))
    comparison = compare(after, before)
    small, large = sorted((d1, d2))

    def holds(max_drop: float) -> bool:
        try:
            require_no_drop(comparison, max_drop)
        except AssertionError:
            return False
        return True

    assert holds(large) or not holds(small)
    assert holds(1.0)


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_a_report_never_drops_against_itself(report: Report) -> None:
    require_no_drop(compare(report, report), 0.0, fail_on_vanished=True)
