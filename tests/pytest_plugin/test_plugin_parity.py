"""The pytest plugin against the seed's examples (issue 29): loader sources in the ``samples``
fixture, selectable suite-report formats, scores in the terminal lines, and evaluations run
directly inside a test reaching the suite report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

# In-process pytester sessions drop the modules first imported inside them: import what the
# inner sessions use here, so one copy of numpy and of the readers serves them all.
import evalmark.pytest
import evalmark.report
import evalmark.samples._samples
import evalmark.strategies  # noqa: F401
from evalmark.report import _formatters
from evalmark.samples import _plugins

pytest_plugins = ["pytester"]

_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

CONFTEST = """
import os
from evalmark import Sample, Samples, register_sample_loader


class MemoryLoader:
    def supports(self, source):
        return isinstance(source, (str, os.PathLike)) and os.fspath(source).startswith("mem://")

    def load(self, source):
        return Samples([
            Sample(name="sum", parameters=("What is 2 + 2?",), expected_output="4"),
            Sample(name="capital", parameters=("Capital of France?",), expected_output="Paris"),
        ])


register_sample_loader(MemoryLoader())
"""


@pytest.fixture(autouse=True)
def _registries_restored() -> Iterator[None]:
    """The inner sessions run in this process: the sample loaders and report formats their
    conftests register are forgotten afterwards, so no later test in the worker sees them."""
    loaders = list(_plugins._registered)
    formats = dict(_formatters._formatters)
    yield
    _plugins._registered[:] = loaders
    _formatters._formatters.clear()
    _formatters._formatters.update(formats)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", *args)


def test_the_samples_fixture_takes_a_source_a_loader_claims(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(
        test_mem="""
import pytest

@pytest.mark.evalmark_samples("mem://x")
def test_loaded(samples):
    assert samples.names == ("sum", "capital")
"""
    )
    result = run(pytester)
    result.assert_outcomes(passed=1)


DIRECT_TEST = """
from evalmark import Sample
from evalmark.strategies import ExactMatch, TokenF1
from evalmark.telemetry import RecordingTracer, scope

SAMPLE = Sample(name="capital", parameters=("Capital of France?",), expected_output="Paris")


def test_direct():
    tracer = RecordingTracer()
    with scope(tracer):
        assert ExactMatch().evaluate(SAMPLE, "Paris").passed
        assert not TokenF1(0.9).evaluate(SAMPLE, "Lyon").passed
    assert [r.strategy for r in tracer.records] == ["ExactMatch", "TokenF1"]


def test_nothing():
    pass
"""


def test_evaluations_called_directly_join_the_suite_report(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_direct=DIRECT_TEST)
    out = tmp_path / "out"
    result = run(pytester, f"--evalmark-report={out}")
    result.assert_outcomes(passed=2)
    suite = json.loads((out / "evaluation-suite-report.json").read_text(encoding="utf-8"))
    (report,) = suite["reports"]
    assert report["name"] == "test_direct.py::test_direct"
    assert [row["name"] for row in report["samples"]] == ["capital"]
    assert sorted(report["strategies"]) == ["ExactMatch", "TokenF1"]


PLAIN_SCORER_TEST = """
from evalmark import Evaluation, Sample, Samples, Scorer
from evalmark.strategies import ExactMatch

SAMPLES = Samples([
    Sample(name="france", parameters=("Capital of France?",), expected_output="Paris"),
    Sample(name="japan", parameters=("Capital of Japan?",), expected_output="Tokyo"),
])


def answer(question):
    return "Paris"


def test_plain_scorer():
    report = Scorer().evaluate(SAMPLES, answer, ExactMatch())
    assert report.pass_rate == 0.5


def test_evaluation_object():
    Evaluation(SAMPLES).evaluate(answer).using(ExactMatch()).run()


def test_fixture(scorer):
    scorer.evaluate_outputs(SAMPLES, ["Paris", "Tokyo"], ExactMatch())
"""


def test_a_plain_scorer_made_in_a_test_joins_the_suite_report_once(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_plain=PLAIN_SCORER_TEST)
    out = tmp_path / "out"
    result = run(pytester, f"--evalmark-report={out}")
    result.assert_outcomes(passed=3)
    suite = json.loads((out / "evaluation-suite-report.json").read_text(encoding="utf-8"))
    rates = {report["name"]: report["summary"]["cases"]["pass_rate"] for report in suite["reports"]}
    assert len(suite["reports"]) == 3  # the fixture's report once, not twice
    assert rates == {
        "test_plain.py::test_plain_scorer": 0.5,
        "test_plain.py::test_evaluation_object": 0.5,
        "test_plain.py::test_fixture": 1.0,
    }


SCORED_TEST = """
from evalmark import Sample, Samples
from evalmark.pytest import evaluation_test
from evalmark.strategies import Contains, ExactMatch

