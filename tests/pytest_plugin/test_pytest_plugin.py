"""The evalmark pytest plugin, run in pytester sessions: fixtures, markers, options, the suite
report, baselines and pytest-xdist."""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path

import pytest

# In-process pytester sessions drop the modules first imported inside them; importing the
# loaders here keeps one copy of yaml and of the readers whose node classes they compare.
import evalmark.samples._samples  # noqa: F401
from evalmark.report import SuiteReport

pytest_plugins = ["pytester"]

# Before the package is reinstalled the pytest11 entry point is not there; load the plugin by
# hand then (loading it both ways would register it twice).
_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

SAMPLES_A = """\
- name: capital-france
  parameters: [What is the capital of France?]
  expected-output: Paris
  tags: [geo]
- name: capital-japan
  parameters: [What is the capital of Japan?]
  expected-output: Tokyo
  tags: [geo]
"""

SAMPLES_B = """\
- name: two-plus-two
  parameters: [What is 2 + 2?]
  expected-output: "4"
  tags: [math]
"""

APP = """
ANSWERS = {
    "What is the capital of France?": "Paris",
    "What is the capital of Japan?": "Kyoto",
    "What is 2 + 2?": "4",
}


def answer(question):
    return ANSWERS[question]


def right(question):
    return {"What is the capital of Japan?": "Tokyo"}.get(question, ANSWERS[question])
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A test project with two sample files and an application module."""
    pytester.makefile(".yaml", samples_a=SAMPLES_A, samples_b=SAMPLES_B)
    pytester.makepyfile(app=APP)
    pytester.syspathinsert()
    pytester.makeini("[pytest]\naddopts = --strict-markers\n")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", *args)


def test_markers_are_registered_for_strict_markers(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_marks="""
        import pytest

        @pytest.mark.evalmark_scorer(concurrency=2)
        @pytest.mark.evalmark_samples("samples_a.yaml")
        def test_nothing():
            pass
        """
    )
    result = run(project)
    result.assert_outcomes(passed=1)
    listed = run(project, "--markers").stdout.str()
    assert "@pytest.mark.evalmark_scorer(**options)" in listed
    assert "@pytest.mark.evalmark_samples(*sources, tags=None)" in listed


def test_scorer_fixture_takes_the_marker_options_and_registers_reports(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_scorer="""
        import pytest
        from app import answer
        from evalmark.engine._defaults import DEFAULT_CONCURRENCY
        from evalmark.strategies import ExactMatch

        @pytest.mark.evalmark_scorer(concurrency=5)
        @pytest.mark.evalmark_samples("samples_a.yaml")
        def test_capitals(scorer, samples):
            assert scorer.concurrency == 5
            report = scorer.evaluate(samples, answer, ExactMatch())
            assert report.passed == 1 and report.failed == 1

        def test_default_scorer(scorer):
            assert scorer.concurrency == DEFAULT_CONCURRENCY
        """
    )
    result = run(project, "--evalmark-report=out")
    result.assert_outcomes(passed=2)
    suite = SuiteReport.from_json((project.path / "out/evaluation-suite-report.json").read_text())
    assert [r.name for r in suite.reports] == ["test_scorer.py::test_capitals"]
    assert suite.summary.passed == 1 and suite.summary.failed == 1
    result.stdout.fnmatch_lines(
        [
            "*= evalmark =*",
            "1 report, 2 cases: 1 passed, 1 failed, 0 errors; pass rate (cases): 50.0% (1 of 2 "
            "checks passed)",
            "report*cases*passed*failed*errors*pass rate (cases)*gate",
            "test_scorer.py::test_capitals*2*1*1*0*50.0%*no gate",
            "suite report: out*evaluation-suite-report.md, out*evaluation-suite-report.json",
        ]
    )


def test_scorer_marker_rejects_unknown_options(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_bad="""
        import pytest

        @pytest.mark.evalmark_scorer(concurency=5)
        def test_it(scorer):
            pass
        """
    )
    result = run(project)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*evalmark_scorer*concurency*"])


def test_samples_fixture_merges_sources_in_order_and_filters_tags(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_merged_samples="""
        import pytest

        @pytest.mark.evalmark_samples("samples_b.yaml", "samples_a.yaml")
        def test_merged(samples):
            assert samples.names == ("two-plus-two", "capital-france", "capital-japan")

        @pytest.mark.evalmark_samples("samples_a.yaml", "samples_b.yaml", tags=["math"])
        def test_tagged(samples):
            assert samples.names == ("two-plus-two",)
        """
    )
    run(project).assert_outcomes(passed=2)


