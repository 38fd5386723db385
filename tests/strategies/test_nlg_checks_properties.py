"""Properties of the GLEU and METEOR checks and of ``as_strategy``, over generated sentences:
each check's score is its metric function's and it passes exactly when the score reaches its
threshold, one at a time or in a batch; a higher threshold never turns a fail into a pass; a
plain function becomes a strategy whose verdict is the function's answer, and anything that
already has ``evaluate`` is returned as it is."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample
from evalmark.metrics import gleu, meteor
from evalmark.strategies import ExactMatch, Gleu, Meteor, as_strategy

WORD = st.sampled_from(["cat", "sat", "sits", "mat", "the", "dog", "ran", "running", "é", "名"])
SENTENCE = st.lists(WORD, min_size=1, max_size=8).map(" ".join)
THRESHOLD = st.floats(0.0, 1.0)
CHECKS = st.sampled_from([(Gleu, gleu), (Meteor, meteor)])


def sample(expected: str) -> Sample:
    return Sample(name="s", parameters=[], expected_output=expected)


@settings(max_examples=examples(150), deadline=None)
@given(CHECKS, SENTENCE, SENTENCE, THRESHOLD)
def test_a_check_scores_its_metric_function_and_passes_at_its_threshold(
    check: tuple[Any, Any], expected: str, output: str, threshold: float
) -> None:
    kind, function = check
    result = kind(threshold).evaluate(sample(expected), output)
    assert result.score == pytest.approx(function(expected, output), abs=1e-12)
    assert 0.0 <= result.score <= 1.0
    assert result.passed is (result.score >= threshold)


@settings(max_examples=examples(60), deadline=None)
@given(CHECKS, st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=6), THRESHOLD)
def test_a_batch_gives_what_one_at_a_time_gives(
    check: tuple[Any, Any], pairs: list[tuple[str, str]], threshold: float
) -> None:
    kind, _ = check
    strategy = kind(threshold)
    column = strategy.evaluate_batch([sample(e) for e, _ in pairs], [a for _, a in pairs])
    alone = [strategy.evaluate(sample(e), a) for e, a in pairs]
    assert [(r.passed, r.score) for r in column] == [(r.passed, r.score) for r in alone]


@settings(max_examples=examples(100), deadline=None)
@given(CHECKS, SENTENCE, SENTENCE, THRESHOLD, THRESHOLD)
def test_a_higher_threshold_never_turns_a_fail_into_a_pass(
    check: tuple[Any, Any], expected: str, output: str, low: float, high: float
) -> None:
    kind, _ = check
    low, high = sorted((low, high))
    if not kind(low).evaluate(sample(expected), output).passed:
        assert not kind(high).evaluate(sample(expected), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_as_strategy_wraps_a_function_and_keeps_a_strategy(expected: str, output: str) -> None:
    def same_length(s: Sample, answer: Any) -> bool:
        return len(str(s.expected_output)) == len(answer)

    wrapped = as_strategy(same_length)
    result = wrapped.evaluate(sample(expected), output)
    assert result.passed is (len(expected) == len(output))
    assert result.score == (1.0 if result.passed else 0.0)
    assert getattr(wrapped, "name", None) == "same_length"
    check = ExactMatch()
    assert as_strategy(check) is check


@pytest.mark.parametrize("value", [None, 3, "exact", ["a"]])
def test_as_strategy_refuses_what_is_neither_a_strategy_nor_a_function(value: object) -> None:
    with pytest.raises(TypeError, match="evaluate"):
        as_strategy(value)
