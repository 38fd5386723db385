"""Threshold tuning: tables, recommendation and the number of cases needed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.noise import (
    BuildTruth,
    Case,
    Check,
    ErrorRates,
    JudgeRates,
    RateCounts,
    builds_from_counts,
    gate_risk,
    tune,
)
from evalmark.noise._render import render_text, report_to_dict
from evalmark.noise._tuning import cases_needed, scaled_kind_counts


def test_table_rows_carry_exact_risks_and_simulated_counts() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.03], thresholds=[1.0, 0.9, 0.85, 0.8], runs=2000)
    (level,) = report.levels
    rows = {row.gate.threshold: row for row in level.rows}
    assert round(rows[1.0].healthy_fails, 4) == 0.5186
    assert round(rows[0.9].healthy_fails, 4) == 0.1557
    assert rows[0.85].gate.same_gate_as == (0.9,)
    exact_regressed = {r.gate.threshold: r.fails for r in gate_risk(regressed, 0.03, [0.8])}
    assert rows[0.8].regressed_fails == exact_regressed[0.8]
    assert rows[0.8].miss == pytest.approx(1 - exact_regressed[0.8])
    for row in level.rows:
        assert row.healthy_simulated is not None and row.regressed_simulated is not None
        assert 0 <= row.healthy_simulated <= 2000


def test_recommendation_keeps_false_alarms_under_target_and_catches_most() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.03, 0.08], runs=0, max_false_alarm=0.05)
    low, high = report.levels
    assert low.recommendation.gate is not None
    assert low.recommendation.gate.min_passing == 10
    assert low.recommendation.false_alarm == pytest.approx(0.030358, abs=1e-6)
    allowed = [row for row in low.rows if row.healthy_fails <= 0.05]
    assert low.recommendation.miss == min(row.miss for row in allowed)
    assert high.recommendation.gate is not None
    assert high.recommendation.gate.min_passing == 8
    assert not high.recommendation.meets_max_miss


def test_no_recommendation_when_every_candidate_alarms_too_often() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.08], thresholds=[1.0, 0.9], runs=0)
    recommendation = report.levels[0].recommendation
    assert recommendation.gate is None
    assert "recommended: none" in render_text(report)


def test_default_gates_leave_out_only_uninformative_ones() -> None:
    healthy, regressed = builds_from_counts(100, 2, failing=10)
    report = tune(healthy, regressed, [0.1], runs=0)
    (level,) = report.levels
    shown = {row.gate.min_passing for row in level.rows}
    assert level.rows[0].gate.min_passing == 100
    assert len(shown) + level.omitted == 100
    for risk_h, risk_r in zip(gate_risk(healthy, 0.1), gate_risk(regressed, 0.1), strict=True):
        k = risk_h.gate.min_passing
        informative = (
            max(risk_h.fails, risk_r.fails) >= 5e-5 and min(risk_h.fails, risk_r.fails) <= 1 - 5e-5
        )
        assert (k in shown) == (informative or k == 100)


def test_simulation_is_skipped_with_zero_runs_and_reproducible_otherwise() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    skipped = tune(healthy, regressed, [0.05], runs=0)
    assert all(row.healthy_simulated is None for row in skipped.levels[0].rows)
    a = tune(healthy, regressed, [0.05], runs=500, seed=3)
    b = tune(healthy, regressed, [0.05], runs=500, seed=3, workers=1)
    assert a == b


def test_scaled_kind_counts_keep_the_mix_and_never_shrink() -> None:
    assert scaled_kind_counts([9, 3], 12) == (9, 3)
    assert scaled_kind_counts([9, 3], 4) == (3, 1)
    previous: tuple[int, ...] = (0, 0, 0)
    for n in range(1, 60):
        counts = scaled_kind_counts([5, 2, 1], n)
        assert sum(counts) == n
        assert all(a >= b for a, b in zip(counts, previous, strict=True))
        assert all(abs(c - share * n / 8) < 1 for c, share in zip(counts, [5, 2, 1], strict=True))
        previous = counts


@given(counts=st.lists(st.integers(1, 9), min_size=1, max_size=5))
def test_scaled_kind_counts_at_the_suite_size_are_the_suite(counts: list[int]) -> None:
    assert scaled_kind_counts(counts, sum(counts)) == tuple(counts)


def brute_force_cases_needed(
    cases: int, judged: int, failing: int, p: float, alarm: float, miss: float, limit: int
) -> int | None:
    """Rebuild every scaled suite from counts and try every gate with gate_risk."""
    for n in range(1, limit + 1):
        _, f = scaled_kind_counts([cases - failing, failing], n)
        healthy, regressed = builds_from_counts(n, judged, failing=f)
        for h, r in zip(gate_risk(healthy, p), gate_risk(regressed, p), strict=True):
            if h.fails <= alarm and 1 - r.fails <= miss:
                return n
    return None


@pytest.mark.parametrize(
    ("cases", "judged", "failing", "p", "alarm", "miss"),
    [
        (12, 2, 3, 0.03, 0.05, 0.05),
        (12, 2, 3, 0.08, 0.05, 0.05),
        (12, 2, 3, 0.08, 0.05, 0.2),
        (10, 1, 5, 0.1, 0.01, 0.01),
        (20, 3, 2, 0.02, 0.1, 0.1),
    ],
)
def test_cases_needed_is_the_smallest_scaled_suite_some_gate_works_for(
    cases: int, judged: int, failing: int, p: float, alarm: float, miss: float
) -> None:
    healthy, regressed = builds_from_counts(cases, judged, failing=failing)
    found = cases_needed(healthy, regressed, p, alarm, miss, max_cases=80)
    assert found.cases == brute_force_cases_needed(cases, judged, failing, p, alarm, miss, 80)
    if found.cases is not None:
        assert found.false_alarm is not None and found.false_alarm <= alarm
        assert found.miss is not None and found.miss <= miss


def test_cases_needed_says_when_the_search_limit_is_reached() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=1)
    found = cases_needed(healthy, regressed, 0.3, 0.001, 0.001, max_cases=50)
    assert found.cases is None and found.searched_up_to == 50
    text = render_text(
        tune(healthy, regressed, [0.3], runs=0, max_false_alarm=0.001, max_miss=0.001, max_cases=50)
    )
    assert "more than 50" in text


def test_cases_needed_scales_a_suite_of_mixed_cases() -> None:
    healthy = BuildTruth(
        (
            Case("a", (Check("j", True, judged=True),)),
            Case("b", (Check("j", True, judged=True), Check("k", True, judged=True))),
        )
    )
    regressed = BuildTruth(
        (
            Case("a", (Check("j", False, judged=True),)),
            Case("b", (Check("j", True, judged=True), Check("k", True, judged=True))),
        )
    )
    found = cases_needed(healthy, regressed, 0.05, 0.05, 0.05, max_cases=200)
    assert found.cases is not None and found.cases > 2


def test_tune_checks_its_arguments() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    other, _ = builds_from_counts(10, 2)
    with pytest.raises(ValueError, match="same suite: they have 12 and 10 cases"):
        tune(healthy, other, [0.03])
    with pytest.raises(ValueError, match="noise must name at least one noise level"):
        tune(healthy, regressed, [])
    with pytest.raises(ValueError, match=r"each noise level \(a flip rate\) must be a probability"):
        tune(healthy, regressed, [1.5])
    with pytest.raises(ValueError, match="max_false_alarm must be a probability"):
        tune(healthy, regressed, [0.1], max_false_alarm=-1)
    with pytest.raises(ValueError, match="runs must be an integer ≥ 0"):
        tune(healthy, regressed, [0.1], runs=-5)


def test_report_to_dict_holds_every_row_and_the_advice() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.03], thresholds=[1.0, 0.9, 0.85], runs=100, seed=4)
    data = report_to_dict(report)
    assert data["cases"] == 12 and data["judged_checks"] == 24
    assert data["regressed_failing_cases"] == 3 and data["runs"] == 100 and data["seed"] == 4
    (level,) = data["levels"]
    assert [g["threshold"] for g in level["gates"]] == [1.0, 0.9, 0.85]
    assert level["gates"][2]["same_gate_as"] == [0.9]
    assert level["gates"][0]["healthy_fails"] == pytest.approx(1 - 0.97**24)
    assert level["cases_needed"]["searched_up_to"] == 5000
    assert level["recommendation"] is None or "threshold" in level["recommendation"]


# --------------------------------------------------------------------------- the new views


def test_repeat_options_cost_judge_calls_and_the_cheapest_meeting_one_is_chosen() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.08], repeats=(1, 3, 5), runs=0)
    (level,) = report.levels
    assert [o.repeats for o in level.options] == [1, 3, 5]
    assert [o.judge_calls for o in level.options] == [24, 72, 120]
    assert not level.options[0].recommendation.meets  # 1 call: no gate meets both limits
    assert level.choice is not None and level.choice.repeats == 3
    three = level.options[1].recommendation
    assert three.gate is not None
    exact = {r.gate.min_passing: r.fails for r in gate_risk(healthy, 0.08, repeats=3)}
    assert three.false_alarm == pytest.approx(exact[three.gate.min_passing])
    assert level.options[0].recommendation == level.recommendation


def test_correlated_levels_carry_the_independent_comparison() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    rates = ErrorRates(0.1, 0.04, 0.3)
    report = tune(healthy, regressed, [rates, 0.04], runs=0)
    correlated, plain = report.levels
    assert plain.independent_rows == () and plain.flip_rate == 0.04
    assert correlated.flip_rate is None
    independent = {r.gate.min_passing: r.fails for r in gate_risk(healthy, rates.independent)}
    for row in correlated.independent_rows:
        assert row.healthy_fails == pytest.approx(independent[row.gate.min_passing])
    # errors clinging to cases leave more cases wholly right: fewer false alarms here
    assert correlated.rows[0].healthy_fails < correlated.independent_rows[0].healthy_fails


def test_measured_rates_give_intervals_and_the_suite_gate_is_always_shown() -> None:
    healthy, regressed = builds_from_counts(40, 1, failing=2)
    measured = JudgeRates(RateCounts(5, 50), RateCounts(1, 200))
    report = tune(healthy, regressed, [measured], current_gate=0.05, runs=0)
    (level,) = report.levels
    assert level.rates == measured.rates and level.measured is measured
    assert any(row.gate.min_passing == 2 for row in level.rows)  # uninformative, but the suite's
    assert [u.gate for u in level.uncertainty] == [row.gate for row in level.rows]
    for u in level.uncertainty:  # (a skewed risk's mean may lie beyond its 95% interval)
        assert 0.0 <= u.false_alarm.low <= u.false_alarm.high <= 1.0
        assert 0.0 <= u.miss.low <= u.miss.high <= 1.0


@given(n=st.integers(1, 500), t=st.floats(0.0, 1.0))
def test_suite_threshold_names_the_same_gate(n: int, t: float) -> None:
    from evalmark.noise._gates import make_gates, min_passing
    from evalmark.noise._render import suite_threshold

    (gate,) = make_gates(n, [t])
    if gate.min_passing == 0:
        return
    text = suite_threshold(gate)
    assert min_passing(float(text), n) == gate.min_passing
    assert len(text) <= 8


def test_text_says_not_met_first_and_what_would_meet_the_limits() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.08], repeats=(1, 3), current_gate=0.9, runs=0)
    text = render_text(report, judged_names=("relevancy", "groundedness"))
    verdict = text[text.index("NOT MET") :].splitlines()
    assert verdict[0].startswith("NOT MET: no gate keeps false alarm ≤ 0.05 and miss ≤ 0.05")
    assert verdict[1] == "what would meet them:"
    assert verdict[2].startswith("  the majority of 3 calls per judged check with")
    assert "40 cases of the same mix, gating on ≥30/40 (about 80 judge calls" in verdict[3]
    assert verdict[4].startswith("best gate meanwhile: pass rate≥0.6667")
    assert "to apply in suite.yaml: gate: {pass-rate: 0.8}, and repeats: 3 on relevancy and" in text
    marked = [line for line in text.splitlines() if line.endswith("← suite gate")]
    assert len(marked) == 1 and marked[0].startswith("pass rate≥0.9167  ≥11/12")


def test_text_for_met_limits_keeps_the_recommendation_lines() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    report = tune(healthy, regressed, [0.03], runs=0)
    text = render_text(report)
    assert "NOT MET" not in text
    assert "recommended: pass rate≥0.8333 (≥10/12 cases pass)\n  false alarm 0.0304" in text
    assert "to apply in suite.yaml: gate: {pass-rate: 0.8}" in text


def test_correlated_and_uncertainty_views_in_text_and_json() -> None:
    healthy, regressed = builds_from_counts(12, 2, failing=3)
    measured = JudgeRates(RateCounts(10, 100), RateCounts(3, 100), 0.3)
    report = tune(healthy, regressed, [measured], repeats=(1, 3), current_gate=0.9, runs=0)
    text = render_text(report)
    assert "correlated errors (overdispersion 0.3" in text
    assert "the independent model overstates the false alarm" in text
    assert "uncertainty: the rates are counts (false pass 10/100, false fail 3/100)" in text
    assert "the suite's gate (pass-rate 0.9, ≥11/12) fails a healthy build" in text
    assert "if independent: false alarm / miss" in text
    data = report_to_dict(report)
    level = data["levels"][0]
    assert level["measured"]["false_pass"] == {"errors": 10, "trials": 100}
    assert len(level["independent"]) == len(level["gates"]) == len(level["uncertainty"])
    assert [o["repeats"] for o in level["repeat_options"]] == [1, 3]
    assert data["current_min_passing"] == 11
