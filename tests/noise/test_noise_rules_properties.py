"""Properties of the noise package's small rules: the k-of-n rule and its gates, threshold
parsing, p-value adjustment, the Wilson interval, the Rogan–Gladen correction, McNemar's test,
the flip rate read from a disagreement rate, and whether ``tune``'s recommended gate itself is
monotone in the flip rate."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.noise._compare import mcnemar_exact
from evalmark.noise._correction import corrected_pass_rate
from evalmark.noise._estimate import flip_rate_from_disagreement, wilson_interval
from evalmark.noise._gates import make_gates, min_passing, parse_threshold, passes
from evalmark.noise._multiple import adjust_p_values

RATES = st.floats(0.0, 1.0)
P_VALUES = st.lists(RATES, min_size=1, max_size=12)


@settings(max_examples=examples(300))
@given(RATES, st.integers(1, 200))
def test_min_passing_is_the_smallest_count_whose_quotient_meets_the_threshold(
    t: float, cases: int
) -> None:
    k = min_passing(t, cases)
    assert 0 <= k <= cases
    assert k / cases >= t or k == cases
    assert k == 0 or (k - 1) / cases < t


@settings(max_examples=examples(300))
@given(RATES, RATES, st.integers(0, 200))
def test_min_passing_never_falls_as_the_threshold_rises(a: float, b: float, cases: int) -> None:
    low, high = sorted((a, b))
    assert min_passing(low, cases) <= min_passing(high, cases)


@settings(max_examples=examples(300))
@given(st.integers(0, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), RATES)
def test_passes_is_the_quotient_meeting_the_threshold_and_monotone_in_passes(
    drawn: tuple[int, int], t: float
) -> None:
    passed, total = drawn
    verdict = passes(passed, total, t)
    assert verdict == (total > 0 and passed / total >= t)
    if verdict and passed < total:
        assert passes(passed + 1, total, t)


@settings(max_examples=examples(200))
@given(st.integers(1, 60), st.lists(RATES, min_size=1, max_size=8))
def test_each_gate_names_exactly_the_other_thresholds_demanding_its_count(
    cases: int, thresholds: list[float]
) -> None:
    gates = make_gates(cases, thresholds)
    assert [g.threshold for g in gates] == thresholds
    for gate in gates:
        assert gate.min_passing == min_passing(gate.threshold, cases)
        same = [
            t
            for t in thresholds
            if min_passing(t, cases) == gate.min_passing and t != gate.threshold
        ]
        assert list(gate.same_gate_as) == same


@settings(max_examples=examples(200))
@given(RATES, st.sampled_from(["", " ", "\t"]), st.booleans())
def test_a_threshold_reads_back_from_its_text_and_its_percentage(
    t: float, pad: str, percent: bool
) -> None:
    text = f"{t * 100!r}%" if percent else repr(t)
    value = parse_threshold(pad + text + pad)
    assert value == pytest.approx(t, abs=1e-12) if percent else value == t
    assert parse_threshold(pad + "EVERY" + pad) == 1.0


@settings(max_examples=examples(200))
@given(st.floats(allow_nan=True).filter(lambda x: not 0.0 <= x <= 1.0))
def test_a_threshold_outside_zero_to_one_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        parse_threshold(repr(value))


@settings(max_examples=examples(200))
@given(P_VALUES, st.sampled_from(["holm", "bh"]), st.randoms(use_true_random=False))
def test_adjusted_p_values_bound_their_p_values_keep_their_order_and_follow_a_permutation(
    ps: list[float], method: str, rng: object
) -> None:
    adjusted = adjust_p_values(ps, method)  # type: ignore[arg-type]
    for p, q in zip(ps, adjusted, strict=True):
        assert p <= q <= 1.0
    for i, p in enumerate(ps):
        for j, r in enumerate(ps):
            if p < r:
                assert adjusted[i] <= adjusted[j]
    order = list(range(len(ps)))
    rng.shuffle(order)  # type: ignore[attr-defined]
    shuffled = adjust_p_values([ps[i] for i in order], method)  # type: ignore[arg-type]
    assert shuffled == [adjusted[i] for i in order]


@settings(max_examples=examples(200))
@given(P_VALUES)
def test_holm_never_adjusts_below_benjamini_hochberg(ps: list[float]) -> None:
    for holm, bh in zip(adjust_p_values(ps, "holm"), adjust_p_values(ps, "bh"), strict=True):
        assert holm >= bh - 1e-15


@settings(max_examples=examples(200))
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_wilson_interval_holds_the_rate_and_narrows_with_four_times_the_trials(
    drawn: tuple[int, int],
) -> None:
    passed, trials = drawn
    rate = passed / trials
    low, high = wilson_interval(rate, trials)
    assert 0.0 <= low <= rate <= high <= 1.0
    low4, high4 = wilson_interval(rate, 4 * trials)
    assert high4 - low4 <= high - low + 1e-12


@settings(max_examples=examples(200))
@given(RATES, st.floats(0.0, 0.45), st.floats(0.0, 0.45))
def test_the_correction_inverts_the_judges_errors(true: float, fp: float, ff: float) -> None:
    observed = fp + (1.0 - fp - ff) * true
    assert corrected_pass_rate(observed, fp, ff) == pytest.approx(true, abs=1e-9)
    assert corrected_pass_rate(true, 0.0, 0.0) == true


@settings(max_examples=examples(200))
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=40))
def test_mcnemar_counts_every_pair_and_is_symmetric_in_the_builds(
    pairs: list[tuple[bool, bool]],
) -> None:
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    forward = mcnemar_exact(a, b)
    backward = mcnemar_exact(b, a)
    assert forward.both_passed + forward.both_failed + forward.worse + forward.better == len(pairs)
    assert (forward.worse, forward.better) == (backward.better, backward.worse)
    assert forward.p_value == backward.p_value
    assert 0.0 < forward.p_value <= 1.0
    if forward.worse == forward.better:
        assert forward.p_value == 1.0


@settings(max_examples=examples(200))
@given(st.integers(2, 10), st.floats(0.0, 1.0))
def test_the_flip_rate_is_read_back_from_the_disagreement_it_causes(
    grades: int, share: float
) -> None:
    a = grades / (grades - 1)
    p = share / a  # the flip rates up to a random judge's
    disagreement = 2 * p - a * p * p
    assert flip_rate_from_disagreement(disagreement, grades) == pytest.approx(p, abs=1e-6)
    assert not math.isnan(flip_rate_from_disagreement(1.0, grades))
