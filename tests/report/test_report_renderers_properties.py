"""Properties of the report renderers over generated reports whose names, tags, check names and
explanations hold markup, pipes, newlines, controls and lone surrogates: every format is
deterministic, a Markdown table keeps one column count on every row, JUnit XML parses and its
counts equal the report's, the JSON form reads back to the same counts, a suite report keeps
its reports, and an unknown format is refused naming the known ones.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.report import Report, SuiteReport, render_report, report_document
from evalmark.results._results import ResultColumn

PIECES = st.sampled_from(
    [
        "<b>",
        "|",
        "\\|",
        "\n",
        "\r\n",
        "\t",
        "`",
        "*",
        "&",
        '"',
        "\x00",
        "\x1b",
        "\ud800",
        "é",
        "]]>",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(alphabet="abc ", max_size=3)), max_size=5).map("".join)
NAMES = TEXT.filter(lambda t: t.strip() != "")
FORMATS = ("markdown", "json", "html", "junit")


@st.composite
def reports(draw: st.DrawFn) -> Report:
    names = draw(st.lists(NAMES, min_size=1, max_size=5, unique=True))
    checks = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))

    def one() -> EvaluationResult:
        kind = draw(st.sampled_from(["pass", "fail", "error"]))
        if kind == "error":
            return EvaluationResult.from_error("strategy", ValueError(draw(TEXT)))
        return EvaluationResult(kind == "pass", draw(st.floats(0, 1)), draw(TEXT))

    return Report(
        name=draw(TEXT),
        sample_names=names,
        sample_tags=[tuple(draw(st.lists(NAMES, max_size=2, unique=True))) for _ in names],
        columns={c: ResultColumn.from_results([one() for _ in names]) for c in checks},
        outputs=[draw(TEXT) for _ in names],
    )


UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def markdown_tables(text: str) -> list[list[str]]:
    """The tables of a Markdown text: runs of consecutive lines that start with ``|``."""
    tables: list[list[str]] = []
    current: list[str] = []
    for line in text.split("\n"):
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def pipes(line: str) -> int:
    """Cell separators of a table row as GitHub's Markdown splits it: a pipe right after a
    backslash belongs to the cell, whatever comes before that backslash."""
    return len(UNESCAPED_PIPE.findall(line))


@settings(max_examples=examples(40), deadline=None)
@given(reports())
@example(
    Report(
        name="r",
        sample_names=["a\\|b"],
        sample_tags=[()],
        columns={"c": ResultColumn.from_results([EvaluationResult(False, 0.0, "x\\")])},
    )
)
def test_every_markdown_table_row_has_the_columns_of_its_header(report: Report) -> None:
    for table in markdown_tables(render_report(report, "markdown")):
        widths = {pipes(line) for line in table}
        assert len(widths) == 1, table


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_every_format_renders_the_same_text_twice(report: Report) -> None:
    for format in FORMATS:
        assert render_report(report, format) == render_report(report, format), format


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_junit_xml_parses_and_counts_what_the_report_counts(report: Report) -> None:
    root = ET.fromstring(render_report(report, "junit").encode("utf-8"))
    cases = root.findall(".//testcase")
    assert len(cases) == report.evaluations
    assert int(root.get("tests", "-1")) == report.evaluations
    assert int(root.get("failures", "-1")) == report.failed == len(root.findall(".//failure"))
    assert int(root.get("errors", "-1")) == report.errors == len(root.findall(".//error"))


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_the_json_form_is_a_report_document_with_the_same_counts(report: Report) -> None:
    data = json.loads(render_report(report, "json"))
    assert data["format"] == "evalmark-report"
    again = Report.from_json(render_report(report, "json"))
    assert again == report
    assert again.summary == report.summary


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_a_document_without_samples_keeps_the_summary(report: Report) -> None:
    whole = report_document(report)
    slim = report_document(report, with_samples=False)
    assert set(slim) <= set(whole)
    for key in slim:
        if key != "samples":
            assert slim[key] == whole[key], key


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(reports(), min_size=1, max_size=3))
def test_a_suite_report_reads_back_with_every_report_and_its_counts(items: list[Report]) -> None:
    named = [r.with_name(f"r{i}") for i, r in enumerate(items)]
    suite = SuiteReport(named)
    again = SuiteReport.from_json(render_report(suite, "json"))
    assert again == suite
    assert [r.name for r in again.reports] == [r.name for r in named]
    for before, after in zip(named, again.reports, strict=True):
        assert after.summary == before.summary
    for format in FORMATS[:2]:
        assert render_report(suite, format)


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8))
def test_an_unknown_format_is_refused_naming_the_known_ones(format: str) -> None:
    report = Report(
        name="r",
        sample_names=["a"],
        sample_tags=[()],
        columns={"c": ResultColumn.from_results([EvaluationResult.passing()])},
    )
    from evalmark.report._formatters import known_formatters

    known = known_formatters()
    if format in known or format in FORMATS:
        return
    with pytest.raises(LookupError, match="known formats: " + ", ".join(sorted(known))):
        render_report(report, format)


CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


@settings(max_examples=examples(40), deadline=None)
@given(reports())
def test_json_and_junit_write_no_raw_control_character(report: Report) -> None:
    for format in ("json", "junit"):
        assert not CONTROLS.search(render_report(report, format)), format
