"""``split_summaries=True`` on ROUGE-Lsum (rouge-score's option of that name, with evalmark's
own sentence rule): the same number as splitting both sides first, in every form the metric
table gives ROUGE-Lsum (function, batch, TextColumn, several targets, strategy, suite kind)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evalmark as em
from evalmark import metrics
from evalmark.strategies import RougeLsum
from evalmark.strategies._registry import build_strategy

WORDS = st.sampled_from(["The", "cat", "sat", "Dogs", "run", "fast", "it", "was", "2024", "ok"])
ENDS = st.sampled_from([".", "!", "?", "...", '."', ""])
SENTENCE = st.builds(
    lambda ws, end: " ".join(ws) + end, st.lists(WORDS, min_size=1, max_size=6), ENDS
)
TEXT = st.builds(" ".join, st.lists(SENTENCE, min_size=1, max_size=5))

TARGET = "The cat sat on the mat. It was warm! Dogs ran past."
PREDICTION = "The cat sat. Dogs ran past the mat. It was warm."


def test_splitting_changes_the_score_of_one_line_summaries() -> None:
    plain = metrics.rouge_lsum(TARGET, PREDICTION)
    split = metrics.rouge_lsum(TARGET, PREDICTION, split_summaries=True)
    assert split != plain
    assert split == metrics.rouge_lsum(
        metrics.split_summaries(TARGET), metrics.split_summaries(PREDICTION)
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=6))
def test_every_form_equals_splitting_first(rows: list[tuple[str, str, str]]) -> None:
    targets = [t for t, _, _ in rows]
    predictions = [p for _, p, _ in rows]
    split = metrics.split_summaries
    want = [metrics.rouge_lsum(split(t), split(p)) for t, p, _ in rows]
    assert [metrics.rouge_lsum(t, p, split_summaries=True) for t, p, _ in rows] == want
    assert list(metrics.rouge_lsum_batch(targets, predictions, split_summaries=True)) == want
    columns = metrics.rouge_lsum_batch(
        metrics.TextColumn.from_strings(targets),
        metrics.TextColumn.from_strings(predictions),
        split_summaries=True,
    )
    assert list(columns) == want
    several = [[t, other] for t, _, other in rows]
    best = [metrics.rouge_lsum([split(t), split(o)], split(p)) for t, p, o in rows]
    assert list(metrics.rouge_lsum_batch(several, predictions, split_summaries=True)) == best


def test_the_strategy_and_the_suite_kind_take_the_option() -> None:
    samples = em.Samples([em.Sample(name="s", parameters=("q",), expected_output=TARGET)])
    report = em.Scorer().evaluate(samples, lambda q: PREDICTION, RougeLsum(split_summaries=True))
    score = next(iter(next(iter(report.rows())).results.values())).score
    assert score == metrics.rouge_lsum(TARGET, PREDICTION, split_summaries=True)
    kind = build_strategy("rouge-lsum", {"name": "l", "split-summaries": True}, None)
    assert kind.split_summaries is True


def test_a_split_flag_that_is_not_a_bool_is_refused() -> None:
    with pytest.raises(TypeError, match="split_summaries must be a bool"):
        metrics.rouge_lsum(TARGET, PREDICTION, split_summaries="yes")  # type: ignore[arg-type]
