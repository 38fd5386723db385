"""Properties of the pytest helpers, called in-process (no nested session): an
``evaluation_test`` fails exactly when the k-of-n rule says its pass rate is short, a
``per_sample`` test fails exactly when its sample's check fails, the registry names every report
once, and the session's suite report and score line do not depend on registration order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples
from evalmark.noise._gates import passes
from evalmark.pytest import evaluation_test, per_sample, strategy_test
from evalmark.pytest._registry import REGISTRY
from evalmark.pytest._scores import score_text
from evalmark.pytest._session import suite_of
from evalmark.report import render_report
from evalmark.strategies import Contains, ExactMatch

VERDICTS = st.lists(st.booleans(), min_size=1, max_size=12)
RATES = st.floats(0, 1) | st.sampled_from([0.0, 0.5, 0.9, 1 / 3, 2 / 3, 1.0])


def samples_of(verdicts: list[bool]) -> Samples:
    """Samples whose answer (see ``answer``) passes exact match exactly where ``verdicts`` says."""
    return Samples(
        tuple(
            Sample(name=f"s{i}", parameters=[f"{'yes' if ok else 'no'} {i}"], expected_output="yes")
            for i, ok in enumerate(verdicts)
        )
    )


def answer(question: str) -> str:
    return question.split()[0]


def _frame() -> Any:
    """A registry frame of its own, as a nested session has (popped by the caller)."""
    return REGISTRY.push()


@settings(max_examples=examples(60), deadline=None)
@given(VERDICTS, RATES)
def test_an_evaluation_test_fails_exactly_when_the_k_of_n_rule_says_so(
    verdicts: list[bool], rate: float
) -> None:
    frame = _frame()
    try:
        test = evaluation_test(
            samples=samples_of(verdicts), function=answer, strategy=ExactMatch(), min_pass_rate=rate
        )(lambda: None)
        expected = passes(sum(verdicts), len(verdicts), rate)
        if expected:
            test()
        else:
            with pytest.raises(AssertionError):
                test()
        (entry,) = REGISTRY.entries()
        (gate,) = entry.report.gates
        assert gate.passed == expected
        assert entry.report.cases().passed == sum(verdicts)
    finally:
        REGISTRY.pop(frame)


@settings(max_examples=examples(40), deadline=None)
@given(VERDICTS, RATES, RATES)
def test_a_higher_min_pass_rate_never_turns_a_failing_evaluation_test_into_a_passing_one(
    verdicts: list[bool], a: float, b: float
) -> None:
    low, high = sorted((a, b))

    def outcome(rate: float) -> bool:
        frame = _frame()
        try:
            evaluation_test(
                samples=samples_of(verdicts),
                function=answer,
                strategy=ExactMatch(),
                min_pass_rate=rate,
            )(lambda: None)()
        except AssertionError:
            return False
        finally:
            REGISTRY.pop(frame)
        return True

    assert outcome(low) >= outcome(high)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=True).filter(lambda x: not 0 <= x <= 1),
        st.booleans(),
        st.text(max_size=3),
        st.integers(2, 100),
    )
)
def test_a_min_pass_rate_that_is_not_a_fraction_is_refused_when_decorating(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="min_pass_rate"):
        evaluation_test(samples=[], function=answer, strategy=ExactMatch(), min_pass_rate=bad)


@settings(max_examples=examples(40), deadline=None)
@given(VERDICTS)
def test_a_per_sample_test_fails_exactly_for_the_samples_whose_check_fails(
    verdicts: list[bool],
) -> None:
    items = samples_of(verdicts)
    seen: list[str] = []

    def test(sample: Sample) -> None:
        seen.append(sample.name)

    decorated = per_sample(items, function=answer, strategy=ExactMatch())(test)
    (mark,) = [m for m in decorated.pytestmark if m.name == "parametrize"]
    assert list(mark.kwargs["ids"]) == [s.name for s in items]
    frame = _frame()
    try:
        for sample, ok in zip(mark.args[1], verdicts, strict=True):
            if ok:
                decorated(sample=sample)
            else:
                with pytest.raises(AssertionError):
                    decorated(sample=sample)
        assert seen == [s.name for s, ok in zip(items, verdicts, strict=True) if ok]
        assert len(REGISTRY.entries()) == len(verdicts)
    finally:
        REGISTRY.pop(frame)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.sampled_from(["t", "t #2", "u", "v"]) | st.none(), min_size=1, max_size=8))
def test_every_registered_report_gets_a_name_of_its_own(names: list[str | None]) -> None:
    frame = _frame()
    try:
        report: Any = object()  # the registry does not look inside
        for name in names:
            REGISTRY.add(report, name)
        given_names = [e.name for e in REGISTRY.entries()]
        assert len(set(given_names)) == len(names)
        for name, got in zip(names, given_names, strict=True):
            assert got == (name or "evalmark") or got.startswith(f"{name or 'evalmark'} #")
    finally:
        REGISTRY.pop(frame)


def _reports(groups: list[list[bool]]) -> list[Any]:
    from evalmark.engine._scorer import Scorer

    scorer = Scorer(concurrency=1)
    return [
        scorer.evaluate(samples_of(g), answer, ExactMatch(), Contains("y"), name=f"r{i}")
        for i, g in enumerate(groups)
    ]


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(VERDICTS, min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_the_session_suite_report_does_not_depend_on_registration_order(
    groups: list[list[bool]], random: Any
) -> None:
    frame = _frame()
    try:
        reports = _reports(groups)
        for i, report in enumerate(reports):
            REGISTRY.add(report, f"test_{i}")
        first = REGISTRY.entries()
    finally:
        REGISTRY.pop(frame)
    shuffled = list(first)
    random.shuffle(shuffled)
    one, other = suite_of(first), suite_of(shuffled)
    assert render_report(one, "json") == render_report(other, "json")
    assert render_report(one, "md") == render_report(other, "md")


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(VERDICTS, min_size=1, max_size=3))
def test_the_score_line_counts_checks_and_cases_as_the_reports_do(
    groups: list[list[bool]],
) -> None:
    frame = _frame()
    try:
        for i, report in enumerate(_reports(groups)):
            REGISTRY.add(report, f"test_{i}")
        line = score_text(REGISTRY.entries())
    finally:
        REGISTRY.pop(frame)
    cases = sum(len(g) for g in groups)
    passed = sum(sum(g) for g in groups)
    # each case runs two checks: exact match passes on "yes"; contains "y" on "yes" only too
    assert f"({2 * passed} of {2 * cases} checks)" in line
    assert f"{passed} of {cases} cases passed" in line
    assert line.endswith("no gate")


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4, unique=True))
def test_strategy_test_makes_one_test_per_check_named_by_the_check(names: list[str]) -> None:
    checks = [Contains(n) for n in names]
    mark = strategy_test(*checks).mark
    assert mark.args[0] == "strategy"
    assert list(mark.args[1]) == checks
    assert len(mark.kwargs["ids"]) == len(checks)
