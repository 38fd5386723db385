"""The Markdown and HTML reports are built a column at a time: texts are escaped in bulk (the
bulk forms equal the one-text rules), explanations are read without building a result per
row, and a plain row of a batch check is never turned into a result object."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Scorer
from evalmark.report import render_report
from evalmark.report._render.common import cell, cells, html_text, html_texts
from evalmark.strategies import Contains, ContainsFacts, ExactMatch, TokenF1

# Everything the rules touch: whitespace of several kinds (runs, ends), controls, the escaped
# characters, the joining character of the bulk forms, and any other character.
CHARS = st.one_of(
    st.sampled_from(list(" \t\n\x0b\x1c\x85\xa0\u3000|&<>\"'\u2e3b\uffff\x00\x7f\x9fab")),
    st.characters(codec=None, exclude_categories=()),
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(st.text(CHARS, max_size=12), max_size=8), st.integers(1, 8))
def test_bulk_escaping_equals_the_one_text_rules(texts: list[str], limit: int) -> None:
    assert cells(texts, limit) == [cell(t, limit) for t in texts]
    assert cells(texts) == [cell(t) for t in texts]
    assert html_texts(texts) == [html_text(t) for t in texts]


def _report():  # type: ignore[no-untyped-def]
    samples = [
        Sample(
            name=f"case <{i}>",
            parameters=[i],
            expected_output=f"Answer {i} is blue",
            expected_facts=("blue", f"{i}"),
            tags=("t",),
        )
        for i in range(12)
    ]
    outputs = [f"answer {i} is {'blue' if i % 3 else 'red'}" for i in range(12)]
    suite = (ExactMatch(), Contains(), ContainsFacts(), TokenF1(0.9))
    return Scorer().evaluate_outputs(samples, outputs, *suite, name="r")


def test_the_reports_build_no_result_for_a_plain_row_of_a_batch_check() -> None:
    report = _report()
    for fmt in ("markdown", "html"):
        text = render_report(report, fmt)
        assert "case &lt;4&gt;" in text
    for name in ("ExactMatch", "Contains", "ContainsFacts", "TokenF1"):
        assert report.column(name)._cache == {}, name


def test_explanations_are_those_of_the_rows() -> None:
    report, built = _report(), _report()
    for name in report.strategies:
        rows = [0, 5, 3, 11]
        wanted = [built.column(name)[i].explanation for i in rows]
        assert report.column(name).explanations(rows) == wanted, name
    assert report.column("ContainsFacts")._cache == {}  # explained, not built


def test_the_cases_written_by_one_formatting_equal_the_cases_one_by_one() -> None:
    from evalmark.report._render.html_cases import CaseRenderer, case_order

    class Odd(TokenF1):
        label = "F1 <&%> 100%"  # the threshold text holds what is escaped and a % sign

    samples = [
        Sample(name=f"c%s {i}", parameters=[i], expected_output=f"a {i} b", tags=("t%",))
        for i in range(9)
    ]
    outputs = [f"a {i} {'b' if i % 2 else 'c'} %d" for i in range(9)]
    report = Scorer().evaluate_outputs(samples, outputs, ExactMatch(), Odd(0.6), name="r")
    order, code = case_order(report)
    positions = order.tolist()
    verdicts = [("pass", "fail", "error")[v] for v in code[positions].tolist()]
    anchors = [f"case-{p}" for p in positions]
    for shown in ([None] * 9, [samples[p] if p % 3 == 0 else None for p in positions]):
        one_by_one = CaseRenderer(report).render_many(positions, verdicts, shown, anchors)
        text = CaseRenderer(report).render_text(positions, verdicts, shown, anchors)
        assert text == "\n".join(one_by_one)
    assert "F1 &lt;&amp;%&gt; 100% 0." in text
