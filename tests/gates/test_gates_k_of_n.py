"""The one k-of-n rule (``evalmark.noise._gates.min_passing`` / ``passes``) and every gate that
uses it: suite gates, ``require_pass_rate``, ``assert_that``, ``require_suite_pass_rate``,
pytest's ``min_pass_rate``, ``evalmark tune``'s gates. They must all agree at every float
boundary."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.gates import assert_that, require_pass_rate, require_suite_pass_rate
from evalmark.gates._rules import check_cases, check_fraction, drop_exceeds
from evalmark.noise._gates import make_gates, min_passing, passes
from evalmark.report import Report, SuiteReport
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.suite._model import GateSpec
from evalmark.suite._runner import check_gate


def report_of(passed: int, total: int, name: str = "r") -> Report:
    """A report of ``total`` samples and one check, the first ``passed`` of them passing."""
    results = [
        EvaluationResult.passing(1.0) if i < passed else EvaluationResult.failing(0.0, "wrong")
        for i in range(total)
    ]
    return Report(
        name=name,
        sample_names=[f"s{i}" for i in range(total)],
        sample_tags=[("t",)] * total,
        columns={"check": ResultColumn.from_results(results)},
    )


def boundaries(k: int, n: int) -> list[tuple[float, int]]:
    """Thresholds at and around k/n with the number of passing cases each one needs."""
    at = k / n
    cases = [(at, k)]
    if k < n:
        cases.append((math.nextafter(at, math.inf), k + 1))
    if k > 0:
        cases.append((math.nextafter(at, -math.inf), k))
    return cases


def test_the_reported_example_needs_two_of_three_everywhere() -> None:
    t = 0.3333333333334
    assert min_passing(t, 3) == 2
    assert not passes(1, 3, t) and passes(2, 3, t)
    assert make_gates(3, [t])[0].min_passing == 2
    one, two = report_of(1, 3), report_of(2, 3)
    assert not check_cases([one], pass_rate=t)[0].passed
    assert check_cases([two], pass_rate=t)[0].passed
    assert not check_gate(GateSpec(pass_rate=t), [one])[0].passed
    with pytest.raises(
        AssertionError, match=r"pass rate \(cases\): 33\.3% is below the required 33\.3%"
    ):
        require_pass_rate(one, t)
    require_pass_rate(two, t)
    with pytest.raises(AssertionError):
        assert_that(one).has_pass_rate(t)
    with pytest.raises(AssertionError):
        require_suite_pass_rate(SuiteReport([one]), t)


@pytest.mark.parametrize("n", range(1, 51))
def test_min_passing_at_the_float_boundaries_of_every_k_of_n(n: int) -> None:
    assert min_passing(0.0, n) == 0
    assert min_passing(1.0, n) == n
    for k in range(n + 1):
        for threshold, needed in boundaries(k, n):
            assert min_passing(threshold, n) == needed, (k, n, threshold)
            assert passes(needed, n, threshold)
            assert needed == 0 or not passes(needed - 1, n, threshold)


@pytest.mark.parametrize("n", [*range(1, 13), 25, 50])
def test_every_gate_agrees_with_the_rule_at_the_boundaries(n: int) -> None:
    ks = range(n + 1) if n <= 12 else sorted({0, 1, 2, n // 3, n // 2, n - 2, n - 1, n})
    near = {j for k in ks for j in (k - 1, k, k + 1) if 0 <= j <= n}
    thresholds = {t for j in near for t in boundaries(j, n)}
    for k in ks:
        report = report_of(k, n)
        for threshold, needed in thresholds:
            expected = k >= needed
            assert passes(k, n, threshold) is expected
            assert check_cases([report], pass_rate=threshold)[0].passed is expected
            tag_gate = check_cases([report], tags={"t": threshold})[0]
            assert tag_gate.passed is expected
            try:
                require_pass_rate(report, threshold)
                held = True
            except AssertionError:
                held = False
            assert held is expected, (k, n, threshold)
            try:
                require_suite_pass_rate(SuiteReport([report]), threshold)
                held = True
            except AssertionError:
                held = False
            assert held is expected
            gate = make_gates(n, [threshold])[0]
            assert (k >= gate.min_passing) is expected


@given(st.integers(1, 400), st.floats(0.0, 1.0))
def test_min_passing_is_the_smallest_count_whose_rate_reaches_the_threshold(
    n: int, t: float
) -> None:
    k = min_passing(t, n)
    assert k / n >= t
    assert k == 0 or (k - 1) / n < t
    # the float quotient decides; exact arithmetic can differ only where a rounding of k/n
    # lies on the other side of t, so by one case at most
    exact = math.ceil(Fraction(t) * n)
    assert abs(k - exact) <= 1


def test_a_gate_with_no_cases_never_passes() -> None:
    assert min_passing(0.5, 0) == 0
    assert not passes(0, 0, 0.0)
    empty = check_cases([report_of(0, 2)], tags={"missing": 0.0})[0]
    assert not empty.passed and empty.detail == "no case has this tag"


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf])
def test_thresholds_outside_zero_to_one_are_refused(bad: float) -> None:
    with pytest.raises(ValueError):
        min_passing(bad, 10)
    with pytest.raises(ValueError):
        require_pass_rate(report_of(1, 2), bad)
    with pytest.raises(ValueError):
        require_suite_pass_rate(SuiteReport([report_of(1, 2)]), bad)


def test_check_fraction_names_the_value_and_suggests_a_fraction() -> None:
    assert check_fraction(1, "x") == 1.0
    with pytest.raises(ValueError, match=r"--max-drop is a fraction .*got 5; did you mean 0.05\?"):
        check_fraction(5, "--max-drop", "0.05 for 5 points")
    with pytest.raises(TypeError, match="min_pass_rate must be a number"):
        check_fraction("0.9", "min_pass_rate")
    with pytest.raises(TypeError):
        check_fraction(True, "min_pass_rate")


def test_drop_exceeds_allows_exactly_the_allowed_drop() -> None:
    assert not drop_exceeds(0.9, 0.85, 0.05)  # 0.05000000000000004 in binary
    assert drop_exceeds(0.9, 0.84, 0.05)
    assert not drop_exceeds(0.5, 0.9, 0.0)
    assert drop_exceeds(1 / 3, 0.0, 1 / 3 - 1e-9)


def test_an_errored_case_fails_the_gate_whatever_the_rate() -> None:
    errored = EvaluationResult.from_error("function", RuntimeError("boom"))
    report = Report(
        name="r",
        sample_names=["a", "b"],
        sample_tags=[(), ()],
        columns={"check": ResultColumn.from_results([EvaluationResult.passing(1.0), errored])},
    )
    gates = {g.label: g for g in check_cases([report], pass_rate=0.0)}
    assert not gates["errors"].passed and gates["errors"].detail == "errored: b"
    assert gates["pass rate (cases)"].passed
