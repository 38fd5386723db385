"""Reports: figures, golden files for every formatter, HTML escaping, JSON round trips, writing,
plug-in formatters, gates, assert_that, baselines and suites.

Golden files live in tests/golden_reports/; regenerate them after an intended change with
``EVALMARK_UPDATE_GOLDEN=1 pytest tests/test_engine_report.py`` and review the diff.
"""

from __future__ import annotations

import importlib
import json
import os
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalmark import Sample, Scorer, TestCase, TokenUsage
from evalmark.gates import assert_that, require_no_drop, require_pass_rate, require_suite_pass_rate
from evalmark.report import (
    Report,
    SuiteReport,
    compare,
    register_formatter,
    render_comparison,
    render_report,
    unregister_formatter,
    write_report,
)
from evalmark.strategies import ContainsFacts, ExactMatch, Guardrail, TokenF1

GOLDEN = Path(__file__).resolve().parents[1] / "golden_reports"
SCRIPT = "<script>alert('x')</script>"

SAMPLES = [
    Sample(
        name="refund-window",
        parameters=["How long do I have to ask for a refund?"],
        expected_output="You can ask for a refund within 30 days",
        expected_facts=["30 days"],
        tags=["critical", "refunds"],
    ),
    Sample(
        name="refund-receipt",
        parameters=["Do I need a receipt?"],
        expected_output="Yes, keep the receipt",
        expected_facts=["receipt"],
        tags=["refunds"],
    ),
    Sample(
        name="injection",
        parameters=["Say hi"],
        expected_output="hi",
        expected_facts=["hi"],
        tags=["critical", "security"],
    ),
    Sample(name="timeout", parameters=["slow question"], expected_output="x", expected_facts=["x"]),
]


def app(question: str) -> Any:
    if question.startswith("How long"):
        return TestCase(
            question,
            "You can ask for a refund within 30 days",
            latency_ms=120.0,
            token_usage=TokenUsage(40, 12),
            cost="0.0004",
        )
    if question.startswith("Do I"):
        return "No receipt is needed | just ask"
    if question == "Say hi":
        return f"hi {SCRIPT}"
    raise TimeoutError("the model took too long")


def make_report(function: Any = app, name: str = "support-bot") -> Report:
    return Scorer().evaluate(
        SAMPLES, function, ExactMatch(), TokenF1(0.5), ContainsFacts(), name=name
    )


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("EVALMARK_UPDATE_GOLDEN"):
        path.write_bytes(text.encode("utf-8"))
    assert path.exists(), f"golden file {path} is missing; run with EVALMARK_UPDATE_GOLDEN=1"
    assert text == path.read_bytes().decode("utf-8"), f"{name} differs from its golden file"


def test_figures() -> None:
    report = make_report()
    s = report.summary
    assert (s.evaluations, s.passed, s.failed, s.errors) == (12, 6, 3, 3)
    cases = report.cases()
    assert (cases.cases, cases.passed, cases.failed, cases.errors) == (4, 1, 2, 1)
    assert report.pass_rate == 0.25  # cases, not checks
    assert report.check_pass_rate == 0.5  # 6 of 12 checks
    assert report.cases(tag="critical").pass_rate == 0.5
    assert report.cases(strategy="ContainsFacts").pass_rate == 0.75
    assert report.tags == ("critical", "refunds", "security")
    refunds = report.by_tag()["refunds"]
    assert (refunds.passed, refunds.evaluations) == (4, 6)
    by = report.by_strategy()
    assert list(by) == ["ExactMatch", "TokenF1", "ContainsFacts"]
    assert by["ContainsFacts"].passed == 3 and by["ContainsFacts"].errors == 1
    rows = list(report.rows())
    assert [r.verdict for r in rows] == ["pass", "fail", "fail", "error"]
    assert rows[1].explanation.startswith("ExactMatch: output")
    assert report.metric_means()["latency_ms"] == 120.0


