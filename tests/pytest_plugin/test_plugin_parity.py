"""The pytest plugin against the seed's examples (issue 29): loader sources in the ``samples``
fixture, selectable suite-report formats, scores in the terminal lines, and evaluations run
directly inside a test reaching the suite report."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

import evalmark.samples._samples  # noqa: F401  (one copy of the readers across sessions)

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
