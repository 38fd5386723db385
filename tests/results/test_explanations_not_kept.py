"""A report's renderers read the explanations of a column without keeping them on the column:
a rendered report holds no more text than before it was rendered, and what it shows is what
``column[i].explanation`` says."""

from __future__ import annotations

from evalmark import Sample, Scorer
from evalmark.report import render_report
from evalmark.strategies import Contains, ContainsFacts, ExactMatch


def _report():  # type: ignore[no-untyped-def]
    samples = [
        Sample(
            name=f"case {i}",
            parameters=[i],
            expected_output=f"answer {i} is blue",
            expected_facts=("blue", str(i)),
        )
        for i in range(120)
    ]
    outputs = [f"answer {i} is {'blue' if i % 3 else 'red'}" for i in range(120)]
    return Scorer().evaluate_outputs(
        samples, outputs, ExactMatch(), Contains(), ContainsFacts(), name="kept"
    )


def test_rendering_keeps_no_explanation_on_the_columns() -> None:
    report = _report()
    for format in ("markdown", "html"):
        render_report(report, format)
    for name in report.strategies:
        assert report.column(name)._texts == {}


def test_explanations_read_without_keeping_equal_the_rows() -> None:
    report = _report()
    column = report.column("ExactMatch")
    rows = [5, 3, 3, 0, 119]
    found = column.explanations(rows, keep=False)
    assert column._texts == {}
    assert found == [column[i].explanation for i in rows]
    assert column.explanations(rows, keep=False) == found  # rows now held as results
    assert column.explanations(rows) == found
    assert set(column._texts) == set(rows)
