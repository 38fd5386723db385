"""The HTML report's content, read back with html.parser: the gate at the top, the counts,
failing cases first with their inputs and each check's verdict, score and reason, errors,
deterministic bytes and ``max_rows``. Escaping and the page's policy: test_html_safety.py."""

from __future__ import annotations

import json

import pytest
from test_html_helpers import (
    NAMES,
    SAMPLES,
    TAGS,
    Node,
    bad,
    case_named,
    cases,
    check_rows,
    fields,
    make,
    ok,
    parse,
    support,
)

from evalmark import Sample, Scorer, TestCase
from evalmark.gates._rules import GateResult
from evalmark.report import render_report
from evalmark.report._model import Report
from evalmark.report._values import SkippedSample
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.strategies import ContainsFacts, ExactMatch


def test_the_gate_verdict_comes_first_with_every_condition() -> None:
    doc = parse(render_report(support(), "html"))
    body = doc.find_all("body")[0]
    sections = [n.attrs.get("id") for n in body.children if isinstance(n, Node)]
    assert sections[:2] == [None, None]  # the title and the suite/build line
    assert sections[2:5] == ["gate", "summary", "checks"]
    gate = doc.by_id("gate")
    assert "failed" in str(gate.attrs["class"]).split()
    assert gate.find_all("h2")[0].text == "Gate FAILED"
    rows = [[td.text for td in tr.find_all("td")] for tr in gate.find_all("tr")[1:]]
    assert rows == [
        ["pass rate", "60.0%", "≥ 90.0%", "FAILED", "3 of 5 cases pass every check"],
        ["errored cases", "1", "≤ 0", "FAILED", "1 case errored"],
    ]
    assert doc.find_all("h1")[0].text == "Evaluation report: support"
    assert "build regressed" in doc.find_all("p", "meta")[0].text


def test_a_held_gate_and_no_gate() -> None:
    held = (GateResult("pass rate", 0.5, 0.6, True, "3 of 5"),)
    gate = parse(render_report(support(held), "html")).by_id("gate")
    assert gate.find_all("h2")[0].text == "Gate PASSED" and "passed" in str(gate.attrs["class"])
    for report in (support(None), support(())):
        gate = parse(render_report(report, "html")).by_id("gate")
        assert gate.find_all("h2")[0].text == "No gate applied"
        assert gate.find_all("table") == []


def test_summary_counts_cases_and_checks() -> None:
    doc = parse(render_report(support(), "html"))
    text = " ".join(doc.by_id("summary").text.split())
    assert "Cases passing every check: 2 of 5 (40.0%); 2 failing, 1 with an error." in text
    assert "Checks: 6 of 10 passed (60.0%), 2 failed, 2 errors (2 checks on each case)." in text
    s = support().summary
    assert (s.passed, s.failed, s.errors) == (6, 2, 2)


def test_one_table_per_check_and_per_tag_without_repeats() -> None:
    report = support()
    doc = parse(render_report(report, "html"))
    assert [h.text for h in doc.find_all("h2")] == [
        "Gate FAILED",
        "Summary",
        "Checks",
        "Tags",
        "Cases",
    ]
    checks = doc.by_id("checks").find_all("tr")[1:]
    assert [[td.text for td in tr.find_all("td")] for tr in checks] == [
        ["facts", "3 of 5", "1", "1", "60.0%", "0.750"],
        ["groundedness", "3 of 5", "1", "1", "60.0%", "0.750"],
    ]
    tags = {
        tr.find_all("td")[0].text: [td.text for td in tr.find_all("td")[1:]]
        for tr in doc.by_id("tags").find_all("tr")[1:]
    }
    # cases per tag: passing every check / failing / errored, counted from the verdicts
    for tag in report.tags:
        rows = [r for r in report.rows() if tag in r.tags]
        counts = [sum(r.verdict == v for r in rows) for v in ("pass", "fail", "error")]
        rate = f"{100.0 * counts[0] / len(rows):.1f}%"
        assert tags[tag] == [str(len(rows)), *map(str, counts), rate], tag
    assert "Metric means" not in render_report(report, "html")


