"""Properties of the structured checks (JsonMatch, JsonKeysMatch, TrajectoryMatch, Guardrail,
Composite) over generated documents, tool-call lists and decisions.

The relations between modes are checked rather than single cases: a strict trajectory that
passes passes every looser mode, supersets survive added calls and subsets removed ones; JSON
comparisons do not depend on layout, key order or ``1`` versus ``1.0``; a composite passes when
every member passes and scores their mean, whatever their order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample
from evalmark.errors import StrategyError
from evalmark.strategies import (
    Composite,
    Contains,
    ExactMatch,
    Guardrail,
    JsonKeysMatch,
    JsonMatch,
    LevenshteinSimilarity,
    TokenF1,
    TrajectoryMatch,
)

KEY = st.text(alphabet="abcdefxyz", min_size=1, max_size=4)
LEAF = st.none() | st.booleans() | st.integers(-50, 50) | st.text(alphabet="abc é", max_size=4)
DOCS = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3),
    max_leaves=8,
)
OBJECTS = st.dictionaries(KEY, DOCS, min_size=1, max_size=4)
CALL = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["search", "book", "pay", "mail"]),
        "arguments": st.dictionaries(KEY, st.integers(0, 3), max_size=2),
    }
)
CALLS = st.lists(CALL, max_size=5)
WORDS = st.lists(st.sampled_from(["cat", "sat", "dog", "mat"]), max_size=5).map(" ".join)


def sample(expected: str | None = "x", **fields: Any) -> Sample:
    return Sample(name="s", parameters=[], expected_output=expected, **fields)


def floats_for_ints(value: Any) -> Any:
    """``value`` with every int (not bool) written as a float."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: floats_for_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [floats_for_ints(v) for v in value]
    return value


@settings(max_examples=examples(60), deadline=None)
@given(DOCS, st.sampled_from([None, 2, 4]))
def test_json_match_ignores_layout(value: Any, indent: int | None) -> None:
    expected = json.dumps(value)
    assert JsonMatch().evaluate(sample(expected), json.dumps(value, indent=indent)).passed


