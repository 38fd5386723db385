"""TrajectoryMatch and JsonKeysMatch on the tricky cases, and the matching algorithms against
brute force."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark import Sample, TestCase, ToolCall
from evalmark.errors import StrategyError
from evalmark.models import ChatReply
from evalmark.models import ChatToolCall as ReplyToolCall
from evalmark.strategies import JsonKeysMatch, TrajectoryMatch
from evalmark.strategies._matching import max_matching, max_weight_assignment

S = Sample(name="t", parameters=["q"], expected_output="[]")


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": arguments}


# ---------------------------------------------------------------------------- matching


@given(st.lists(st.lists(st.booleans(), min_size=0, max_size=5), min_size=0, max_size=5))
def test_max_matching_is_maximum(adjacency: list[list[bool]]) -> None:
    left = len(adjacency)
    right = max((len(r) for r in adjacency), default=0)
    edges = [[j for j, ok in enumerate(row) if ok] for row in adjacency]
    match = max_matching(left, right, edges)
    used = [j for j in match if j >= 0]
    assert len(used) == len(set(used))
    assert all(j in edges[i] for i, j in enumerate(match) if j >= 0)
    best = 0
    for perm in itertools.permutations(range(max(right, left)), left):
        best = max(best, sum(1 for i, j in enumerate(perm) if j < right and j in edges[i]))
    assert len(used) == best


@given(
    st.integers(1, 4).flatmap(
        lambda rows: st.integers(1, 4).flatmap(
            lambda cols: st.lists(
                st.lists(st.integers(0, 10).map(lambda x: x / 10), min_size=cols, max_size=cols),
                min_size=rows,
                max_size=rows,
            )
        )
    )
)
def test_hungarian_is_optimal(weights: list[list[float]]) -> None:
    rows, cols = len(weights), len(weights[0])
    pair = max_weight_assignment(weights)
    used = [c for c in pair if c >= 0]
    assert len(used) == len(set(used)) == min(rows, cols)
    total = sum(weights[r][c] for r, c in enumerate(pair) if c >= 0)
    if rows <= cols:
        best = max(
            sum(weights[r][p[r]] for r in range(rows))
            for p in itertools.permutations(range(cols), rows)
        )
    else:
        best = max(
            sum(weights[p[c]][c] for c in range(cols))
            for p in itertools.permutations(range(rows), cols)
        )
    assert total == pytest.approx(best)


# ---------------------------------------------------------------------------- trajectories


def test_maximum_matching_beats_greedy_on_repeated_calls() -> None:
    # The first expected call accepts either actual call; greedy would take the first and strand
    # the second expected call, which only the first actual call satisfies.
    expected = [call("search"), call("search", q="refund")]
    actual = [call("search", q="refund"), call("search", q="price")]
    result = TrajectoryMatch("unordered", arguments="superset", expected=expected).evaluate(
        S, actual
    )
    assert result.passed and result.score == 1.0


def test_unordered_names_the_unmatched_calls() -> None:
    expected = [call("search", q="a"), call("search", q="a"), call("book", id=1)]
    actual = [call("search", q="a"), call("book", id=2), call("search", q="a")]
    result = TrajectoryMatch("unordered", expected=expected).evaluate(S, actual)
    assert not result.passed and result.score == pytest.approx(2 / 3)
    assert "expected calls not made: book(id=1)" in result.explanation
    assert "calls made but not expected: book(id=2)" in result.explanation


def test_strict_needs_the_order() -> None:
    expected = [call("a"), call("b")]
    assert TrajectoryMatch("strict", expected=expected).evaluate(S, [call("a"), call("b")]).passed
    result = TrajectoryMatch("strict", expected=expected).evaluate(S, [call("b"), call("a")])
    assert not result.passed and "call 1 differs: expected a(), got b()" in result.explanation
    assert (
        TrajectoryMatch("unordered", expected=expected).evaluate(S, [call("b"), call("a")]).passed
    )


@pytest.mark.parametrize(
    ("mode", "expected", "actual", "passed"),
    [
        ("strict", [], [], True),
        ("unordered", [], [], True),
        ("strict", [], [call("a")], False),
        ("unordered", [call("a")], [], False),
        ("subset", [call("a"), call("b")], [call("b")], True),
        ("subset", [call("a")], [call("a"), call("c")], False),
        ("subset", [], [], True),
        ("superset", [call("a")], [call("c"), call("a")], True),
        ("superset", [call("a"), call("a")], [call("a")], False),
        ("superset", [], [call("x")], True),
    ],
)
def test_modes_and_empty_trajectories(
    mode: str, expected: list, actual: list, passed: bool
) -> None:  # type: ignore[type-arg]
    result = TrajectoryMatch(mode, expected=expected).evaluate(S, actual)  # type: ignore[arg-type]
    assert result.passed is passed


@pytest.mark.parametrize(
    ("mode", "actual_args", "passed"),
    [
        ("exact", {"q": "x", "n": 1.0}, True),
        ("exact", {"q": "x"}, False),
        ("ignore", {"other": True}, True),
        ("subset", {"q": "x"}, True),
        ("subset", {"q": "x", "extra": 1}, False),
        ("superset", {"q": "x", "n": 1, "extra": 1}, True),
        ("superset", {"q": "x"}, False),
    ],
)
def test_argument_modes(mode: str, actual_args: dict, passed: bool) -> None:  # type: ignore[type-arg]
    expected = [call("search", q="x", n=1)]
    strategy = TrajectoryMatch("strict", arguments=mode, expected=expected)  # type: ignore[arg-type]
    assert strategy.evaluate(S, [{"name": "search", "arguments": actual_args}]).passed is passed


def test_per_tool_argument_overrides() -> None:
    expected = [call("search", q="x"), call("now", tz="UTC")]
    strategy = TrajectoryMatch("strict", tool_arguments={"now": "ignore"}, expected=expected)
    assert strategy.evaluate(S, [call("search", q="x"), call("now", tz="CET")]).passed
    assert not strategy.evaluate(S, [call("search", q="y"), call("now")]).passed


def test_calls_from_test_cases_replies_and_sample_metadata() -> None:
    case = TestCase(
        "q",
        "a",
        tool_calls=[ToolCall("get", {"id": 1})],
        expected_tool_calls=[ToolCall("get", {"id": 1.0})],
    )
    assert TrajectoryMatch().evaluate(S, case).passed
    with_meta = Sample(
        name="m",
        parameters=["q"],
        expected_output="x",
        metadata={"expected-tool-calls": [call("get", id=1)]},
    )
    reply = ChatReply(
        text="", tool_calls=(ReplyToolCall(id="1", name="get", arguments='{"id": 1}'),)
    )
    assert TrajectoryMatch().evaluate(with_meta, reply).passed
    assert not TrajectoryMatch().evaluate(with_meta, ChatReply(text="no tools")).passed
    from_text = Sample(name="x", parameters=["q"], expected_output=json.dumps([call("get", id=1)]))
    assert TrajectoryMatch().evaluate(from_text, [ToolCall("get", {"id": 1})]).passed


def test_missing_expectation_says_where_to_put_it() -> None:
    bare = Sample(name="bare", parameters=["q"], expected_outputs=["a"])
    with pytest.raises(StrategyError, match="sample 'bare' has no expected tool calls"):
        TrajectoryMatch().evaluate(bare, [])


# ---------------------------------------------------------------------------- JSON keys

DOC = {
    "name": "Ann",
    "address": {"city": "Paris", "zip": "75001"},
    "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}],
    "meta": {"ts": 1},
}
JS = Sample(name="order", parameters=["q"], expected_output=json.dumps(DOC))


def test_nested_keys_are_judged_one_by_one() -> None:
    out = json.loads(json.dumps(DOC))
    out["address"]["city"] = "Lyon"
    result = JsonKeysMatch().evaluate(JS, out)
    assert not result.passed and result.score == pytest.approx(7 / 8)
    assert 'address.city: expected "Paris", got "Lyon"' in result.explanation
    assert result.metadata["keys"]["address.zip"] == {"passed": True, "score": 1.0}


def test_lists_of_objects_pair_optimally_when_unordered() -> None:
    out = dict(DOC, items=[{"sku": "b", "qty": 2.0}, {"sku": "a", "qty": 1}])
    assert not JsonKeysMatch().evaluate(JS, out).passed
    assert JsonKeysMatch(lists="unordered").evaluate(JS, out).passed


def test_unordered_pairing_is_optimal_not_greedy() -> None:
    expected = {"rows": [{"a": 1, "b": 1}, {"a": 1, "b": 2}]}
    s = Sample(name="rows", parameters=["q"], expected_output=json.dumps(expected))
    # Greedy pairs expected[0] with the first actual row sharing a=1 (score 0.5), leaving a
    # worse pair; the optimal pairing matches every key.
    actual = {"rows": [{"a": 1, "b": 2}, {"a": 1, "b": 1}]}
    assert JsonKeysMatch(lists="unordered").evaluate(s, actual).score == 1.0


def test_excluded_keys_and_extra_keys_policy() -> None:
    out = dict(DOC, meta={"ts": 99}, debug=True)
    assert not JsonKeysMatch().evaluate(JS, out).passed
    assert JsonKeysMatch(exclude_keys=["meta.ts"]).evaluate(JS, out).passed
    assert JsonKeysMatch(exclude_keys=["ts"]).evaluate(JS, out).passed
    strict = JsonKeysMatch(exclude_keys=["meta.*"], extra_keys="fail").evaluate(JS, out)
    assert not strict.passed and "debug: unexpected key" in strict.explanation
    assert (
        JsonKeysMatch(exclude_keys=["items[].qty", "meta"])
        .evaluate(JS, dict(DOC, items=[{"sku": "a", "qty": 5}, {"sku": "b"}]))
        .passed
    )


def test_missing_keys_and_items() -> None:
    out = {
        "name": "Ann",
        "address": {"city": "Paris"},
        "items": [{"sku": "a", "qty": 1}],
        "meta": {"ts": 1},
    }
    result = JsonKeysMatch().evaluate(JS, out)
    assert (
        "address.zip: missing" in result.explanation
        and "items[1]: missing item" in result.explanation
    )


def test_average_aggregator_and_rubrics() -> None:
    out = dict(DOC, name="Anne")
    assert JsonKeysMatch(aggregator="average", threshold=0.8).evaluate(JS, out).passed
    assert not JsonKeysMatch(aggregator="all").evaluate(JS, out).passed
    lenient = JsonKeysMatch(rubrics={"name": lambda e, a: a.startswith(e)})
    assert lenient.evaluate(JS, out).passed


def test_rubric_can_be_a_strategy() -> None:
    from evalmark.strategies import TokenF1

    out = dict(DOC, name="Ann Smith")
    result = JsonKeysMatch(rubrics={"name": TokenF1(0.6)}).evaluate(JS, out)
    assert result.passed and result.metadata["keys"]["name"]["score"] == pytest.approx(2 / 3)


def test_invalid_output_json_fails_and_bad_expected_raises() -> None:
    assert "not valid JSON" in JsonKeysMatch().evaluate(JS, "{oops").explanation
    broken = Sample(name="broken", parameters=["q"], expected_output="{oops")
    with pytest.raises(StrategyError, match="sample 'broken'"):
        JsonKeysMatch().evaluate(broken, "{}")


def test_type_mismatches() -> None:
    result = JsonKeysMatch().evaluate(JS, dict(DOC, address="Paris", items={"sku": "a"}))
    assert "address: expected an object" in result.explanation
    assert "items: expected a list" in result.explanation
    flags = Sample(name="f", parameters=["q"], expected_output='{"on": true}')
    assert not JsonKeysMatch().evaluate(flags, {"on": 1}).passed
