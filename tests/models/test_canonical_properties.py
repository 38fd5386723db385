"""Properties of the canonical request form and the secret helpers the cassettes rely on, over
generated JSON values: normalization is idempotent and keeps the value, canonical JSON is one
text per value whatever the key order (and reads back to it), integral floats key as ints, the
depth check agrees with the true depth, a redactor leaves no match, and credential names and a
secret's searched forms behave as documented.
"""

from __future__ import annotations

import json
import math
import random as random_module
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.models._canonical import (
    MAX_DEPTH,
    canonical_json,
    normalize,
    request_key,
    too_deep,
)
from evalmark.models._secret_scan import secret_variants, sensitive_name, sensitive_values
from evalmark.models._secrets import redact_pattern

TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=6)
KEYS = st.text(alphabet="abcdefgh_", min_size=1, max_size=5)
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=10,
)


def reordered(value: Any, random: random_module.Random) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        random.shuffle(keys)
        return {k: reordered(value[k], random) for k in keys}
    if isinstance(value, list):
        return [reordered(v, random) for v in value]
    return value


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: 1 == 1.0, key order ignored, bools not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@settings(max_examples=examples(80), deadline=None)
@given(VALUES)
def test_normalize_is_idempotent_and_keeps_the_value(value: Any) -> None:
    once = normalize(value)
    assert normalize(once) == once
    assert same_json(once, value)


@settings(max_examples=examples(80), deadline=None)
@given(VALUES, st.randoms())
def test_canonical_json_is_one_text_whatever_the_key_order(
    value: Any, random: random_module.Random
) -> None:
    text = canonical_json(value)
    assert canonical_json(reordered(value, random)) == text
    assert same_json(json.loads(text), value)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(-(2**52), 2**52))
def test_an_integral_float_keys_as_its_int(number: int) -> None:
    assert request_key({"n": float(number)}) == request_key({"n": number})
    assert canonical_json([float(number)]) == f"[{number}]"


@settings(max_examples=examples(60), deadline=None)
@given(VALUES, VALUES)
def test_different_values_have_different_keys(a: Any, b: Any) -> None:
    if same_json(normalize(a), normalize(b)):
        assert request_key(a) == request_key(b)
    else:
        assert request_key(a) != request_key(b)
    assert re.fullmatch(r"[0-9a-f]{64}", request_key(a))


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, MAX_DEPTH + 20), st.sampled_from(["[", '{"a":']))
def test_the_depth_check_agrees_with_the_true_depth(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    text = opener * depth + "1" + closer * depth
    assert too_deep(text.encode(), MAX_DEPTH) == (depth > MAX_DEPTH)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 200), st.text(alphabet='[]{}"\\', max_size=6))
def test_brackets_inside_strings_do_not_count_as_depth(depth: int, inner: str) -> None:
    text = json.dumps(["[" * depth + inner + "{" * depth])
    assert not too_deep(text.encode(), 2)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.dictionaries(KEYS, VALUES, max_size=4),
    st.sampled_from([r"\d+", r"[a-c]+", r"secret-\w+"]),
)
def test_a_pattern_redactor_leaves_no_match_and_keeps_the_shape(
    request: dict[str, Any], pattern: str
) -> None:
    redacted = redact_pattern(pattern, "#")(request)
    compiled = re.compile(pattern)

    def walk(a: Any, b: Any) -> None:
        if isinstance(a, str):
            assert isinstance(b, str) and not compiled.search(b)
            assert b == compiled.sub("#", a)
        elif isinstance(a, dict):
            assert list(a) == list(b)
            for k in a:
                walk(a[k], b[k])
        elif isinstance(a, list):
            assert len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                walk(x, y)
        else:
            assert a == b

    walk(request, redacted)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.sampled_from(["api_key", "apiKey", "Authorization", "x-api-key", "password", "token"]),
    st.sampled_from([str.lower, str.upper, lambda s: s]),
)
def test_credential_names_are_sensitive_in_any_case(name: str, case: Any) -> None:
    assert sensitive_name(case(name))


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet="ABCDEFGHJKMNPQRSTUVWXYZ23456789", min_size=20, max_size=30), VALUES)
def test_a_value_under_a_credential_name_is_found_anywhere(secret: str, filler: Any) -> None:
    request = {"params": {"headers": {"Authorization": secret}}, "other": filler}
    assert secret in list(sensitive_values(request))


@settings(max_examples=examples(60), deadline=None)
@given(st.text(min_size=0, max_size=40))
def test_the_searched_forms_of_a_secret_are_longest_first_and_within_it(value: str) -> None:
    variants = secret_variants(value)
    assert [len(v) for v in variants] == sorted((len(v) for v in variants), reverse=True)
    for variant in variants:
        assert variant in value.strip()
    if variants:
        assert variants[0] == value.strip()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_value_without_json_form_is_refused(value: float) -> None:
    with pytest.raises(ValueError):
        normalize({"x": value})