@settings(max_examples=examples(60), deadline=None)
@given(DOCS)
def test_json_match_compares_numbers_by_value(value: Any) -> None:
    output = json.dumps(floats_for_ints(value))
    assert JsonMatch().evaluate(sample(json.dumps(value)), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(DOCS, DOCS)
def test_json_match_is_symmetric_and_scores_its_verdict(a: Any, b: Any) -> None:
    forward = JsonMatch().evaluate(sample(json.dumps(a)), json.dumps(b))
    backward = JsonMatch().evaluate(sample(json.dumps(b)), json.dumps(a))
    assert forward.passed == backward.passed
    assert forward.score == (1.0 if forward.passed else 0.0)


@settings(max_examples=examples(60), deadline=None)
@given(OBJECTS, st.data())
def test_json_match_fails_when_one_value_changes(value: dict[str, Any], data: Any) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    other = data.draw(DOCS.filter(lambda v: json.dumps(v) != json.dumps(value[key])))
    assume(floats_for_ints(other) != floats_for_ints(value[key]))
    changed = {**value, key: other}
    assert not JsonMatch().evaluate(sample(json.dumps(value)), json.dumps(changed)).passed


@settings(max_examples=examples(60), deadline=None)
@given(DOCS)
def test_json_match_reads_a_value_output_like_its_text(value: Any) -> None:
    expected = json.dumps(value)
    if isinstance(value, dict | list) or (isinstance(value, int) and not isinstance(value, bool)):
        assert JsonMatch().evaluate(sample(expected), value).passed


@settings(max_examples=examples(60), deadline=None)
@given(OBJECTS, KEY, LEAF)
def test_json_keys_match_ignores_extra_keys_unless_told(
    value: dict[str, Any], extra: str, leaf: Any
) -> None:
    assume(extra not in value)
    output = json.dumps({**value, extra: leaf})
    assert JsonKeysMatch().evaluate(sample(json.dumps(value)), output).passed
    assert not JsonKeysMatch(extra_keys="fail").evaluate(sample(json.dumps(value)), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(OBJECTS, st.data())
def test_json_keys_match_ignores_an_excluded_key(value: dict[str, Any], data: Any) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    changed = {**value, key: data.draw(LEAF)}
    check = JsonKeysMatch(exclude_keys=[key])
    assert check.evaluate(sample(json.dumps(value)), json.dumps(changed)).passed


@settings(max_examples=examples(60), deadline=None)
@given(KEY, st.lists(st.integers(0, 9), max_size=5), st.randoms())
def test_json_keys_match_unordered_lists_ignore_order(
    key: str, items: list[int], random: Any
) -> None:
    shuffled = list(items)
    random.shuffle(shuffled)
    check = JsonKeysMatch(lists="unordered")
    assert check.evaluate(sample(json.dumps({key: items})), json.dumps({key: shuffled})).passed


@settings(max_examples=examples(60), deadline=None)
@given(OBJECTS, st.text(max_size=10))
def test_json_keys_match_fails_text_that_is_not_json(value: dict[str, Any], text: str) -> None:
    try:
        json.loads(text)
        assume(False)
    except ValueError:
        pass
    result = JsonKeysMatch().evaluate(sample(json.dumps(value)), text)
    assert not result.passed and result.score == 0.0


@settings(max_examples=examples(60), deadline=None)
@given(OBJECTS, OBJECTS, st.floats(0.0, 1.0))
def test_json_keys_match_average_agrees_with_its_threshold(
    expected: dict[str, Any], output: dict[str, Any], threshold: float
) -> None:
    check = JsonKeysMatch(aggregator="average", threshold=threshold)
    result = check.evaluate(sample(json.dumps(expected)), json.dumps(output))
    assert 0.0 <= result.score <= 1.0
    assert result.passed == (result.score >= threshold)


@settings(max_examples=examples(60), deadline=None)
@given(CALLS, CALLS)
def test_a_strict_trajectory_pass_passes_every_looser_mode(
    expected: list[Any], actual: list[Any]
) -> None:
    verdicts = {
        mode: TrajectoryMatch(mode, expected=expected).evaluate(sample(), actual).passed
        for mode in ("strict", "unordered", "subset", "superset")
    }
    if verdicts["strict"]:
        assert verdicts["unordered"]
    if verdicts["unordered"]:
        assert verdicts["subset"] and verdicts["superset"]


@settings(max_examples=examples(60), deadline=None)
@given(CALLS, st.randoms())
def test_a_trajectory_matches_any_shuffle_of_itself_unordered(
    calls: list[Any], random: Any
) -> None:
    shuffled = list(calls)
    random.shuffle(shuffled)
    assert TrajectoryMatch(expected=calls).evaluate(sample(), calls).passed
    assert TrajectoryMatch("unordered", expected=calls).evaluate(sample(), shuffled).passed


@settings(max_examples=examples(60), deadline=None)
@given(CALLS, CALLS, st.integers(0, 5))
def test_superset_survives_added_calls_and_subset_removed_ones(
    calls: list[Any], extra: list[Any], cut: int
) -> None:
    more = calls[:cut] + extra + calls[cut:]
    assert TrajectoryMatch("superset", expected=calls).evaluate(sample(), more).passed
    assert TrajectoryMatch("subset", expected=more).evaluate(sample(), calls).passed


@settings(max_examples=examples(60), deadline=None)
@given(CALLS, st.data())
def test_ignored_arguments_match_any_arguments(calls: list[Any], data: Any) -> None:
    other = [
        {"name": c["name"], "arguments": data.draw(st.dictionaries(KEY, st.integers(), max_size=2))}
        for c in calls
    ]
    check = TrajectoryMatch(arguments="ignore", expected=calls)
    assert check.evaluate(sample(), other).passed


@settings(max_examples=examples(60), deadline=None)
@given(CALLS, CALLS, st.sampled_from(["strict", "unordered", "subset", "superset"]))
def test_a_trajectory_score_is_in_range_and_passes_only_at_one(
    expected: list[Any], actual: list[Any], mode: Any
) -> None:
    result = TrajectoryMatch(mode, expected=expected).evaluate(sample(), actual)
    assert 0.0 <= result.score <= 1.0
    assert result.passed == (result.score == 1.0)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.text(max_size=10).filter(lambda m: m not in ("strict", "unordered", "subset", "superset"))
)
def test_an_unknown_trajectory_mode_is_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="mode"):
        TrajectoryMatch(mode)  # type: ignore[arg-type]