SAMPLES = Samples([
    Sample(name="france", parameters=("Capital of France?",), expected_output="Paris"),
    Sample(name="japan", parameters=("Capital of Japan?",), expected_output="Tokyo"),
])


def answer(question):
    return {"Capital of France?": "Paris"}.get(question, "Tokyo is the capital")


@evaluation_test(samples=SAMPLES, function=answer, strategy=[ExactMatch(), Contains()],
                 min_pass_rate=0.5)
def test_capitals():
    pass


def test_plain():
    pass
"""


@pytest.mark.parametrize("how", [["--evalmark-show-scores"], []])
def test_scores_and_verdicts_on_the_test_lines(pytester: pytest.Pytester, how: list[str]) -> None:
    pytester.makepyfile(test_scored=SCORED_TEST)
    if not how:
        pytester.makeini("[pytest]\nevalmark_show_scores = true\n")
    result = run(pytester, "-v", *how)
    result.assert_outcomes(passed=2)
    # The seed's example: two checks on two samples, three of four checks pass (75), one of
    # two cases passes every check, and the gate (half the cases) holds.
    out = result.stdout.str()
    assert (
        "test_scored.py::test_capitals PASSED [score 75.0% (3 of 4 checks), 1 of 2 cases "
        "passed, gate passed]"
    ) in out
    assert "test_plain PASSED [" not in out


def test_scores_are_off_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_scored=SCORED_TEST)
    result = run(pytester, "-v")
    result.assert_outcomes(passed=2)
    assert "[score" not in result.stdout.str()


TWO_TESTS = """
from evalmark import Sample, Samples
from evalmark.pytest import evaluation_test
from evalmark.strategies import ExactMatch

SAMPLES = Samples([
    Sample(name="france", parameters=("Capital of France?",), expected_output="Paris"),
    Sample(name="japan", parameters=("Capital of Japan?",), expected_output="Tokyo"),
])


@evaluation_test(samples=SAMPLES, function=lambda q: "Paris", strategy=ExactMatch(),
                 min_pass_rate=0.5)
def test_first():
    pass


@evaluation_test(samples=SAMPLES, function=lambda q: "Tokyo", strategy=ExactMatch(),
                 min_pass_rate=0.5)
def test_second():
    pass
"""

CSV_PLUGIN = """
from evalmark.report import register_formatter


def csv(suite, **options):
    return "".join(f"{r.name},{r.cases().passed}\\n" for r in suite.reports)


register_formatter("csv", csv, extensions=[".csv"])
"""


def test_the_suite_report_formats_and_name_are_chosen(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_two=TWO_TESTS)
    pytester.makeconftest(CSV_PLUGIN)
    out = tmp_path / "out"
    result = run(
        pytester,
        f"--evalmark-report={out}",
        "--evalmark-report-format=html,json",
        "--evalmark-report-format=csv",
        "--evalmark-report-name=nightly",
    )
    result.assert_outcomes(passed=2)
    assert sorted(p.name for p in out.iterdir()) == ["nightly.csv", "nightly.html", "nightly.json"]
    page = (out / "nightly.html").read_text(encoding="utf-8")
    # one page for the whole pytest suite: both tests' reports, their cases, the same CSP
    assert "Evaluation suite: pytest" in page
    assert page.count('<section class="report"') == 2
    assert "test_two.py::test_first" in page and "test_two.py::test_second" in page
    assert 'id="r1-case-' in page and 'id="r2-case-' in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert (out / "nightly.csv").read_text(encoding="utf-8") == (
        "test_two.py::test_first,1\ntest_two.py::test_second,1\n"
    )


def test_the_suite_report_formats_come_from_the_ini_file(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_two=TWO_TESTS)
    pytester.makeini(
        "[pytest]\nevalmark_report_formats = html markdown\nevalmark_report_name = suite\n"
    )
    out = tmp_path / "out"
    result = run(pytester, f"--evalmark-report={out}")
    result.assert_outcomes(passed=2)
    assert sorted(p.name for p in out.iterdir()) == ["suite.html", "suite.md"]


def test_an_unknown_suite_report_format_fails_the_session(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(test_two=TWO_TESTS)
    result = run(pytester, f"--evalmark-report={tmp_path}", "--evalmark-report-format=pdf")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*no report format named 'pdf'*"])
