"""Properties of ``TestCase`` and ``TokenUsage`` values for generated fields: token totals
default to the sum and are never below it; a cost becomes the exact decimal of what was written
and a negative or non-finite one is refused naming the case; a latency is kept exactly when it
is a finite number at least 0; and lists become tuples while a bare string is refused."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import TestCase
from evalmark.errors import TestCaseError
from evalmark.samples._case import TokenUsage

COUNTS = st.integers(0, 10**9)
NAMES = st.text("abcdefghij-", min_size=1, max_size=8)
TEXTS = st.lists(st.text(st.characters(exclude_categories=("Cs",)), max_size=6), max_size=3)


@settings(max_examples=examples(200))
@given(COUNTS, COUNTS, st.none() | st.integers(-5, 2 * 10**9 + 5))
def test_a_token_total_defaults_to_the_sum_and_is_never_below_it(
    read: int, written: int, total: int | None
) -> None:
    if total is not None and total < read + written:
        with pytest.raises(TestCaseError, match="less than input \\+ output"):
            TokenUsage(read, written, total)
        return
    usage = TokenUsage(read, written, total)
    assert usage.total == (read + written if total is None else total)


@settings(max_examples=examples(200))
@given(
    st.floats(allow_nan=True, allow_infinity=True)
    | st.decimals(allow_nan=False, allow_infinity=False, places=4),
    NAMES,
)
def test_a_cost_is_the_exact_decimal_written_and_a_bad_one_names_the_case(
    cost: float | Decimal, name: str
) -> None:
    exact = Decimal(repr(cost)) if isinstance(cost, float) else cost
    if not exact.is_finite() or exact < 0:
        with pytest.raises(TestCaseError, match=f"test case '{name}': cost"):
            TestCase("q", "a", cost=cost, name=name)  # type: ignore[arg-type]
        return
    case = TestCase("q", "a", cost=cost, name=name)  # type: ignore[arg-type]
    assert case.cost == exact and type(case.cost) is Decimal
    assert TestCase("q", "a", cost=str(exact), name=name).cost == exact  # type: ignore[arg-type]


@settings(max_examples=examples(200))
@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 10**6), NAMES)
def test_a_latency_is_kept_exactly_when_finite_and_not_negative(latency: float, name: str) -> None:
    if math.isfinite(latency) and latency >= 0:
        assert TestCase("q", "a", latency_ms=latency, name=name).latency_ms == latency
    else:
        with pytest.raises(TestCaseError, match=f"test case '{name}': latency-ms"):
            TestCase("q", "a", latency_ms=latency, name=name)


@settings(max_examples=examples(200))
@given(TEXTS, TEXTS, TEXTS, st.sampled_from(["retrieval_context", "context", "tags"]), NAMES)
def test_lists_become_tuples_and_a_bare_string_is_refused(
    retrieved: list[str], context: list[str], tags: list[str], field: str, text: str
) -> None:
    values: dict[str, Any] = {"retrieval_context": retrieved, "context": context, "tags": tags}
    case = TestCase("q", "a", **values)
    for key, value in values.items():
        assert getattr(case, key) == tuple(value)
    with pytest.raises(TestCaseError, match=field.replace("_", "-")):
        TestCase("q", "a", **{**values, field: text})
