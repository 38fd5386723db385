"""The HTML report of a real suite run: the bundled support suite's regressed build, written by
``evalmark run``'s report writer, shows each case's question, expected answer, facts and
context, failing cases first, and the judges' reasons without their verdict lines."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_html_helpers import case_named, cases, check_rows, fields, parse

from evalmark import load_samples
from evalmark.suite._loader import load_suite
from evalmark.suite._output import write_reports
from evalmark.suite._runner import run_suite

SUPPORT = Path(__file__).resolve().parents[2] / "golden" / "support"


def test_the_regressed_support_run(tmp_path: Path) -> None:
    folder = tmp_path / "support"
    shutil.copytree(SUPPORT, folder)
    run = run_suite(load_suite(folder), build="regressed", mode="replay")
    (page,) = write_reports(run, tmp_path / "out", ["html"])
    doc = parse(page.read_text(encoding="utf-8"))
    (report,) = run.reports
    failing = [r.name for r in report.rows() if not r.passed]
    assert failing == ["team-price-eight-users-annual", "live-chat-hours", "sso-on-team-plan"]
    shown = [c.find_all("summary")[0].text.split("score")[0] for c in cases(doc)]
    assert shown[:3] == [
        "FAIL" + name + "".join(next(r.tags for r in report.rows() if r.name == name))
        for name in failing
    ]
    sample = next(s for s in load_samples(folder / "samples.yaml") if s.name == "live-chat-hours")
    chat = case_named(doc, "live-chat-hours")
    got = fields(chat)
    assert got["Input"] == sample.parameters[0]
    assert got["Expected"] == sample.expected_output
    assert got["Expected facts"] == "".join(sample.expected_facts)
    assert got["Context"] == "".join(sample.context)
    assert got["Actual output"] == report.output(report.sample_names.index("live-chat-hours"))
    reason = check_rows(chat)["groundedness"][3]
    assert "VERDICT" not in reason.split("raw text")[0]
    assert reason.startswith("47% of the content words of the claim appear in the document")
    # the gate: shown once the report carries it (Report.gates), else said to be absent
    gate = doc.by_id("gate").find_all("h2")[0].text
    assert gate == ("Gate FAILED" if getattr(report, "gates", ()) else "No gate applied")
