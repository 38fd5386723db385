"""Properties of production monitoring: which calls a monitor scores depends on the seed, the
rate and the call's number alone (the same in any order of asking, nothing at rate 0, every call
at rate 1, near the rate over a block), a request key picked at one rate is picked at every
higher rate, and every picked call is scored once and reported to the tracer."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.strategies import Contains
from evalmark.telemetry import RecordingTracer
from evalmark.telemetry._picking import IN_BLOCK, CallPicker
from evalmark.telemetry._sampling import Monitor

SEEDS = st.integers(-(2**70), 2**70)
RATES = st.floats(0, 1) | st.sampled_from([0.0, 1e-9, 0.001, 0.5, 0.999, 1.0])
INDICES = st.lists(st.integers(0, 2**40), max_size=30)
KEYS = st.one_of(st.text(max_size=8), st.integers(), st.tuples(st.text(max_size=3), st.integers()))


@settings(max_examples=examples(60), deadline=None)
@given(RATES, SEEDS, INDICES, st.randoms(use_true_random=False))
def test_a_pick_depends_on_seed_rate_and_index_alone_not_on_the_order_of_asking(
    rate: float, seed: int, indices: list[int], random: Any
) -> None:
    first = [CallPicker(rate, seed).picks(i) for i in indices]
    shuffled = list(enumerate(indices))
    random.shuffle(shuffled)
    other = CallPicker(rate, seed)
    again = dict((n, other.picks(i)) for n, i in shuffled)
    assert [again[n] for n in range(len(indices))] == first


@settings(max_examples=examples(40), deadline=None)
@given(SEEDS, INDICES, st.lists(KEYS, max_size=10))
def test_rate_zero_picks_nothing_and_rate_one_picks_everything(
    seed: int, indices: list[int], keys: list[Any]
) -> None:
    never, always = CallPicker(0.0, seed), CallPicker(1.0, seed)
    assert not any(never.picks(i) for i in indices)
    assert not any(never.picks(0, k) for k in keys)
    assert all(always.picks(i) for i in indices)
    assert all(always.picks(0, k) for k in keys)


@settings(max_examples=examples(60), deadline=None)
@given(SEEDS, RATES, RATES, st.lists(KEYS, min_size=1, max_size=20))
def test_a_request_key_picked_at_one_rate_is_picked_at_every_higher_rate(
    seed: int, a: float, b: float, keys: list[Any]
) -> None:
    low, high = CallPicker(min(a, b), seed), CallPicker(max(a, b), seed)
    for key in keys:
        assert not low.picks(0, key) or high.picks(0, key)
        assert low.picks(0, key) == low.picks(12345, key)  # the key alone decides


@settings(max_examples=examples(20), deadline=None)
@given(SEEDS, st.floats(0.01, 0.99), st.integers(0, 2**20))
def test_the_picks_of_a_block_are_near_the_rate(seed: int, rate: float, block: int) -> None:
    marks = CallPicker(rate, seed).block(block)
    n = IN_BLOCK + 1
    assert set(marks) <= {0, 1}
    # a Binomial(4096, rate) count lies within 7 standard deviations but for ~1e-11 of seeds
    assert abs(sum(marks) - n * rate) <= 7 * math.sqrt(n * rate * (1 - rate)) + 1


@settings(max_examples=examples(40), deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=True).filter(lambda x: not 0 <= x <= 1),
        st.booleans(),
    ),
)
def test_a_sample_rate_that_is_not_a_fraction_is_refused(rate: Any) -> None:
    with pytest.raises(ValueError, match="sample_rate"):
        Monitor([Contains("a")], sample_rate=rate)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(-5, 0) | st.booleans() | st.floats(1, 5) | st.text(max_size=2))
def test_a_queue_size_that_is_not_a_positive_whole_number_is_refused(size: Any) -> None:
    with pytest.raises(ValueError, match="queue_size"):
        Monitor([Contains("a")], sample_rate=0.5, queue_size=size)


@settings(max_examples=examples(20), deadline=None)
@given(RATES, st.integers(0, 2**32), st.lists(st.sampled_from(["a", "b", "ab", ""]), max_size=25))
def test_every_picked_call_is_scored_once_and_reported_with_its_verdict(
    rate: float, seed: int, outputs: list[str]
) -> None:
    tracer = RecordingTracer()
    with Monitor(
        [Contains("a")], sample_rate=rate, seed=seed, tracer=tracer, queue_size=100
    ) as watch:
        queued = [watch.observe(out, f"q{i}") for i, out in enumerate(outputs)]
        assert watch.flush(timeout=60)
        stats = watch.stats()
    picker = CallPicker(rate, seed)
    picked = [i for i in range(len(outputs)) if picker.picks(i)]
    assert [i for i, q in enumerate(queued) if q] == picked
    assert (stats.calls, stats.sampled, stats.scored, stats.dropped) == (
        len(outputs),
        len(picked),
        len(picked),
        0,
    )
    records = sorted(tracer.records, key=lambda r: int(r.sample.split("-")[1]))
    assert [r.sample for r in records] == [f"call-{i}" for i in picked]
    assert [r.passed for r in records] == ["a" in outputs[i] for i in picked]


@settings(max_examples=examples(20), deadline=None)
@given(
    RATES, st.integers(0, 2**32), st.lists(st.sampled_from(["q1", "q2", "q3", "名"]), max_size=20)
)
def test_a_monitor_picking_by_key_scores_every_call_of_a_picked_request(
    rate: float, seed: int, questions: list[str]
) -> None:
    tracer = RecordingTracer()
    with Monitor(
        [Contains("a")], sample_rate=rate, seed=seed, tracer=tracer, key=lambda q: q
    ) as watch:
        queued = [watch.observe("a", q) for q in questions]
        assert watch.flush(timeout=60)
    picker = CallPicker(rate, seed)
    assert queued == [picker.picks(0, q) for q in questions]
    by_question = {
        q: {ok for ok, other in zip(queued, questions, strict=True) if other == q}
        for q in questions
    }
    assert all(len(verdicts) == 1 for verdicts in by_question.values())
    assert len(tracer.records) == sum(queued)