@pytest.mark.parametrize(
    ("format", "golden"),
    [
        ("markdown", "support-bot.md"),
        ("json", "support-bot.json"),
        ("html", "support-bot.html"),
        ("junit", "support-bot.xml"),
    ],
)
def test_formatters_match_their_golden_files(format: str, golden: str) -> None:
    first = render_report(make_report(), format)
    second = render_report(make_report(), format)
    assert first == second  # byte-stable
    check_golden(golden, first)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for key, value in attrs:
            assert not (value or "").startswith(("http:", "https:", "//")), (tag, key, value)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_self_contained_and_escapes_model_output() -> None:
    html = render_report(make_report(), "html")
    parser = _Collector()
    parser.feed(html)
    # one script: the page's own inline filter script (tests/report/test_html*.py check it)
    assert parser.tags.count("script") == 1 and "link" not in parser.tags
    assert "img" not in parser.tags
    assert any(SCRIPT in chunk for chunk in parser.text)  # shown as text
    assert "&lt;script&gt;" in html and SCRIPT not in html


def test_markdown_escapes_cells() -> None:
    md = render_report(make_report(), "markdown")
    assert "No receipt is needed \\| just ask" in md
    assert SCRIPT not in md and "&lt;script&gt;" in md


def test_junit_is_valid_xml_with_failures_and_errors() -> None:
    root = ET.fromstring(render_report(make_report(), "junit"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "12"
    assert len(suite.findall("testcase/failure")) == 3
    assert len(suite.findall("testcase/error")) == 3
    error = suite.find("testcase/error")
    assert error is not None and error.get("type") == "TimeoutError"


def test_json_round_trip() -> None:
    report = make_report()
    back = Report.from_json(render_report(report, "json"))
    assert back == report
    assert render_report(back, "json") == render_report(report, "json")
    assert render_report(back, "markdown") == render_report(report, "markdown")
    assert back.result("timeout", "TokenF1").error is not None
    with pytest.raises(ValueError, match="not an evalmark report"):
        Report.from_json('{"format": "other"}')
    with pytest.raises(ValueError, match="version 99"):
        Report.from_json(json.dumps({"format": "evalmark-report", "version": 99}))


def test_write_picks_the_format_from_the_extension(tmp_path: Path) -> None:
    report = make_report()
    for suffix, format in (
        (".md", "markdown"),
        (".json", "json"),
        (".html", "html"),
        (".xml", "junit"),
    ):
        path = write_report(report, tmp_path / "out" / f"report{suffix}")
        assert path.read_text(encoding="utf-8") == render_report(report, format)
    forced = write_report(report, tmp_path / "report.txt", format="markdown")
    assert forced.read_text(encoding="utf-8") == render_report(report, "markdown")
    with pytest.raises(ValueError, match="format="):
        write_report(report, tmp_path / "report.txt")


def test_register_formatter_and_entry_points(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def csv(report: Report) -> str:
        return "".join(f"{r.name},{r.verdict}\n" for r in report.rows())

    register_formatter("csv", csv, extensions=[".csv"])
    try:
        report = make_report()
        assert render_report(report, "csv").splitlines()[0] == "refund-window,pass"
        assert write_report(report, tmp_path / "r.csv").read_text().startswith("refund-window,pass")
        with pytest.raises(ValueError, match="already registered"):
            register_formatter("csv", csv)
    finally:
        unregister_formatter("csv")

    class Plugin:
        extensions = (".tsv",)

        def render(self, report: Report) -> str:
            return f"{report.name}\t{100 * report.pass_rate:.0f}\n"

    entry = SimpleNamespace(name="tsv", value="plugin:Plugin", load=lambda: Plugin())
    monkeypatch.setattr(
        importlib.import_module("evalmark.report._formatters"),
        "entry_points",
        lambda group: [entry] if group == "evalmark.report_formatters" else [],
    )
    monkeypatch.setattr(
        importlib.import_module("evalmark.report._formatters"), "_entry_points_loaded", False
    )
    try:
        assert render_report(make_report(), "tsv") == "support-bot\t25\n"
    finally:
        unregister_formatter("tsv")
    with pytest.raises(KeyError, match="known formats"):
        render_report(make_report(), "pdf")


def test_require_pass_rate_names_rate_threshold_and_failing_cases() -> None:
    report = make_report()
    require_pass_rate(report, 0.25)
    with pytest.raises(AssertionError) as info:
        require_pass_rate(report, 0.9)
    message = str(info.value)
    assert "pass rate (cases): 25.0% is below the required 90.0%" in message
    assert "(1 of 4 cases passed every check, 2 failed, 1 error)" in message
    assert "refund-receipt [ExactMatch] fail: output" in message
    assert "timeout [TokenF1] error:" in message and "refund-window" not in message
    with pytest.raises(AssertionError, match="tag 'critical'"):
        require_pass_rate(report, 0.9, tag="critical")
    require_pass_rate(report, 0.75, strategy="ContainsFacts")
    with pytest.raises(AssertionError, match=r"strategy 'TokenF1': pass rate \(cases\): 50\.0%"):
        require_pass_rate(report, 0.9, strategy="TokenF1")
    with pytest.raises(KeyError, match="its tags are"):
        require_pass_rate(report, 0.5, tag="nope")
    with pytest.raises(ValueError, match=r"did you mean 0\.9"):
        require_pass_rate(report, 90)


def test_assert_that_chains_and_names_failing_samples() -> None:
    report = make_report()
    (
        assert_that(report)
        .has_evaluation_count(12)
        .has_passed_count(6)
        .has_failed_count(6)
        .has_error_count(3)
        .has_at_least_passed_evaluations(6)
        .has_at_most_failed_evaluations(6)
        .has_pass_rate_between(0.24, 0.26)
        .has_pass_rate_greater_than(0.24)
        .has_pass_rate_equal_to(0.25)
    )
    with pytest.raises(AssertionError, match="refund-receipt"):
        assert_that(report).has_pass_rate_greater_than(0.9)
    with pytest.raises(ValueError, match=r"did you mean 0\.25"):
        assert_that(report).has_pass_rate_equal_to(25)
    with pytest.raises(AssertionError, match=r"injection \[ExactMatch\]"):
        assert_that(report).has_passed_for_tag("critical")
    with pytest.raises(AssertionError, match="expected 3 passed"):
        assert_that(report).has_passed_count(3)


def better(question: str) -> Any:
    if question == "Say hi":
        return "hi"
    return app(question)


def worse(question: str) -> Any:
    if question.startswith("How long"):
        return "I don't know"
    return app(question)


def test_compare_with_a_baseline(tmp_path: Path) -> None:
    baseline = make_report()
    path = write_report(baseline, tmp_path / "baseline.json")
    improved = compare(make_report(better), path)
    assert not improved.regressions and {c.sample for c in improved.fixes} == {"injection"}
    require_no_drop(improved, 0.0)
    current = Scorer().evaluate(
        SAMPLES[:3], worse, ExactMatch(), TokenF1(0.5), ContainsFacts(), name="support-bot"
    )
    comparison = compare(current, render_report(baseline, "json"))
    assert [(c.sample, c.strategy) for c in comparison.regressions] == [
        ("refund-window", "ExactMatch"),
        ("refund-window", "TokenF1"),
        ("refund-window", "ContainsFacts"),
    ]
    assert comparison.vanished == ("timeout",)
    assert comparison.tags["critical"].change == pytest.approx(-0.5)
    with pytest.raises(AssertionError) as info:
        require_no_drop(comparison, max_drop=0.05)
    message = str(info.value)
    assert "pass rate of tag 'critical' fell from 50.0% to 0.0%" in message
    assert "refund-window [ExactMatch]" in message and "Vanished from this run: timeout" in message
    check_golden("comparison.md", render_comparison(comparison))
    with pytest.raises(FileNotFoundError, match=r"write_report\(report"):
        compare(current, tmp_path / "missing.json")


def test_vanished_cases_can_fail_the_gate() -> None:
    baseline = make_report()
    current = Scorer().evaluate(
        SAMPLES[:3], app, ExactMatch(), TokenF1(0.5), ContainsFacts(), name="support-bot"
    )
    comparison = compare(current, baseline)
    require_no_drop(comparison, 0.5)
    with pytest.raises(AssertionError, match="1 baseline sample vanished"):
        require_no_drop(comparison, 0.5, fail_on_vanished=True)


def test_suite_combines_reports() -> None:
    first = make_report()
    second = make_report(better, name="support-bot-v2")
    suite = SuiteReport([first, second], name="nightly")
    assert suite.summary.evaluations == 24 and suite.summary.passed == 6 + 7
    assert suite["support-bot-v2"] is second
    check_golden("suite.md", render_report(suite, "markdown"))
    check_golden("suite.json", render_report(suite, "json"))
    back = SuiteReport.from_json(render_report(suite, "json"))
    assert back == suite
    assert render_report(back, "json") == render_report(suite, "json")
    assert suite.pass_rate == 3 / 8  # cases: 1 of 4, then 2 of 4
    require_suite_pass_rate(suite, 0.375)
    with pytest.raises(AssertionError, match=r"support-bot: 25.0% \(1 of 4 cases\)"):
        require_suite_pass_rate(suite, 0.4)
    with pytest.raises(ValueError, match="distinct"):
        SuiteReport([first, first])


def test_guardrail_figures() -> None:
    expected = ["REJECT", "REJECT", "REJECT", "ACCEPT", "ACCEPT"]
    said = ["REJECT", "REJECT", "ACCEPT", "REJECT", "ACCEPT"]
    samples = [
        Sample(name=f"g{i}", parameters=[i], expected_output=e) for i, e in enumerate(expected)
    ]
    report = Scorer().evaluate(samples, lambda i: said[i], Guardrail(positive="REJECT"))
    g = report.guardrails()["Guardrail"]
    assert (g.true_positive, g.false_negative, g.false_positive, g.true_negative) == (2, 1, 1, 1)
    assert g.accuracy == pytest.approx(3 / 5)
    assert g.precision == pytest.approx(2 / 3) and g.recall == pytest.approx(2 / 3)
    assert g.false_positive_rate == pytest.approx(1 / 2)
    assert g.false_negative_rate == pytest.approx(1 / 3)
    assert "## Guardrails" in render_report(report, "markdown") and "0.667" in render_report(
        report, "markdown"
    )
    assert json.loads(render_report(report, "json"))["guardrails"]["Guardrail"][
        "recall"
    ] == pytest.approx(2 / 3)


def test_timestamps_only_when_asked() -> None:
    report = make_report()
    assert "Generated" not in render_report(
        report, "markdown"
    ) and "generated_at" not in render_report(report, "json")
    stamped = render_report(report, "json", timestamp="2026-01-02T03:04:05Z")
    assert json.loads(stamped)["generated_at"] == "2026-01-02T03:04:05Z"
    assert render_report(Report.from_json(stamped), "json") == render_report(report, "json")
    assert "Generated 2026-01-02." in render_report(report, "markdown", timestamp="2026-01-02")
    assert "Generated " in render_report(report, "html", timestamp=True)


def test_reports_are_immutable_and_can_be_renamed() -> None:
    report = make_report()
    with pytest.raises(AttributeError, match="immutable"):
        report.name = "other"  # type: ignore[misc]
    renamed = report.with_name("other")
    assert renamed.name == "other" and report.name == "support-bot"
    assert render_report(renamed, "json").replace(
        '"name": "other"', '"name": "support-bot"', 1
    ) == render_report(report, "json")


def test_markdown_caps_long_tables() -> None:
    md = render_report(make_report(), "markdown", max_rows=2)
    assert "… and 4 more." in md and "… and 2 more samples." in md


def test_reports_pickle_through_their_json_form() -> None:
    import pickle

    report = make_report()
    assert pickle.loads(pickle.dumps(report)) == report
    assert render_report(pickle.loads(pickle.dumps(report)), "json") == render_report(
        report, "json"
    )


def test_guardrail_figures_survive_function_errors_and_composites() -> None:
    from evalmark.strategies import Composite

    expected = ["REJECT", "ACCEPT", "REJECT"]
    samples = [
        Sample(name=f"g{i}", parameters=[i], expected_output=e) for i, e in enumerate(expected)
    ]

    def guard(i: int) -> str:
        if i == 2:
            raise RuntimeError("guard crashed")
        return "REJECT"

    report = Scorer().evaluate(samples, guard, Guardrail(), Composite(Guardrail(), name="both"))
    g = report.guardrails()["Guardrail"]
    assert (g.true_negative, g.false_negative, g.total) == (1, 1, 2)
    assert report.errors == 2
    members = report.result("g0", "both").metadata["members"]
    assert members["Guardrail"]["passed"] is True
