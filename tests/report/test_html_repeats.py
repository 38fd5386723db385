"""The HTML report's pass@k / pass^k section (repeated runs) and its guardrail wording."""

from __future__ import annotations

import pytest
from test_html_helpers import parse

from evalmark import Scorer
from evalmark.models._context import current_call
from evalmark.report import Report, render_report
from evalmark.report._render.repeats import repeats_text
from evalmark.samples._samples import Sample
from evalmark.strategies import ExactMatch, Guardrail

SAMPLES = [Sample(name=n, parameters=[n], expected_output="yes") for n in ("a", "b", "c")]
GOOD_RUNS = {"a": 5, "b": 3, "c": 0}  # of 5 runs, how many answer "yes"


def flaky(question: str) -> str:
    context = current_call()
    assert context is not None and context.repeat is not None
    return "yes" if context.repeat < GOOD_RUNS[question] else "no"


def repeated() -> Report:
    return Scorer(repeats=5, k=2).evaluate(SAMPLES, flaky, ExactMatch(), name="flaky")


def test_a_report_with_repeats_shows_pass_at_k_and_pass_hat_k_per_case() -> None:
    doc = parse(render_report(repeated(), "html"))
    section = doc.by_id("repeats")
    assert section.find_all("h2")[0].text == "Repeated runs: pass@2 and pass^2"
    # n = 5, k = 2: b passed 3 runs, pass@2 = 1 - C(2,2)/C(5,2) = 0.9, pass^2 = C(3,2)/C(5,2) = 0.3
    rows = [[td.text for td in tr.find_all("td")] for tr in section.find_all("tr")[1:]]
    assert rows == [
        ["a", "5 of 5", "1.000", "1.000"],
        ["b", "3 of 5", "0.900", "0.300"],
        ["c", "0 of 5", "0.000", "0.000"],
    ]
    # overall: the means over the cases, (1 + 0.9 + 0) / 3 and (1 + 0.3 + 0) / 3
    assert "Overall: pass@2 0.633, pass^2 0.433" in section.text


def test_the_section_is_the_same_after_json_and_absent_without_repeats() -> None:
    report = repeated()
    assert render_report(Report.from_json(render_report(report, "json")), "html") == render_report(
        report, "html"
    )
    plain = Scorer().evaluate(SAMPLES, lambda q: "yes", ExactMatch())
    page = render_report(plain, "html")
    assert 'id="repeats"' not in page and "pass@" not in page
    assert repeats_text(plain) == ""


def test_the_terminal_text_gives_the_overall_figures_and_one_row_per_case() -> None:
    lines = repeats_text(repeated()).splitlines()
    assert lines[0] == "repeated runs: 5 per case; pass@2 0.633, pass^2 0.433"
    assert lines[1].split() == ["case", "runs", "passed", "pass@2", "pass^2"]
    assert [line.split() for line in lines[3:]] == [
        ["a", "5/5", "1.000", "1.000"],
        ["b", "3/5", "0.900", "0.300"],
        ["c", "0/5", "0.000", "0.000"],
    ]


@pytest.mark.parametrize("positive", ["ACCEPT", "REJECT"])
def test_the_guardrail_section_names_the_positive_class_used(positive: str) -> None:
    expected = ["REJECT", "REJECT", "REJECT", "ACCEPT", "ACCEPT"]
    said = ["REJECT", "REJECT", "ACCEPT", "REJECT", "ACCEPT"]
    samples = [
        Sample(name=f"g{i}", parameters=[i], expected_output=e) for i, e in enumerate(expected)
    ]
    report = Scorer().evaluate(samples, lambda i: said[i], Guardrail(positive=positive))
    section = parse(render_report(report, "html")).by_id("guardrails")
    other = "REJECT" if positive == "ACCEPT" else "ACCEPT"
    assert section.find_all("p")[0].text == f"{positive} is the positive class."
    assert f"{other} is the positive class" not in section.text
    # the worked example: FPR 1/2 with REJECT positive, 1/3 with ACCEPT positive
    cells = [td.text for td in section.find_all("td")]
    assert cells[1] == positive
    assert cells[5] == ("0.500" if positive == "REJECT" else "0.333")
