"""Properties of every check kind a suite file can name (the registry's list), each built with
its defaults and, for judged kinds, the offline rule judge: over generated samples and hostile
outputs a result in [0, 1] or a typed error; the same results whatever the order of the samples
and the concurrency; and, for kinds with a threshold, a higher threshold never turns a fail into
a pass."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample, Samples, Scorer
from evalmark.errors import EvalmarkError
from evalmark.models import RuleJudge
from evalmark.report import render_report
from evalmark.strategies._registry import STRATEGY_KINDS

# Kinds that run a program (a sandbox, a command) are left to tests/code.
RUNS_CODE = {"code-checker", "code-tests"}
KINDS = sorted(k for k in STRATEGY_KINDS if k not in RUNS_CODE)
WORDS = st.sampled_from(
    [
        "the",
        "refund",
        "takes",
        "30",
        "days",
        "Paris",
        '{"a": 1}',
        "[1, 2]",
        "def f(): pass",
        "a = 1",
        "\x00",
        "\ud800",
        "\u202e",
        "<b>",
        "ACCEPT",
        "REJECT",
        "\n",
    ]
)
TEXT = st.lists(WORDS, max_size=8).map(" ".join)
OUTPUTS = st.one_of(
    TEXT,
    st.dictionaries(st.sampled_from(["a", "answer", "tool_calls"]), TEXT, max_size=2),
    st.lists(TEXT, max_size=2),
    st.none(),
)


def build(kind: str, **options: Any) -> Any:
    made = STRATEGY_KINDS[kind]
    return made.build(options, RuleJudge() if made.judged else None)


@st.composite
def samples(draw: st.DrawFn) -> Sample:
    return Sample(
        name=draw(st.text(alphabet="abcdef", min_size=1, max_size=4)),
        parameters=[],
        expected_output=draw(TEXT),
        expected_facts=tuple(draw(st.lists(TEXT.filter(str.strip), max_size=2))),
        context=tuple(draw(st.lists(TEXT, max_size=2))),
        metadata={"keywords": ["refund", "days"], "plan": ["refund"]},
    )


def judged(check: Any, sample: Sample, output: Any) -> EvaluationResult | None:
    try:
        result: EvaluationResult = check.evaluate(sample, output)
    except EvalmarkError:
        return None
    return result


@settings(max_examples=examples(60), deadline=None)
@given(samples(), OUTPUTS)
def test_every_kind_gives_a_result_in_range_or_a_typed_error(sample: Sample, output: Any) -> None:
    for kind in KINDS:
        result = judged(build(kind), sample, output)
        if result is None:
            continue
        assert isinstance(result, EvaluationResult), kind
        assert 0.0 <= result.score <= 1.0, (kind, result)
        assert isinstance(result.passed, bool)
        json.dumps(result.to_dict(), default=str)  # the result can be reported


THRESHOLDED = [k for k in KINDS if "threshold" in STRATEGY_KINDS[k].accepted]


@settings(max_examples=examples(40), deadline=None)
@given(samples(), TEXT, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_higher_threshold_never_turns_a_fail_into_a_pass_for_any_kind(
    sample: Sample, output: str, t1: float, t2: float
) -> None:
    low, high = sorted((t1, t2))
    for kind in THRESHOLDED:
        a = judged(build(kind, threshold=low), sample, output)
        b = judged(build(kind, threshold=high), sample, output)
        if a is None or b is None:
            continue
        assert a.passed or not b.passed, (kind, low, high, a, b)


@settings(max_examples=examples(8), deadline=None)
@given(st.lists(samples(), min_size=1, max_size=5, unique_by=lambda s: s.name), st.randoms())
def test_every_kind_judges_the_same_whatever_the_order_and_concurrency(
    items: list[Sample], random: Any
) -> None:
    answers = {s.name: f"the refund takes 30 days {s.name}" for s in items}

    def answer(name: str) -> str:
        return answers[name]

    named = [
        Sample(
            name=s.name,
            parameters=[s.name],
            expected_output=s.expected_output,
            expected_facts=s.expected_facts,
            context=s.context,
            metadata=s.metadata,
        )
        for s in items
    ]
    checks = [build(kind) for kind in KINDS]
    shuffled = list(named)
    random.shuffle(shuffled)
    first = Scorer(concurrency=1).evaluate(Samples(tuple(named)), answer, *checks)
    again = Scorer(concurrency=8).evaluate(Samples(tuple(shuffled)), answer, *checks)
    rows = {r["name"]: r for r in json.loads(render_report(first, "json"))["samples"]}
    other = {r["name"]: r for r in json.loads(render_report(again, "json"))["samples"]}
    assert rows == other
