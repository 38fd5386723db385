"""Metamorphic properties of the retrieval and grounding checks (ContextualPrecision,
ContextualRecall, Faithfulness, PlanAdherence, RetrievalMetric) over generated contexts,
retrievals, answers, plans and ranked ids.

The relations are the ones their definitions imply: retrieving the ground truth itself scores
one; more retrieved chunks never lower recall and their order never changes it; a relevant
chunk moved ahead of an irrelevant one never lowers precision; supported claims and more
context never lower faithfulness; a trace that follows the plan scores one and extra steps never
lower it; a ranking of exactly the expected ids scores one, of none of them zero.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample
from evalmark.strategies import (
    ContextualPrecision,
    ContextualRecall,
    Faithfulness,
    PlanAdherence,
    RetrievalMetric,
)

VOCABULARY = ["refund", "thirty", "days", "invoice", "paris", "blue", "engine", "river", "42"]
SENTENCE = st.lists(st.sampled_from(VOCABULARY), min_size=2, max_size=4, unique=True).map(
    lambda ws: " ".join(ws).capitalize() + "."
)
SENTENCES = st.lists(SENTENCE, min_size=1, max_size=4, unique=True)
# chunks made of words no ground-truth sentence uses: never relevant
UNRELATED = st.lists(
    st.sampled_from(["zebra", "quartz", "violin", "tundra"]), min_size=2, max_size=3, unique=True
).map(" ".join)
IDS = st.text(alphabet="abcdefghij", min_size=1, max_size=3)


def sample(context: list[str], **fields: Any) -> Sample:
    return Sample(name="s", parameters=[], context=tuple(context), **fields)


def score(check: Any, item: Sample, output: Any) -> float:
    result = check.evaluate(item, output)
    assert 0.0 <= result.score <= 1.0
    assert result.passed == (result.score >= check.threshold)
    value: float = result.score
    return value


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES)
def test_retrieving_the_ground_truth_itself_scores_one(truth: list[str]) -> None:
    item = sample(truth)
    assert score(ContextualRecall(), item, list(truth)) == 1.0
    assert score(ContextualPrecision(), item, list(truth)) == 1.0


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, st.lists(SENTENCE | UNRELATED, max_size=4), st.lists(SENTENCE | UNRELATED))
def test_more_retrieved_chunks_never_lower_recall(
    truth: list[str], retrieved: list[str], more: list[str]
) -> None:
    item = sample(truth)
    assert score(ContextualRecall(), item, retrieved + more) >= score(
        ContextualRecall(), item, retrieved
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, st.lists(SENTENCE | UNRELATED, max_size=5), st.randoms())
def test_recall_does_not_depend_on_the_order_of_the_chunks(
    truth: list[str], retrieved: list[str], random: Any
) -> None:
    shuffled = list(retrieved)
    random.shuffle(shuffled)
    item = sample(truth)
    assert score(ContextualRecall(), item, shuffled) == pytest.approx(
        score(ContextualRecall(), item, retrieved)
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, st.lists(UNRELATED, min_size=1, max_size=4))
def test_retrieving_only_unrelated_chunks_scores_zero(
    truth: list[str], retrieved: list[str]
) -> None:
    item = sample(truth)
    assert score(ContextualPrecision(), item, retrieved) == 0.0
    assert score(ContextualRecall(), item, retrieved) == 0.0


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, st.lists(SENTENCE | UNRELATED, min_size=2, max_size=6), st.data())
def test_moving_a_relevant_chunk_ahead_never_lowers_precision(
    truth: list[str], retrieved: list[str], data: Any
) -> None:
    item = sample(truth)
    unrelated = data.draw(UNRELATED)
    relevant = data.draw(st.sampled_from(truth))
    at = data.draw(st.integers(0, len(retrieved)))
    later = [*retrieved[:at], unrelated, relevant, *retrieved[at:]]
    earlier = [*retrieved[:at], relevant, unrelated, *retrieved[at:]]
    assert (
        score(ContextualPrecision(), item, earlier)
        >= score(ContextualPrecision(), item, later) - 1e-12
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES)
def test_an_answer_made_of_its_context_is_faithful(context: list[str]) -> None:
    assert score(Faithfulness(), sample(context), " ".join(context)) == 1.0


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, st.lists(SENTENCE | UNRELATED.map(lambda t: t + "."), max_size=4), st.data())
def test_a_supported_claim_never_lowers_faithfulness(
    context: list[str], claims: list[str], data: Any
) -> None:
    item = sample(context)
    answer = " ".join(claims)
    supported = data.draw(st.sampled_from(context))
    assert (
        score(Faithfulness(), item, f"{answer} {supported}".strip())
        >= score(Faithfulness(), item, answer) - 1e-12
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, SENTENCES, st.lists(SENTENCE, max_size=4))
def test_more_context_never_lowers_faithfulness(
    context: list[str], more: list[str], claims: list[str]
) -> None:
    answer = " ".join(claims)
    assert score(Faithfulness(), sample(context + more), answer) >= score(
        Faithfulness(), sample(context), answer
    )


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCES, st.text(alphabet=" .,!?\n", max_size=8))
def test_an_answer_without_content_words_is_faithful(context: list[str], answer: str) -> None:
    assert score(Faithfulness(), sample(context), answer) == 1.0


PLAN_STEPS = st.lists(
    st.lists(st.sampled_from(VOCABULARY), min_size=2, max_size=3, unique=True).map(" ".join),
    min_size=1,
    max_size=5,
    unique=True,
)


def plan_sample() -> Sample:
    return Sample(name="s", parameters=[], expected_output="x")


@settings(max_examples=examples(60), deadline=None)
@given(PLAN_STEPS)
def test_a_trace_that_follows_the_plan_scores_one(plan: list[str]) -> None:
    assert score(PlanAdherence(plan), plan_sample(), list(plan)) == 1.0


@settings(max_examples=examples(60), deadline=None)
@given(PLAN_STEPS, st.lists(SENTENCE | UNRELATED, max_size=5), st.lists(SENTENCE | UNRELATED))
def test_extra_trace_steps_never_lower_plan_adherence(
    plan: list[str], trace: list[str], more: list[str]
) -> None:
    check = PlanAdherence(plan)
    assert score(check, plan_sample(), trace + more) >= score(check, plan_sample(), trace)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 6), st.data())
def test_a_trace_of_some_plan_steps_in_order_scores_their_share(size: int, data: Any) -> None:
    plan = [f"alpha{i} bravo{i}" for i in range(size)]  # steps share no content word
    kept = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    trace = [step for step, keep in zip(plan, kept, strict=True) if keep]
    noise = data.draw(st.lists(UNRELATED, max_size=3))
    check = PlanAdherence(plan, threshold=0.0)
    assert score(check, plan_sample(), trace + noise) == pytest.approx(sum(kept) / size)
    assert score(check, plan_sample(), trace[::-1]) == pytest.approx(min(1, sum(kept)) / size)


RANKED = st.lists(IDS, min_size=1, max_size=8, unique=True)


def ranking_sample(expected: list[str]) -> Sample:
    return Sample(name="s", parameters=[], expected_outputs=tuple(expected))


@settings(max_examples=examples(60), deadline=None)
@given(RANKED, st.sampled_from(["ndcg_cut_10", "map", "recip_rank", "Rprec"]))
def test_ranking_exactly_the_expected_ids_scores_one(expected: list[str], measure: str) -> None:
    assert score(RetrievalMetric(measure), ranking_sample(expected), list(expected)) == 1.0


@settings(max_examples=examples(60), deadline=None)
@given(RANKED, st.lists(IDS.map(lambda i: "z" + i), min_size=1, max_size=5, unique=True))
def test_ranking_none_of_the_expected_ids_scores_zero(
    expected: list[str], retrieved: list[str]
) -> None:
    for measure in ("ndcg_cut_10", "map", "recip_rank", "P_5"):
        assert score(RetrievalMetric(measure), ranking_sample(expected), retrieved) == 0.0


@settings(max_examples=examples(60), deadline=None)
@given(RANKED, st.lists(IDS, min_size=1, max_size=6, unique=True), st.integers(1, 4))
def test_unrelated_ids_after_the_ranking_leave_reciprocal_rank_and_map_unchanged(
    expected: list[str], retrieved: list[str], extra: int
) -> None:
    tail = [f"z{i}" for i in range(extra)]
    assume(not set(tail) & set(expected))
    item = ranking_sample(expected)
    for measure in ("recip_rank", "map"):
        assert score(RetrievalMetric(measure), item, retrieved + tail) == pytest.approx(
            score(RetrievalMetric(measure), item, retrieved), abs=1e-6
        )
