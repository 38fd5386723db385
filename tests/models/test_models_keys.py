"""Canonical request JSON and keys: order-free, number-by-value, equal to the json.dumps form."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.models._canonical import canonical_json, key_of, normalize, request_key

leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]))
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


def _reordered(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@given(values)
def test_key_is_sha256_of_the_json_dumps_canonical_form(value: Any) -> None:
    text = json.dumps(normalize(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == text
    assert request_key(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()


@given(values)
def test_key_ignores_dict_order_at_every_depth(value: Any) -> None:
    assert request_key(_reordered(value)) == request_key(value)


@given(st.integers(-(2**40), 2**40))
def test_integral_floats_share_the_key_of_their_integer(number: int) -> None:
    assert request_key({"t": float(number)}) == request_key({"t": number})
    assert request_key({"t": number + 0.5}) != request_key({"t": number})


@pytest.mark.parametrize(
    "value",
    [
        {"t": 5e-05},
        {"t": -1.5e-07},
        {"t": 1e-300, "u": 0.0001, "v": 123.456},
        {"text": "ratio 0.00001 and 2e-3 as text", "t": 0.5},
        {"big": 1e22, "small": 2.5e-5},
    ],
)
def test_small_floats_and_float_like_text_keep_the_json_dumps_form(value: Any) -> None:
    text = json.dumps(normalize(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert request_key(value) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_tuples_are_lists_and_booleans_are_not_numbers() -> None:
    assert request_key({"stop": ("a", "b")}) == request_key({"stop": ["a", "b"]})
    assert request_key({"x": True}) != request_key({"x": 1})
    assert key_of(normalize({"x": 1.0})) == request_key({"x": 1})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"params": {"temperature": math.nan}}, r"request\.params\.temperature is nan"),
        ({"params": {"top_p": math.inf}}, r"request\.params\.top_p is inf"),
        ({"messages": [{"role": "user", "content": object()}]}, r"messages\[0\]\.content is a"),
        ({"params": {1: "x"}}, r"request\.params has a non-string key 1"),
    ],
)
def test_values_without_json_form_are_errors_naming_the_path(value: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        request_key(value)


def test_a_lone_surrogate_is_keyed_as_the_text_the_cassette_keeps() -> None:
    # No UTF-8 form: the cassette writes it as \udc80, and the key is that text's.
    assert request_key({"text": "a\udc80"}) == request_key({"text": "a\\udc80"})
