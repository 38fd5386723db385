"""Report formats for a whole suite (issue 29, item 5): a SuiteReport renders as one HTML page
(the single-report page's pieces, its Content Security Policy), and a registered format is
selectable for a suite file's ``report.formats`` and ``evalmark report render --format``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from evalmark import Sample, Samples
from evalmark.cli import main
from evalmark.engine._scorer import Scorer
from evalmark.report import (
    SuiteReport,
    register_formatter,
    render_report,
    unregister_formatter,
    write_report,
)
from evalmark.report._render.html_assets import CONTENT_SECURITY_POLICY
from evalmark.strategies import ExactMatch
from evalmark.suite._loader import load_suite
from evalmark.suite._output import write_reports
from evalmark.suite._runner import run_suite

SAMPLES = Samples(
    [
        Sample(name="france", parameters=("Capital of France?",), expected_output="Paris"),
        Sample(name="japan", parameters=("Capital of Japan?",), expected_output="<Tokyo>"),
    ]
)


def suite() -> SuiteReport:
    first = Scorer().evaluate(SAMPLES, lambda q: "Paris", ExactMatch(), name="first")
    second = Scorer().evaluate(SAMPLES, lambda q: "<Tokyo>", ExactMatch(), name="second <b>")
    return SuiteReport([first, second], name="pytest")


def csv(report: Any, **options: Any) -> str:
    """A plug-in format: one line per report of a suite, or per case of a report."""
    if isinstance(report, SuiteReport):
        return "".join(f"{r.name},{r.cases().passed}\n" for r in report.reports)
    return "".join(f"{row.name},{row.verdict}\n" for row in report.rows())


@pytest.fixture
def csv_format() -> Any:
    register_formatter("csv", csv, extensions=[".csv"])
    yield
    unregister_formatter("csv")


def test_a_suite_renders_as_one_html_page() -> None:
    page = render_report(suite(), "html")
    assert page.startswith("<!DOCTYPE html>")
    assert f'content="{CONTENT_SECURITY_POLICY}"' in page
    assert "<script" not in page  # nothing to run: the policy allows no other script
    assert page.count('<section class="report"') == 2
    assert "second &lt;b&gt;" in page and "second <b>" not in page
    assert "&lt;Tokyo&gt;" in page and "<Tokyo>" not in page
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "element ids are unique on the page"
    assert {"r1-case-0", "r1-case-1", "r2-case-0", "r2-case-1"} <= set(ids)
    assert render_report(suite(), "html") == page  # same suite, same bytes


def test_a_suite_is_written_in_html_and_registered_formats(
    tmp_path: Path, csv_format: None
) -> None:
    html = write_report(suite(), tmp_path / "suite.html")
    assert "Evaluation suite: pytest" in html.read_text(encoding="utf-8")
    written = write_report(suite(), tmp_path / "suite.csv")
    assert written.read_text(encoding="utf-8") == "first,1\nsecond <b>,1\n"
    with pytest.raises(ValueError, match="junit renders one report at a time"):
        render_report(suite(), "junit")
    with pytest.raises(KeyError, match="no report format named 'pdf'"):
        render_report(suite(), "pdf")


SUITE_FILE = """\
evaluations:
  - name: capitals
    samples: samples.yaml
    application: {function: app.py:answer}
    strategies: [exact-match]
  - name: again
    samples: samples.yaml
    application: {function: app.py:answer}
    strategies: [exact-match]
report: {formats: [json, html, csv]}
"""
SAMPLES_FILE = "- {name: one, parameters: [q], expected-output: a}\n"


def test_a_suite_files_report_formats_take_a_registered_format(
    tmp_path: Path, csv_format: None
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    (tmp_path / "app.py").write_text("def answer(q):\n    return 'a'\n", encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(SAMPLES_FILE, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE_FILE, encoding="utf-8")
    loaded = load_suite(tmp_path)
    assert loaded.report.formats == ("json", "html", "csv")
    paths = write_reports(run_suite(loaded), tmp_path / "out", loaded.report.formats)
    suffixes = sorted(p.suffix for p in paths)
    assert suffixes == [".csv"] * 3 + [".html"] * 3 + [".json"] * 3  # two reports and the suite
    suite_files = [p for p in paths if not p.stem.endswith(("-capitals", "-again"))]
    assert sorted(p.suffix for p in suite_files) == [".csv", ".html", ".json"]
    by_suffix = {p.suffix: p for p in suite_files}
    page = by_suffix[".html"].read_text(encoding="utf-8")
    assert page.count('<section class="report"') == 2  # the suite's page holds both reports
    csv_text = by_suffix[".csv"].read_text(encoding="utf-8")
    assert csv_text == "capitals,1\nagain,1\n"


def test_report_render_takes_a_registered_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], csv_format: None
) -> None:
    path = write_report(suite(), tmp_path / "suite.json")
    assert main(["report", "render", str(path), "--format", "csv"]) == 0
    assert capsys.readouterr().out == "first,1\nsecond <b>,1\n"
    assert main(["report", "render", str(path), "--format", "csv", "--report", "first"]) == 0
    assert capsys.readouterr().out == "france,pass\njapan,fail\n"