def test_samples_fixture_paths_are_relative_to_the_rootdir_or_the_test_file(
    project: pytest.Pytester,
) -> None:
    sub = project.mkpydir("sub")
    (sub / "local.yaml").write_text(SAMPLES_B, encoding="utf-8")
    (sub / "test_local.py").write_text(
        "import pytest\n\n"
        '@pytest.mark.evalmark_samples("local.yaml")\n'
        "def test_local(samples):\n"
        '    assert samples.names == ("two-plus-two",)\n\n'
        '@pytest.mark.evalmark_samples("missing.yaml")\n'
        "def test_missing(samples):\n"
        "    pass\n",
        encoding="utf-8",
    )
    result = run(project)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*evalmark_samples: no file 'missing.yaml' (tried *missing.yaml and *missing.yaml)*"]
    )


def test_decorators_find_sample_files_next_to_the_test_file(project: pytest.Pytester) -> None:
    sub = project.mkpydir("sub")
    (sub / "local.yaml").write_text(SAMPLES_B, encoding="utf-8")
    (sub / "test_near.py").write_text(
        "from app import answer\n"
        "from evalmark.pytest import evaluation_test, per_sample\n"
        "from evalmark.strategies import ExactMatch\n\n"
        '@evaluation_test(samples="local.yaml", function=answer, strategy=ExactMatch())\n'
        "def test_declared():\n"
        "    pass\n\n"
        '@per_sample(["samples_a.yaml", "local.yaml"])\n'
        "def test_each(sample):\n"
        "    pass\n",
        encoding="utf-8",
    )
    run(project).assert_outcomes(passed=4)


def test_samples_fixture_without_its_marker_says_what_to_add(project: pytest.Pytester) -> None:
    project.makepyfile(test_nomark="def test_it(samples):\n    pass\n")
    result = run(project)
    assert result.ret != 0
    result.stdout.fnmatch_lines(['*has no @pytest.mark.evalmark_samples("path/to/samples.yaml")*'])


def test_evaluation_test_passes_fails_and_hands_over_the_report(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_declarative="""
        from app import answer, right
        from evalmark.pytest import evaluation_test
        from evalmark.strategies import ExactMatch

        @evaluation_test(samples="samples_a.yaml", function=right, strategy=ExactMatch())
        def test_all_right():
            pass

        @evaluation_test(samples="samples_a.yaml", function=answer, strategy=ExactMatch(),
                         min_pass_rate=0.9)
        def test_one_wrong():
            pass

        @evaluation_test(samples=["samples_a.yaml", "samples_b.yaml"], function=answer,
                         strategy=[ExactMatch()], min_pass_rate=0.5)
        def test_with_report(report):
            assert report.passed == 2 and report.failed == 1
        """
    )
    result = run(project, "--evalmark-report=out")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_one_wrong*", "*AssertionError*", "*capital-japan*"])
    suite = SuiteReport.from_json((project.path / "out/evaluation-suite-report.json").read_text())
    assert [r.name for r in suite.reports] == [
        "test_declarative.py::test_all_right",
        "test_declarative.py::test_one_wrong",
        "test_declarative.py::test_with_report",
    ]


def test_evaluation_test_refuses_a_percentage_min_pass_rate() -> None:
    from evalmark.pytest import evaluation_test

    with pytest.raises(
        ValueError, match=r"min_pass_rate .*between 0 and 1 \(0.9 for 90%\); got 90"
    ):
        evaluation_test(samples="x.yaml", function=str, strategy=object(), min_pass_rate=90)
    with pytest.raises(TypeError, match="min_score"):
        evaluation_test(samples="x.yaml", function=str, strategy=object(), **{"min_score": 0.5})


def test_suites_and_evaluation_test_share_one_default_concurrency() -> None:
    import inspect

    from evalmark.engine._defaults import DEFAULT_CONCURRENCY
    from evalmark.pytest import evaluation_test
    from evalmark.suite._model import Suite

    assert inspect.signature(evaluation_test).parameters["concurrency"].default == (
        DEFAULT_CONCURRENCY
    )
    assert Suite.__dataclass_fields__["concurrency"].default == DEFAULT_CONCURRENCY


