"""Laws of every name of the metric table, for generated text: the scalar function equals the
batch function, the score lies in the declared range, distances are zero on equal texts and
symmetric, and the number of workers changes nothing."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import EvalmarkError
from evalmark.metrics._table import METRICS

TEXT_NAMES = [name for name, metric in METRICS.items() if metric.function.inputs == "text"]
DISTANCES = [
    "levenshtein_distance",
    "levenshtein_normalized_distance",
    "indel_distance",
    "indel_normalized_distance",
]
text = st.text(st.sampled_from('ab c.\u00e9{}[]"1:,\n'), max_size=20) | st.text(max_size=12)


def _scalar(name: str, expected: str, actual: str) -> Any:
    metric = METRICS[name]
    return metric.function.scalar(expected, actual, **metric.settings)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@pytest.mark.parametrize("name", TEXT_NAMES)
@settings(max_examples=examples(40))
@given(st.lists(st.tuples(text, text), min_size=1, max_size=6))
def test_scalar_equals_batch_for_every_name(name: str, pairs: list[tuple[str, str]]) -> None:
    expected, actual = [e for e, _ in pairs], [a for _, a in pairs]
    scalars: list[Any] = []
    for e, a in pairs:
        try:
            scalars.append(_scalar(name, e, a))
        except EvalmarkError as exc:  # a bad input: the batch refuses it with the same type
            with pytest.raises(type(exc)):
                METRICS[name].batch(expected, actual)
            return
    batch = METRICS[name].batch(expected, actual).tolist()
    assert len(batch) == len(pairs)
    for one, value in zip(scalars, batch, strict=True):
        assert _same(one, value)


@pytest.mark.parametrize("name", TEXT_NAMES)
@settings(max_examples=examples(40))
@given(text, text)
def test_every_score_lies_in_the_declared_range(name: str, expected: str, actual: str) -> None:
    try:
        value = _scalar(name, expected, actual)
    except EvalmarkError:  # a document that is not JSON: a typed error, not a score
        assert METRICS[name].function.name == "json_match"
        return
    declared = METRICS[name].function.score_range
    if declared == "True or False":
        assert isinstance(value, bool)
    elif declared.startswith("[0, 1]"):
        assert 0.0 <= value <= 1.0
    else:  # counts and error rates: 0 or more
        assert value >= 0.0 or math.isnan(value)


@pytest.mark.parametrize("name", DISTANCES)
@settings(max_examples=examples(60))
@given(text, text)
def test_distances_are_zero_on_equal_texts_and_symmetric(name: str, a: str, b: str) -> None:
    assert _scalar(name, a, a) == 0
    assert _scalar(name, a, b) == _scalar(name, b, a)
    assert (_scalar(name, a, b) == 0) == (a == b)


@pytest.mark.parametrize("name", TEXT_NAMES)
@settings(max_examples=examples(20))
@given(st.lists(st.tuples(text, text), min_size=1, max_size=40))
def test_one_or_two_workers_give_the_same_scores(name: str, pairs: list[tuple[str, str]]) -> None:
    expected, actual = [e for e, _ in pairs], [a for _, a in pairs]
    if METRICS[name].function.name == "json_match":
        expected = actual = [json.dumps(e) for e in expected]
    one = METRICS[name].batch(expected, actual, workers=1)
    two = METRICS[name].batch(expected, actual, workers=2)
    np.testing.assert_array_equal(one, two)
