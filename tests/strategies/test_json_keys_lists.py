"""JSON key matching over lists of items: a per-item aggregator separate from the key
aggregator, and subset / superset list modes. Expected numbers are OpenEvals' for the same
inputs (``create_json_match_evaluator`` with the same aggregator, list_aggregator and
list_match_mode), worked out by hand in each case."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalmark import Sample
from evalmark.errors import StrategyError
from evalmark.strategies._json_keys import JsonKeysMatch

REF = [{"a": 1, "b": 2}, {"a": 1, "b": 2}]
OUT = [{"a": 1, "b": 2}, {"a": 1, "b": 3}]


def _score(strategy: JsonKeysMatch, expected: Any, actual: Any) -> tuple[bool, float]:
    result = strategy.evaluate(
        Sample(name="s", parameters=["q"], expected_output=json.dumps(expected)), actual
    )
    return result.passed, result.score


def test_flat_mean_is_unchanged_without_a_list_aggregator() -> None:
    # 3 of 4 keys match: the old behaviour, one mean over all keys
    assert _score(JsonKeysMatch(aggregator="average", threshold=0.0), REF, OUT)[1] == 0.75


def test_all_per_item_then_average_over_items_is_openevals_half() -> None:
    # item 0: all keys match -> 1; item 1: b differs -> 0; mean of items = 0.5
    strategy = JsonKeysMatch(aggregator="all", list_aggregator="average", threshold=0.5)
    assert _score(strategy, REF, OUT) == (True, 0.5)
    result = strategy.evaluate(
        Sample(name="s", parameters=["q"], expected_output=json.dumps(REF)), OUT
    )
    assert result.metadata["items"] == {
        "[0]": {"passed": True, "score": 1.0},
        "[1]": {"passed": False, "score": 0.0},
    }
    assert "all per item, average over items" in result.explanation


def test_average_per_item_then_all_or_average_over_items() -> None:
    # items score 1.0 and 0.5: "all" over items -> 0; "average" -> 0.75
    assert _score(JsonKeysMatch(aggregator="average", list_aggregator="all"), REF, OUT) == (
        False,
        0.0,
    )
    both = JsonKeysMatch(aggregator="average", list_aggregator="average", threshold=0.7)
    assert _score(both, REF, OUT) == (True, 0.75)
    assert _score(JsonKeysMatch(list_aggregator="all"), REF, REF) == (True, 1.0)


def test_extra_output_keys_count_against_the_item_as_in_openevals() -> None:
    # OpenEvals scores keys of either side: a matches (1), b is not in the reference (0) -> 0.5
    strategy = JsonKeysMatch(
        aggregator="average", list_aggregator="average", extra_keys="fail", threshold=0.0
    )
    assert _score(strategy, [{"a": 1}], [{"a": 1, "b": 2}])[1] == 0.5


def test_superset_ignores_extra_output_items() -> None:
    strategy = JsonKeysMatch(lists="superset", list_aggregator="average", extra_keys="fail")
    # every expected item has a partner in the output; the third output item is allowed
    assert _score(strategy, [{"a": 1}, {"a": 2}], [{"a": 2}, {"a": 1}, {"a": 7}]) == (True, 1.0)
    # a missing expected item still fails: items 1.0 and 0.0
    assert _score(strategy, [{"a": 1}, {"a": 2}], [{"a": 1}]) == (False, 0.5)


def test_subset_compares_only_the_items_the_output_has() -> None:
    strategy = JsonKeysMatch(lists="subset", list_aggregator="average", threshold=0.5)
    # one output item, matching the second expected one: 1.0
    assert _score(strategy, [{"a": 1}, {"a": 2}, {"a": 3}], [{"a": 2}]) == (True, 1.0)
    # an output item with no matching expected one scores 0: items 1.0 and 0.0 -> 0.5
    assert _score(strategy, [{"a": 1}, {"a": 2}, {"a": 3}], [{"a": 2}, {"a": 9}]) == (True, 0.5)
    # more output items than expected ones: the extra item fails
    assert _score(JsonKeysMatch(lists="subset"), [{"a": 1}], [{"a": 1}, {"a": 1}]) == (
        False,
        0.5,
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"list_aggregator": "sum"}, "list_aggregator must be"),
        ({"lists": "same"}, "lists must be one of ordered, unordered, subset, superset"),
        ({"aggregator": "any"}, "aggregator must be"),
        ({"threshold": 2.0}, "threshold must be in"),
    ],
)
def test_constructor_errors_are_value_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        JsonKeysMatch(**options)
    assert issubclass(StrategyError, ValueError)