def test_strategy_test_makes_one_test_per_strategy(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_strategies="""
        from app import right
        from evalmark.pytest import strategy_test
        from evalmark.strategies import Contains, ExactMatch, LevenshteinSimilarity

        @strategy_test(ExactMatch(), Contains(), LevenshteinSimilarity(0.9, name="edit-0.9"))
        def test_each(scorer, strategy):
            from evalmark import load_samples
            report = scorer.evaluate(load_samples("samples_a.yaml"), right, strategy)
            assert report.failed == 0
        """
    )
    result = run(project, "-v", "--evalmark-report=out")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*test_each?ExactMatch? PASSED*",
            "*test_each?Contains? PASSED*",
            "*test_each?edit-0.9? PASSED*",
        ]
    )
    suite = SuiteReport.from_json((project.path / "out/evaluation-suite-report.json").read_text())
    assert len(suite) == 3


def test_per_sample_ids_are_sample_names(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_each="""
        from app import answer
        from evalmark.pytest import per_sample
        from evalmark.strategies import ExactMatch

        @per_sample("samples_a.yaml")
        def test_plain(sample):
            assert sample.name.startswith("capital-")

        @per_sample(["samples_a.yaml", "samples_b.yaml"], function=answer, strategy=ExactMatch())
        def test_evaluated():
            pass
        """
    )
    result = run(project, "-v", "--evalmark-report=out")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_plain?capital-france? PASSED*",
            "*test_plain?capital-japan? PASSED*",
            "*test_evaluated?capital-france? PASSED*",
            "*test_evaluated?capital-japan? FAILED*",
            "*test_evaluated?two-plus-two? PASSED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "test_each.py::test_evaluated?capital-france? * 100.0%  pass (*>= 100%)",
            "test_each.py::test_evaluated?capital-japan? *   0.0%  FAIL (*< 100%)",
        ]
    )
    markdown = (project.path / "out/evaluation-suite-report.md").read_text()
    assert (
        "| test_each.py::test_evaluated[capital-japan] | 0.0% | 0 of 1 | 1 | 0 | FAILED |"
        in markdown
    )
    two = "| test_each.py::test_evaluated[two-plus-two] | 100.0% | 1 of 1 | 0 | 0 | passed |"
    assert two in markdown


def test_register_adds_any_report(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_register="""
        from app import answer
        from evalmark import load_samples
        from evalmark.pytest import register
        from evalmark.engine._scorer import Scorer
        from evalmark.strategies import ExactMatch

        def test_manual():
            report = Scorer().evaluate(load_samples("samples_b.yaml"), answer, ExactMatch())
            assert register(report) is report
            register(report, name="custom name")
            register(report)
        """
    )
    run(project, "--evalmark-report=out").assert_outcomes(passed=1)
    suite = SuiteReport.from_json((project.path / "out/evaluation-suite-report.json").read_text())
    assert [r.name for r in suite.reports] == [
        "custom name",
        "test_register.py::test_manual",
        "test_register.py::test_manual #2",
    ]


def test_no_reports_no_summary(project: pytest.Pytester) -> None:
    project.makepyfile(test_plain="def test_it():\n    pass\n")
    result = run(project)
    assert "= evalmark =" not in result.stdout.str()
    result = run(project, "--evalmark-report=out")
    result.stdout.fnmatch_lines(["no evaluation reports were registered in this run"])


def test_record_mode_option_sets_the_mode_for_the_run(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_mode="""
        import os
        from evalmark.models._modes import RecordMode

        def test_mode(evalmark_record_mode):
            assert os.environ["EVALMARK_RECORD_MODE"] == "record-missing"
            assert evalmark_record_mode is RecordMode.RECORD_MISSING
        """
    )
    before = os.environ.get("EVALMARK_RECORD_MODE")
    run(project, "--evalmark-record-mode=record-missing").assert_outcomes(passed=1)
    assert os.environ.get("EVALMARK_RECORD_MODE") == before


def test_record_mode_is_in_the_header_with_a_note_under_ci(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_plain="def test_it():\n    pass\n")
    monkeypatch.delenv("CI", raising=False)
    result = run(project, "--evalmark-record-mode=rewrite")
    result.stdout.fnmatch_lines(["evalmark: record mode rewrite (--evalmark-record-mode)"])
    assert "CI is set" not in result.stdout.str()
    monkeypatch.setenv("CI", "true")
    result = run(project, "--evalmark-record-mode=rewrite")
    result.stdout.fnmatch_lines(["evalmark: CI is set, so cassettes left to choose their own*"])
    assert "evalmark: record mode" not in run(project).stdout.str()


