"""Properties of the registry of check kinds over generated names and options: an unknown kind is
refused naming the known ones, a threshold outside [0, 1] is refused by every kind that takes
one, a given name is the built check's name, and two checks built from the same options judge
the same way.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample
from evalmark.errors import EvalmarkError
from evalmark.models import RuleJudge
from evalmark.strategies._registry import STRATEGY_KINDS, build_strategy, get_strategy_kind

RUNS_CODE = {"code-checker", "code-tests"}
KINDS = sorted(k for k in STRATEGY_KINDS if k not in RUNS_CODE)
THRESHOLDED = [k for k in KINDS if "threshold" in STRATEGY_KINDS[k].accepted]
NAMED = [k for k in KINDS if "name" in STRATEGY_KINDS[k].accepted]


def build(kind: str, **options: Any) -> Any:
    made = STRATEGY_KINDS[kind]
    return build_strategy(kind, options, RuleJudge() if made.judged else None)


@settings(max_examples=examples(40), deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=14))
def test_an_unknown_kind_is_refused_naming_the_known_ones(kind: str) -> None:
    assume(kind not in STRATEGY_KINDS)
    with pytest.raises(KeyError, match="the known kinds are exact-match"):
        get_strategy_kind(kind)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.sampled_from(THRESHOLDED),
    st.floats(allow_nan=False).filter(lambda t: not 0.0 <= t <= 1.0),
)
def test_every_thresholded_kind_refuses_a_threshold_outside_zero_one(
    kind: str, threshold: float
) -> None:
    with pytest.raises((ValueError, EvalmarkError), match="threshold"):
        build(kind, threshold=threshold)


@settings(max_examples=examples(40), deadline=None)
@given(st.sampled_from(NAMED), st.text(alphabet="abcXYZ _-", min_size=1, max_size=10))
def test_a_given_name_is_the_checks_name(kind: str, name: str) -> None:
    assume(name.strip())
    check = build(kind, name=name)
    assert getattr(check, "name", None) == name


@settings(max_examples=examples(20), deadline=None)
@given(
    st.sampled_from(KINDS),
    st.lists(st.sampled_from(["refund", "30", "days", "ACCEPT", '{"a": 1}']), max_size=5).map(
        " ".join
    ),
)
def test_two_checks_built_alike_judge_alike(kind: str, output: str) -> None:
    item = Sample(
        name="s",
        parameters=["q"],
        expected_output="refund in 30 days",
        expected_facts=("refund",),
        context=("Refunds take 30 days.",),
        metadata={"keywords": ["refund"], "plan": ["refund"]},
    )
    verdicts = []
    for _ in range(2):
        try:
            result = build(kind).evaluate(item, output)
        except EvalmarkError as error:
            verdicts.append(type(error).__name__)
        else:
            verdicts.append((result.passed, result.score, result.explanation))
    assert verdicts[0] == verdicts[1], kind
