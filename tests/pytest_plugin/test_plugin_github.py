"""The pytest plugin's ``--evalmark-github``: a failing session writes the GitHub step summary
and annotates each failing case at its sample's line (or, without a samples file, the test's),
through the renderer ``evalmark run --github`` uses."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

# In-process pytester sessions drop the modules first imported inside them.
import evalmark.report
import evalmark.samples._samples  # noqa: F401

pytest_plugins = ["pytester"]

_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

SAMPLES = """\
- name: capital-france
  parameters: [What is the capital of France?]
  expected-output: Paris
- name: capital-japan
  parameters: [What is the capital of Japan?]
  expected-output: Tokyo
"""

TESTS = """
import pytest
from evalmark import Sample
from evalmark.pytest import evaluation_test
from evalmark.strategies import ExactMatch

ANSWERS = {"What is the capital of France?": "Paris", "What is the capital of Japan?": "Kyoto"}


def answer(question):
    return ANSWERS[question]


@evaluation_test(samples="capitals.yaml", function=answer, strategy=ExactMatch(),
                 min_pass_rate=0.9)
def test_gated():
    pass


@pytest.mark.evalmark_samples("capitals.yaml")
def test_with_samples(scorer, samples):
    scorer.evaluate(samples, answer, ExactMatch())


def test_inline(scorer):
    sample = Sample(name="inline", parameters=("What is the capital of Japan?",),
                    expected_output="Tokyo")
    scorer.evaluate([sample], answer, ExactMatch())
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", capitals=SAMPLES)
    pytester.makepyfile(test_capitals=TESTS)
    return pytester


def _annotations(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("::error ")]


def test_a_failing_session_writes_the_summary_and_annotates_the_failing_cases(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = project.runpytest(*PLUGIN, "-p", "no:cacheprovider", "--evalmark-github")
    result.assert_outcomes(passed=2, failed=1)
    annotations = _annotations(result)
    assert len(annotations) == 3
    japan_line = SAMPLES.splitlines().index("- name: capital-japan") + 1
    gated, inline, with_samples = annotations  # the suite report sorts reports by name
    assert gated.startswith(f"::error file=capitals.yaml,line={japan_line},title=evalmark%3A ")
    assert "test_gated%3A capital-japan fail" in gated
    assert with_samples.startswith(f"::error file=capitals.yaml,line={japan_line},")
    written = (project.path / "test_capitals.py").read_text().splitlines()
    test_line = written.index("def test_inline(scorer):") + 1
    assert inline.startswith(f"::error file=test_capitals.py,line={test_line},")
    text = summary.read_text()
    assert text.startswith("earlier step\n## evalmark: pytest, 3 reports: FAILED")
    assert "| test_capitals.py::test_gated: pass rate (cases) | 0.5 | 0.9 | **FAILED** |" in text
    assert "### Failing cases (3)" in text


def test_on_by_itself_in_an_action_and_off_with_no_github(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    off = project.runpytest(*PLUGIN, "-p", "no:cacheprovider", "--evalmark-no-github")
    assert _annotations(off) == [] and not summary.exists()
    on = project.runpytest(*PLUGIN, "-p", "no:cacheprovider")
    assert len(_annotations(on)) == 3 and summary.exists()
    monkeypatch.delenv("GITHUB_ACTIONS")
    summary.unlink()
    quiet = project.runpytest(*PLUGIN, "-p", "no:cacheprovider")
    assert _annotations(quiet) == [] and not summary.exists()


def test_with_a_report_folder_each_report_gets_an_inspect_log(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    reports = project.path / "reports"
    args = [*PLUGIN, "-p", "no:cacheprovider", "--evalmark-github"]
    result = project.runpytest(*args, "--evalmark-report", str(reports))
    result.assert_outcomes(passed=2, failed=1)
    logs = sorted(reports.glob("*.inspect.json"))
    stems = (
        "test_capitals.py__test_gated",
        "test_capitals.py__test_inline",
        "test_capitals.py__test_with",
    )
    assert len(logs) == 3 and all(p.name.startswith(s) for p, s in zip(logs, stems, strict=True))
    gated = json.loads(logs[0].read_text())
    assert gated["status"] == "success"
    by_id = {s["id"]: s for s in gated["samples"]}
    assert by_id["capital-japan"]["input"] == "What is the capital of Japan?"
    assert by_id["capital-japan"]["target"] == "Tokyo"
    assert [s["scores"]["ExactMatch"]["value"] for s in gated["samples"]] == ["C", "I"]
    assert "Inspect log:" in summary.read_text()
    no_folder = project.runpytest(*args)
    assert "Inspect log" not in summary.read_text().split("## evalmark", 2)[-1]
    no_folder.assert_outcomes(passed=2, failed=1)
