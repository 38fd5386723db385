"""Properties of what the engine reports for generated samples and answers: exact match passes
exactly the equal answers (folding case by default) and the counts add up; a sample's results
do not depend on the other samples or on the other checks run beside it; a case passes exactly
when each of its checks does, so the case pass rate never exceeds the check pass rate; and the
failing rows are exactly the samples with a failed check."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from engine_cases import CASES_AND_CASE as CASES
from engine_cases import echo, samples_of
from evalmark import Scorer
from evalmark.report import Report
from evalmark.strategies import Contains, ExactMatch, TokenF1


def results(report: Report) -> dict[str, dict[str, Any]]:
    return {
        row.name: {check: (r.passed, r.score) for check, r in row.results.items()}
        for row in report.rows()
    }


@settings(max_examples=examples(60), deadline=None)
@given(CASES)
def test_exact_match_passes_exactly_the_equal_answers_and_the_counts_add_up(
    cases: list[tuple[str, str, list[str]]],
) -> None:
    items = samples_of(cases)
    strict = Scorer(concurrency=1).evaluate(items, echo, ExactMatch(case=False))
    folded = Scorer(concurrency=1).evaluate(items, echo, ExactMatch())
    # the words hold no punctuation or extra spaces: only the case can differ
    same_case = [answer == want for want, answer, _ in cases]
    equal = [answer.lower() == want.lower() for want, answer, _ in cases]
    assert [row.results[strict.strategies[0]].passed for row in strict.rows()] == same_case
    assert [row.results[folded.strategies[0]].passed for row in folded.rows()] == equal
    report = folded
    assert report.passed == sum(equal) and report.failed == len(cases) - sum(equal)
    assert report.errors == 0 and report.evaluations == len(cases)
    assert report.pass_rate == sum(equal) / len(cases)


@settings(max_examples=examples(40), deadline=None)
@given(CASES, st.sets(st.integers(0, 9)))
def test_a_samples_results_do_not_depend_on_the_other_samples(
    cases: list[tuple[str, str, list[str]]], kept: set[int]
) -> None:
    checks = (ExactMatch(), TokenF1(0.5), Contains())
    everything = samples_of(cases)
    part = everything.filter(lambda s: int(s.name[1:]) in kept)
    whole = results(Scorer(concurrency=1).evaluate(everything, echo, *checks))
    if not part:
        return
    some = results(Scorer(concurrency=1).evaluate(part, echo, *checks))
    assert some == {name: whole[name] for name in part.names}


@settings(max_examples=examples(40), deadline=None)
@given(CASES)
def test_a_checks_results_do_not_depend_on_the_checks_run_beside_it(
    cases: list[tuple[str, str, list[str]]],
) -> None:
    items = samples_of(cases)
    alone = Scorer(concurrency=1).evaluate(items, echo, TokenF1(0.5))
    beside = Scorer(concurrency=1).evaluate(items, echo, ExactMatch(), TokenF1(0.5), Contains())
    name = alone.strategies[0]
    assert results(alone) == {
        sample: {name: checks[name]} for sample, checks in results(beside).items()
    }


@settings(max_examples=examples(40), deadline=None)
@given(CASES)
def test_a_case_passes_exactly_when_each_check_does_and_failing_rows_are_the_rest(
    cases: list[tuple[str, str, list[str]]],
) -> None:
    report = Scorer(concurrency=1).evaluate(
        samples_of(cases), echo, ExactMatch(), TokenF1(0.5), Contains()
    )
    whole = [all(r.passed for r in row.results.values()) for row in report.rows()]
    assert report.pass_rate == sum(whole) / len(cases)
    assert report.pass_rate <= report.check_pass_rate
    failing = [row.name for row in report.failing_rows()]
    assert failing == [row.name for row, ok in zip(report.rows(), whole, strict=True) if not ok]
    for tag in report.tags:
        tagged = [ok for ok, (_, _, tags) in zip(whole, cases, strict=True) if tag in tags]
        assert report.cases(tag=tag).pass_rate == sum(tagged) / len(tagged)