def test_failing_cases_first_then_passing_in_sample_order() -> None:
    report = support()
    doc = parse(render_report(report, "html"))
    order = [c.attrs["id"] for c in cases(doc)]
    verdicts = [r.verdict for r in report.rows()]
    expected = [
        f"case-{i}" for v in ("error", "fail", "pass") for i, x in enumerate(verdicts) if x == v
    ]
    assert order == expected == ["case-3", "case-1", "case-2", "case-0", "case-4"]
    opened = {c.attrs["id"]: "open" in c.attrs for c in cases(doc)}
    assert opened == {
        "case-3": True,
        "case-1": True,
        "case-2": True,
        "case-0": False,
        "case-4": False,
    }


def test_each_case_shows_input_expected_facts_context_and_output() -> None:
    doc = parse(render_report(support(), "html", samples=SAMPLES))
    pricing = fields(case_named(doc, "pricing"))
    assert pricing == {
        "Input": "question about pricing?",
        "Expected": "the pricing answer",
        "Expected facts": "pricing fact onepricing fact two",
        "Context": "pricing document",
        "Actual output": "$249 a year",
    }
    assert len(case_named(doc, "pricing").find_all("li")) == 2  # one item per fact
    assert fields(case_named(doc, "crash"))["Actual output"] == "no output (the application raised)"
    # without samples: the output alone
    assert list(fields(case_named(parse(render_report(support(), "html")), "pricing"))) == [
        "Actual output"
    ]


def test_a_row_per_check_with_verdict_score_and_a_clean_reason() -> None:
    doc = parse(render_report(support(), "html", samples=SAMPLES))
    chat = case_named(doc, "chat")
    rows = check_rows(chat)
    assert list(rows) == ["facts", "groundedness"]
    assert rows["facts"][:3] == ["facts", "pass", "1.00"]
    check, verdict, score, reason = rows["groundedness"]
    assert (check, verdict, score) == ("groundedness", "FAIL", "0.00")
    shown = reason.split("raw text")[0]
    assert shown == "Only 20% of the claim is supported."  # no "VERDICT: no"
    raw = chat.find_all("details", "raw")
    assert len(raw) == 1 and "Only 20% of the claim is supported.\nVERDICT: no" in raw[0].text
    # a passing judged check shows its reason without the verdict and without raw text
    refund = check_rows(case_named(doc, "refund"))["groundedness"]
    assert refund[1:] == ["pass", "1.00", "All supported."]


def test_the_applications_error_is_shown_once() -> None:
    crash = case_named(parse(render_report(support(), "html")), "crash")
    assert "ERROR" in crash.find_all("summary")[0].text
    assert [p.text for p in crash.find_all("p", "error")] == [
        "The application raised RuntimeError: backend down"
    ]
    for _, verdict, score, reason in check_rows(crash).values():
        assert (verdict, score, reason) == ("ERROR", "—", "see the application's error above")


def test_a_strategy_error_shows_its_type_message_and_raw_reply() -> None:
    error = EvaluationResult.from_error("judge", ValueError("unreadable reply"))
    object.__setattr__(error.error, "raw", "I think so?")
    report = make(["q"], [()], {"judge": [error]}, ["out"])
    row = check_rows(cases(parse(render_report(report, "html")))[0])["judge"]
    assert row[1:3] == ["ERROR", "—"]
    assert row[3].startswith("ValueError: unreadable reply") and "I think so?" in row[3]


def test_the_judges_prompt_is_kept_behind_details() -> None:
    result = EvaluationResult(
        False,
        0.0,
        "No. VERDICT: no",
        {"judge_prompt": [{"role": "user", "content": "Is <b>this</b> grounded?"}]},
    )
    report = make(["q"], [()], {"judge": [result]}, ["out"])
    raw = cases(parse(render_report(report, "html")))[0].find_all("details", "raw")[0]
    assert "[user]\nIs <b>this</b> grounded?" in raw.text


