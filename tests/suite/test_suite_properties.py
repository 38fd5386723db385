"""Properties of suite runs over the bundled support suite with a generated noisy judge: a run
is the same at every concurrency and for the same seed, a run of some tags judges those cases
as the whole run does, and the suite's gate is the k-of-n rule over the cases the run judged."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.models import NoisyJudge, RuleJudge
from evalmark.noise._gates import passes
from evalmark.report import SuiteReport, render_report
from evalmark.suite import Suite
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite, verdict_rows

SUPPORT = Path(__file__).resolve().parents[2] / "golden" / "support"
BUILDS = st.sampled_from(["healthy", "regressed"])
FLIPS = st.sampled_from([0.0, 0.05, 0.3, 1.0])
SEEDS = st.integers(0, 2**31 - 1)


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(SUPPORT)


def judge(flip: float, seed: int) -> NoisyJudge:
    return NoisyJudge(RuleJudge(min_overlap=0.6), flip, seed)


@settings(max_examples=examples(15), deadline=None)
@given(BUILDS, FLIPS, SEEDS, st.integers(2, 8))
def test_a_run_is_the_same_at_every_concurrency_and_for_the_same_seed(
    suite: Suite, build: str, flip: float, seed: int, concurrency: int
) -> None:
    first = run_suite(suite, build=build, judge=judge(flip, seed), concurrency=1)
    again = run_suite(suite, build=build, judge=judge(flip, seed), concurrency=concurrency)
    assert verdict_rows(first) == verdict_rows(again)
    assert render_report(SuiteReport(first.reports), "json") == render_report(
        SuiteReport(again.reports), "json"
    )
    assert first.gates == again.gates


@settings(max_examples=examples(15), deadline=None)
@given(BUILDS, FLIPS, SEEDS, st.data())
def test_a_run_of_some_tags_judges_those_cases_as_the_whole_run_does(
    suite: Suite, build: str, flip: float, seed: int, data: st.DataObject
) -> None:
    whole = run_suite(suite, build=build, judge=judge(flip, seed))
    tags = sorted({t for report in whole.reports for row in report.rows() for t in row.tags})
    chosen = data.draw(st.lists(st.sampled_from(tags), min_size=1, max_size=2, unique=True))
    part = run_suite(suite, build=build, judge=judge(flip, seed), tags=chosen)
    tagged = {
        row.name for report in whole.reports for row in report.rows() if set(row.tags) & set(chosen)
    }
    rows = {(case, check): passed for case, check, passed, _ in verdict_rows(whole)}
    got = {(case, check): passed for case, check, passed, _ in verdict_rows(part)}
    assert {case for case, _ in got} == tagged
    assert got == {key: passed for key, passed in rows.items() if key[0] in tagged}


@settings(max_examples=examples(25), deadline=None)
@given(BUILDS, FLIPS, SEEDS)
def test_the_suite_gate_is_the_k_of_n_rule_over_the_cases_judged(
    suite: Suite, build: str, flip: float, seed: int
) -> None:
    run = run_suite(suite, build=build, judge=judge(flip, seed))
    cases: dict[str, bool] = {}
    for case, _, passed, _ in verdict_rows(run):
        cases[case] = cases.get(case, True) and passed
    (gate,) = run.gates
    assert gate.passed == passes(sum(cases.values()), len(cases), gate.required)
    assert run.passed == gate.passed
    if flip == 0.0:
        assert run.passed == (build == "healthy")
