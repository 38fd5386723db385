"""Exact gate risk against closed forms and brute-force enumeration of every flip pattern."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.noise import BuildTruth, Case, Check, builds_from_counts, gate_risk
from evalmark.noise._exact import case_pass_probabilities, passing_distribution
from evalmark.noise._gates import make_gates, min_passing, parse_threshold


def risks(suite: BuildTruth, p: float | None, thresholds: list[float]) -> dict[float, float]:
    return {r.gate.threshold: r.fails for r in gate_risk(suite, p, thresholds)}


def test_issue_values_for_twelve_cases_of_two_judged_checks() -> None:
    healthy, _ = builds_from_counts(12, 2)
    fails = risks(healthy, 0.03, [1.0, 0.9, 0.85, 0.8])
    assert fails[1.0] == pytest.approx(1 - 0.97**24, abs=1e-12)
    assert round(fails[1.0], 6) == 0.518583
    assert round(fails[0.9], 6) == 0.155716
    assert round(fails[0.8], 6) == 0.030358
    assert fails[0.85] == fails[0.9]


def test_twelve_cases_name_085_and_090_as_the_same_gate() -> None:
    gates = {g.threshold: g for g in make_gates(12, [1.0, 0.9, 0.85, 0.8])}
    assert gates[0.9].min_passing == gates[0.85].min_passing == 11
    assert gates[0.9].same_gate_as == (0.85,)
    assert gates[0.85].same_gate_as == (0.9,)
    assert gates[0.8].same_gate_as == ()
    assert gates[1.0].label == "every case"
    assert gates[0.9].label == "pass rate≥0.90"


@given(
    n=st.integers(1, 40),
    judged=st.integers(1, 4),
    p=st.floats(0.0, 1.0),
    t=st.floats(0.0, 1.0),
)
def test_homogeneous_suite_matches_the_binomial_closed_form(
    n: int, judged: int, p: float, t: float
) -> None:
    healthy, _ = builds_from_counts(n, judged)
    q = (1 - p) ** judged
    k = min_passing(t, n)
    expected = math.fsum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(k))
    assert risks(healthy, p, [t])[t] == pytest.approx(expected, abs=1e-12)


checks = st.builds(
    Check,
    name=st.just("c"),
    passes=st.booleans(),
    judged=st.booleans(),
    flip_rate=st.one_of(st.none(), st.floats(0.0, 1.0)),
)
small_suites = st.lists(st.lists(checks, min_size=1, max_size=3), min_size=1, max_size=4).filter(
    lambda cases: sum(c.judged for case in cases for c in case) <= 9
)


@given(cases=small_suites, p=st.floats(0.0, 1.0))
def test_every_gate_matches_brute_force_enumeration_of_flips(
    cases: list[list[Check]], p: float
) -> None:
    suite = BuildTruth(tuple(Case(f"case-{i}", tuple(c)) for i, c in enumerate(cases)))
    judged = [(i, j) for i, case in enumerate(cases) for j, c in enumerate(case) if c.judged]
    n = len(cases)
    pmf = [0.0] * (n + 1)
    for pattern in itertools.product((False, True), repeat=len(judged)):
        flipped = dict(zip(judged, pattern, strict=True))
        weight = 1.0
        for (i, j), f in flipped.items():
            own = cases[i][j].flip_rate
            rate = own if own is not None else p
            weight *= rate if f else 1 - rate
        passing = sum(
            all(c.passes != flipped.get((i, j), False) for j, c in enumerate(case))
            for i, case in enumerate(cases)
        )
        pmf[passing] += weight
    for risk in gate_risk(suite, p):
        expected = math.fsum(pmf[: risk.gate.min_passing])
        assert risk.fails == pytest.approx(expected, abs=1e-12)


@given(probabilities=st.lists(st.floats(0.0, 1.0), max_size=30))
def test_passing_distribution_is_a_distribution_with_the_right_mean(
    probabilities: list[float],
) -> None:
    pmf = passing_distribution(probabilities)
    assert len(pmf) == len(probabilities) + 1
    assert (pmf >= 0).all()
    assert math.fsum(pmf) == pytest.approx(1.0, abs=1e-12)
    mean = math.fsum(k * x for k, x in enumerate(pmf))
    assert mean == pytest.approx(math.fsum(probabilities), abs=1e-9)


@given(n=st.integers(1, 500), t=st.floats(0.0, 1.0))
def test_min_passing_is_the_smallest_count_reaching_the_threshold(n: int, t: float) -> None:
    k = min_passing(t, n)
    assert k / n >= t
    assert k == 0 or (k - 1) / n < t


def test_min_passing_has_no_floating_point_surprises() -> None:
    assert min_passing(0.3, 10) == 3
    assert min_passing(0.7, 10) == 7
    assert min_passing(0.9, 12) == 11
    assert min_passing(0.0, 12) == 0
    assert min_passing(1.0, 12) == 12


def test_default_gates_list_every_distinct_gate_strictest_first() -> None:
    gates = make_gates(5)
    assert [g.min_passing for g in gates] == [5, 4, 3, 2, 1]
    assert all(g.same_gate_as == () for g in gates)


def test_deterministic_checks_are_not_flipped() -> None:
    suite = BuildTruth(
        (
            Case("a", (Check("exact", True), Check("judge", True, judged=True))),
            Case("b", (Check("exact", False), Check("judge", True, judged=True))),
            Case("c", (Check("exact", True),)),
        )
    )
    assert case_pass_probabilities(suite, 0.1) == pytest.approx((0.9, 0.0, 1.0))
    fails = risks(suite, 0.1, [1.0, 2 / 3, 1 / 3])
    assert fails[1.0] == 1.0
    assert fails[2 / 3] == pytest.approx(0.1)
    assert fails[1 / 3] == 0.0


def test_a_truly_failing_judged_check_passes_only_when_flipped() -> None:
    suite = BuildTruth(
        (Case("a", (Check("j", False, judged=True), Check("k", True, judged=True))),)
    )
    assert case_pass_probabilities(suite, 0.2) == pytest.approx((0.2 * 0.8,))


def test_a_check_with_its_own_flip_rate_ignores_the_level() -> None:
    own = BuildTruth((Case("a", (Check("j", True, judged=True, flip_rate=0.5),)),))
    assert case_pass_probabilities(own, 0.01) == (0.5,)
    assert case_pass_probabilities(own) == (0.5,)


def test_a_judged_check_without_any_flip_rate_is_named_in_the_error() -> None:
    suite = BuildTruth((Case("refund", (Check("polite", True, judged=True),)),))
    with pytest.raises(ValueError, match=r"'polite' of case 'refund'.*flip_rate="):
        gate_risk(suite)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_flip_rate_outside_zero_one_is_refused(bad: float) -> None:
    healthy, _ = builds_from_counts(3, 1)
    with pytest.raises(ValueError, match=r"flip rate.* must be a probability"):
        gate_risk(healthy, bad)


def test_threshold_outside_zero_one_is_refused() -> None:
    healthy, _ = builds_from_counts(3, 1)
    with pytest.raises(ValueError, match="threshold must be a pass rate between 0 and 1"):
        gate_risk(healthy, 0.1, [1.2])


def test_parse_threshold_reads_words_percentages_and_numbers() -> None:
    assert parse_threshold("every") == 1.0
    assert parse_threshold(" 90% ") == 0.9
    assert parse_threshold("0.85") == 0.85
    with pytest.raises(ValueError, match="'ninety' is not a number"):
        parse_threshold("ninety")


def test_builds_from_counts_spreads_the_failing_cases_and_checks_arguments() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3, deterministic_checks=1)
    assert healthy.truly_failing_cases == 0
    assert regressed.truly_failing_cases == 3
    assert healthy.judged_checks == regressed.judged_checks == 24
    broken = [i for i, case in enumerate(regressed.cases) if not all(c.passes for c in case.checks)]
    assert broken == [2, 6, 10]
    with pytest.raises(ValueError, match=r"failing must be at most cases \(12\)"):
        builds_from_counts(12, 2, failing=13)
    with pytest.raises(ValueError, match="cases must be an integer ≥ 1"):
        builds_from_counts(0, 2)
    with pytest.raises(ValueError, match="at least one check"):
        builds_from_counts(3, 0)


def test_suite_from_verdicts_groups_rows_by_case_in_first_seen_order() -> None:
    suite = BuildTruth.from_verdicts(
        [("b", "x", True, False), ("a", "y", False, True), ("b", "z", True, True)]
    )
    assert [c.name for c in suite.cases] == ["b", "a"]
    assert [ch.name for ch in suite.cases[0].checks] == ["x", "z"]
    assert suite.cases[1].checks[0] == Check("y", False, judged=True)
    assert (
        BuildTruth.from_mapping(
            {"b": {"x": (True, False), "z": (True, True)}, "a": {"y": (False, True)}}
        )
        == suite
    )
    with pytest.raises(ValueError, match="at least one case"):
        BuildTruth(())