def test_scorer_fixture_registers_async_and_precomputed_reports(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_more="""
        import asyncio
        from app import answer
        from evalmark import load_samples
        from evalmark.strategies import ExactMatch

        def test_both(scorer):
            samples = load_samples("samples_b.yaml")
            asyncio.run(scorer.aevaluate(samples, answer, ExactMatch()))
            scorer.evaluate_outputs(samples, ["5"], ExactMatch())
        """
    )
    run(project, "--evalmark-report=out").assert_outcomes(passed=1)
    suite = SuiteReport.from_json((project.path / "out/evaluation-suite-report.json").read_text())
    assert [(r.name, r.passed) for r in suite.reports] == [
        ("test_more.py::test_both", 1),
        ("test_more.py::test_both #2", 0),
    ]


def test_record_mode_fixture_is_none_without_the_option(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_mode="def test_mode(evalmark_record_mode):\n    assert evalmark_record_mode is None\n"
    )
    run(project).assert_outcomes(passed=1)


def test_a_bad_record_mode_is_a_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "--evalmark-record-mode=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--evalmark-record-mode*invalid choice*'sometimes'*"])


BASELINE_TEST = """
from app import answer, right
from evalmark.pytest import evaluation_test
from evalmark.strategies import ExactMatch

@evaluation_test(samples=["samples_a.yaml", "samples_b.yaml"], function={function},
                 strategy=ExactMatch(), min_pass_rate=None)
def test_quality():
    pass
"""


def test_baseline_drop_beyond_max_drop_fails_the_session(project: pytest.Pytester) -> None:
    project.makepyfile(test_quality=BASELINE_TEST.format(function="right"))
    run(project, "--evalmark-report=base").assert_outcomes(passed=1)
    baseline = "base/evaluation-suite-report.json"
    project.makepyfile(test_quality=BASELINE_TEST.format(function="answer"))
    result = run(project, f"--evalmark-baseline={baseline}")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*baseline base*evaluation-suite-report.json: pass rate (cases) 100.0% -> 66.7% "
            "(-33.3 points; allowed drop 5.0 points)",
            "*drop: the suite pass rate fell from 100.0% to 66.7%",
            "*regression: test_quality.py::test_quality: capital-japan ?ExactMatch? went from "
            "pass to fail",
            "evalmark: the run dropped beyond --evalmark-max-drop=0.05 against *(5 drops listed "
            "above)",
        ]
    )
    # Overall -33 points, but the geo tag fell 50 points: 0.4 still fails, 0.5 passes.
    tag_drop = run(project, f"--evalmark-baseline={baseline}", "--evalmark-max-drop=0.4")
    assert tag_drop.ret == pytest.ExitCode.TESTS_FAILED
    tag_drop.stdout.fnmatch_lines(["*drop: *pass rate of tag 'geo' fell from 100.0% to 50.0%*"])
    lenient = run(project, f"--evalmark-baseline={baseline}", "--evalmark-max-drop=0.5")
    assert lenient.ret == pytest.ExitCode.OK


def test_a_missing_baseline_is_a_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "--evalmark-baseline=nowhere.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--evalmark-baseline nowhere.json: no such file*"])


def test_max_drop_must_be_a_fraction(project: pytest.Pytester) -> None:
    result = run(project, "--evalmark-max-drop=5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--evalmark-max-drop is a fraction between 0 and 1*got 5.0*"])


XDIST_TESTS = """
import pytest
from app import answer
from evalmark.pytest import per_sample
from evalmark.strategies import ExactMatch

@per_sample(["samples_a.yaml", "samples_b.yaml"], function=answer, strategy=ExactMatch())
def test_sample():
    pass

@pytest.mark.evalmark_samples("samples_a.yaml")
def test_scored(scorer, samples):
    scorer.evaluate(samples, answer, ExactMatch())
"""