def test_same_report_same_bytes_and_a_timestamp_only_when_asked() -> None:
    first = render_report(support(), "html", samples=SAMPLES)
    assert first == render_report(support(), "html", samples=list(reversed(SAMPLES)))
    assert first == render_report(support(), "html", samples={s.name: s for s in SAMPLES})
    assert "Generated" not in first
    assert "Generated 2026-12-01" in render_report(support(), "html", timestamp="2026-12-01")
    # nothing in the page depends on live objects: a report read back renders the same
    plain = make(
        NAMES, TAGS, {"facts": [ok(), bad("missing"), ok(), ok(), ok()]}, ["a", "b", "c", "d", "e"]
    )
    assert render_report(Report.from_json(render_report(plain, "json")), "html") == render_report(
        plain, "html"
    )


def test_max_rows_keeps_the_failing_cases() -> None:
    report = support()
    doc = parse(render_report(report, "html", max_rows=2))
    assert [c.attrs["id"] for c in cases(doc)] == ["case-3", "case-1"]
    assert "Showing the first 2 of 5 cases (failing cases first)" in doc.by_id("cases").text
    assert "Cases passing every check: 2 of 5" in doc.by_id("summary").text  # all counted
    assert cases(parse(render_report(report, "html", max_rows=0))) == []
    assert "Showing" not in render_report(report, "html", max_rows=5)
    with pytest.raises(ValueError, match="max_rows"):
        render_report(report, "html", max_rows=-1)


def test_a_scored_run_with_test_cases_as_samples() -> None:
    samples = [
        Sample(name="a", parameters=["q1"], expected_output="yes", expected_facts=["yes"]),
        Sample(name="b", parameters=["q2", {"k": 1}], expected_outputs=["x", "y"]),
    ]
    report = Scorer().evaluate(samples, lambda *p: "yes", ExactMatch(), ContainsFacts())
    doc = parse(render_report(report, "html", samples=samples))
    b = fields(case_named(doc, "b"))
    assert json.loads(b["Input"]) == ["q2", {"k": 1}] and b["Expected"] == "xy"
    assert [c.attrs["id"] for c in cases(doc)] == ["case-1", "case-0"]  # b fails ExactMatch
    retrieved = TestCase("the q", "the a", context=["gold"], retrieval_context=["found"], name="a")
    a = fields(case_named(parse(render_report(report, "html", samples={"a": retrieved})), "a"))
    assert a == {"Input": "the q", "Context": "gold", "Retrieved": "found", "Actual output": "yes"}
    with pytest.raises(TypeError, match="needs a name"):
        render_report(report, "html", samples=[TestCase("q", "a")])


def test_guardrails_skipped_and_usage_are_shown() -> None:
    decision = {"guardrail": {"expected": "REJECT", "actual": "REJECT", "positive": "REJECT"}}
    report = Report(
        name="g",
        sample_names=["x"],
        sample_tags=[()],
        columns={"guard": ResultColumn.from_results([EvaluationResult(True, 1.0, "", decision)])},
        outputs=[TestCase("q", "a", latency_ms=12.0)],
        skipped=[SkippedSample("gone", "TimeoutError: slow")],
    )
    doc = parse(render_report(report, "html"))
    assert doc.by_id("guardrails").find_all("td")[1].text == "REJECT"
    assert "gone: TimeoutError: slow" in doc.by_id("skipped").text
    assert "mean latency 12 ms" in doc.by_id("summary").text


def test_an_empty_report_and_one_without_checks() -> None:
    empty = parse(
        render_report(Report(name="none", sample_names=[], sample_tags=[], columns={}), "html")
    )
    assert "Cases passing every check: 0 of 0;" in empty.by_id("summary").text
    assert cases(empty) == []
    bare = parse(
        render_report(Report(name="bare", sample_names=["a"], sample_tags=[()], columns={}), "html")
    )
    (case,) = cases(bare)
    assert check_rows(case) == {} and "pass" in str(case.attrs["class"])