DECISIONS = {
    "ACCEPT": ["accept", "Accepted", "ALLOW", "allowed", "pass"],
    "REJECT": ["reject", "Rejected", "BLOCK", "deny"],
}


@settings(max_examples=examples(60), deadline=None)
@given(
    st.sampled_from(["ACCEPT", "REJECT"]),
    st.sampled_from(["ACCEPT", "REJECT"]),
    st.data(),
    st.text(alphabet="abc .", max_size=8),
)
def test_a_guardrail_passes_exactly_when_the_decisions_agree(
    expected: str, said: str, data: Any, tail: str
) -> None:
    word = data.draw(st.sampled_from(DECISIONS[said]))
    result = Guardrail().evaluate(sample(expected), f"{word} {tail}")
    assert result.passed == (expected == said)
    assert result.metadata["guardrail"]["actual"] == said
    assert result.metadata["guardrail"]["expected"] == expected


@settings(max_examples=examples(30), deadline=None)
@given(st.booleans(), st.sampled_from(["ACCEPT", "REJECT"]))
def test_a_guardrail_reads_a_bool_as_accept_or_reject(value: bool, expected: str) -> None:
    result = Guardrail().evaluate(sample(expected), value)
    assert result.passed == ((expected == "ACCEPT") == value)


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="xyz 12", max_size=8), st.sampled_from(["ACCEPT", "REJECT"]))
def test_a_guardrail_fails_an_output_with_no_decision(output: str, expected: str) -> None:
    result = Guardrail().evaluate(sample(expected), output)
    assert not result.passed and result.score == 0.0


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="xyz 12", max_size=8))
def test_a_guardrail_sample_without_a_decision_is_a_typed_error(expected: str) -> None:
    with pytest.raises(StrategyError, match="ACCEPT or"):
        Guardrail().evaluate(sample(expected or "x"), "accept")


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, WORDS)
def test_a_composite_passes_when_every_member_passes_and_scores_their_mean(
    expected: str, output: str
) -> None:
    members = [TokenF1(), Contains(), LevenshteinSimilarity()]
    alone = [m.evaluate(sample(expected or "x"), output) for m in members]
    whole = Composite(*members).evaluate(sample(expected or "x"), output)
    assert whole.passed == all(r.passed for r in alone)
    assert whole.score == pytest.approx(sum(r.score for r in alone) / len(alone))


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, WORDS, st.permutations([0, 1, 2]))
def test_a_composite_does_not_depend_on_the_order_of_its_members(
    expected: str, output: str, order: list[int]
) -> None:
    members = [TokenF1(), ExactMatch(), Contains()]
    a = Composite(*members).evaluate(sample(expected or "x"), output)
    b = Composite(*(members[i] for i in order)).evaluate(sample(expected or "x"), output)
    assert (a.passed, a.score) == (b.passed, pytest.approx(b.score))
    assert a.metadata["members"] == b.metadata["members"]


@settings(max_examples=examples(40), deadline=None)
@given(WORDS, WORDS)
def test_a_composite_of_one_member_judges_as_the_member(expected: str, output: str) -> None:
    alone = TokenF1().evaluate(sample(expected or "x"), output)
    whole = Composite(TokenF1()).evaluate(sample(expected or "x"), output)
    assert (whole.passed, whole.score) == (alone.passed, alone.score)