def test_xdist_workers_reports_are_merged_like_a_serial_run(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    project.makepyfile(test_many=XDIST_TESTS)
    github = "--evalmark-github"  # with a report folder, an inspect log per report too
    serial = run(project, "--evalmark-report=serial", github)
    serial.assert_outcomes(passed=3, failed=1)
    parallel = project.runpytest_subprocess(
        *PLUGIN,
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "--evalmark-report=parallel",
        github,
        timeout=240,
    )
    parallel.assert_outcomes(passed=3, failed=1)
    parallel.stdout.fnmatch_lines(["*4 reports, 5 cases: 3 passed, 2 failed, 0 errors*"])
    logs = sorted(p.name for p in (project.path / "serial").glob("*.inspect.json"))
    assert len(logs) == 4
    assert sorted(p.name for p in (project.path / "parallel").glob("*.inspect.json")) == logs
    for name in ("evaluation-suite-report.json", "evaluation-suite-report.md", *logs):
        assert (project.path / "parallel" / name).read_bytes() == (
            project.path / "serial" / name
        ).read_bytes()
    document = json.loads((project.path / "parallel/evaluation-suite-report.json").read_text())
    assert [r["name"] for r in document["reports"]] == [
        "test_many.py::test_sample[capital-france]",
        "test_many.py::test_sample[capital-japan]",
        "test_many.py::test_sample[two-plus-two]",
        "test_many.py::test_scored",
    ]


def test_the_plugin_is_declared_as_a_pytest11_entry_point() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '[project.entry-points.pytest11]\nevalmark = "evalmark.pytest._plugin"' in text


BAD_SAMPLES = """\
- name: one
  parameters: [What is the capital of France?]
  expected-outptu: Paris
"""


def test_a_bad_sample_file_shows_the_message_not_evalmark_internals(
    project: pytest.Pytester,
) -> None:
    project.makefile(".yaml", bad=BAD_SAMPLES)
    project.makepyfile(
        test_bad="""
        import pytest
        from app import answer
        from evalmark.pytest import evaluation_test
        from evalmark.strategies import ExactMatch

        @evaluation_test(samples="bad.yaml", function=answer, strategy=ExactMatch())
        def test_declared():
            pass

        @pytest.mark.evalmark_samples("bad.yaml")
        def test_fixture(samples):
            pass
        """,
        test_collected="""
        from app import answer
        from evalmark.pytest import per_sample
        from evalmark.strategies import ExactMatch

        @per_sample("bad.yaml", function=answer, strategy=ExactMatch())
        def test_each(sample):
            pass
        """,
    )
    result = run(project, "--continue-on-collection-errors")
    result.assert_outcomes(failed=1, errors=2)
    text = result.stdout.str()
    message = "unknown key 'expected-outptu' in a sample; did you mean 'expected-output'?"
    assert text.count(message) >= 3
    result.stdout.fnmatch_lines(["test_collected.py:5: in <module>", "*@per_sample(*", "E  *"])
    assert "evalmark/data" not in text and "evalmark/_files" not in text
    assert "evalmark/pytest" not in text
    full = run(project, "--continue-on-collection-errors", "--full-trace")
    assert "evalmark/_files" in full.stdout.str()


def test_a_failed_gate_names_the_test_and_hides_evalmark_frames(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_gate="""
        from app import answer
        from evalmark.gates import require_pass_rate
        from evalmark.strategies import ExactMatch

        def test_quality(scorer):
            from evalmark.samples._samples import load_samples

            report = scorer.evaluate(load_samples("samples_a.yaml"), answer, ExactMatch())
            require_pass_rate(report, 0.9)
        """
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*require_pass_rate(report, 0.9)",
            "E *report 'test_gate.py::test_quality': pass rate (cases): 50.0% is below the "
            "required 90.0%*",
        ]
    )
    assert "evalmark/report" not in result.stdout.str()


def test_the_table_verdict_follows_min_score(project: pytest.Pytester) -> None:
    """9 of 10 passing under min_pass_rate=0.8 is a pass in the table, not FAIL."""
    rows = "".join(
        f"- name: q{i}\n  parameters: ['{i}']\n  expected-output: '{i if i else 'x'}'\n"
        for i in range(10)
    )
    project.makefile(".yaml", ten=rows)
    project.makepyfile(
        test_ten="""
        from evalmark.pytest import evaluation_test
        from evalmark.strategies import ExactMatch

        @evaluation_test(samples="ten.yaml", function=str, strategy=ExactMatch(), min_pass_rate=0.8)
        def test_mostly_right():
            pass

        @evaluation_test(samples="ten.yaml", function=str, strategy=ExactMatch(),
                         min_pass_rate=0.8)
        def test_new_name():
            pass
        """
    )
    result = run(project, "--evalmark-report=out")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "test_ten.py::test_mostly_right*10*9*1*0*90.0%*pass (pass rate (cases) >= 80%)",
            "test_ten.py::test_new_name*10*9*1*0*90.0%*pass (pass rate (cases) >= 80%)",
        ]
    )
    document = json.loads((project.path / "out/evaluation-suite-report.json").read_text())
    (gate,) = document["reports"][0]["gate"]
    assert (gate["actual"], gate["required"], gate["passed"]) == (0.9, 0.8, True)
    markdown = (project.path / "out/evaluation-suite-report.md").read_text()
    assert "| test_ten.py::test_mostly_right | 90.0% | 9 of 10 | 1 | 0 | passed |" in markdown
    assert "| pass rate (cases) | 90.0% | >= 80% | passed |" in markdown
