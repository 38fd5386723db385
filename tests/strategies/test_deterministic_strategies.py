"""Deterministic and metric strategies: verdicts, explanations, batch path equal to one by one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark import Sample, TestCase, metrics
from evalmark.errors import StrategyError
from evalmark.models import HashEmbedding
from evalmark.strategies import (
    Composite,
    Contains,
    ContainsFacts,
    ExactMatch,
    Guardrail,
    JsonMatch,
    KeywordRelevance,
    LevenshteinSimilarity,
    RougeL,
    SemanticSimilarity,
    TokenF1,
)
from evalmark.strategies._retrieval import RetrievedSegments


def sample(expected: str | None = "Paris", **fields: object) -> Sample:
    if "expected_outputs" in fields:
        expected = None
    return Sample(
        name=str(fields.pop("name", "s")), parameters=["q"], expected_output=expected, **fields
    )  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("output", "passed"),
    [
        ("paris", True),
        ("  Paris!  ", True),
        ("PARIS.", True),
        ("Paris, France", False),
        ("Lyon", False),
    ],
)
def test_exact_match_normalizes_case_punctuation_and_space(output: str, passed: bool) -> None:
    assert ExactMatch().evaluate(sample(), output).passed is passed


def test_exact_match_can_keep_case_and_names_what_differs() -> None:
    result = ExactMatch(case=False).evaluate(sample(), "paris")
    assert not result.passed and "'paris'" in result.explanation and "'Paris'" in result.explanation
    assert ExactMatch().evaluate(sample(expected_outputs=["Rome", "Paris"]), "paris").passed


def test_exact_match_reads_test_cases() -> None:
    assert ExactMatch().evaluate(sample(), TestCase("q", "Paris")).passed


def test_contains() -> None:
    assert Contains().evaluate(sample(), "It is PARIS, of course").passed
    assert not Contains(case_sensitive=True).evaluate(sample(), "it is paris").passed
    result = Contains("Eiffel").evaluate(sample(), "Paris")
    assert not result.passed and "'Eiffel'" in result.explanation


def test_contains_facts_lists_the_missing_ones() -> None:
    s = sample(expected_facts=["30 days", "full refund", "receipt"])
    result = ContainsFacts().evaluate(s, "You get a Full Refund within 30 days.")
    assert not result.passed
    assert result.score == pytest.approx(2 / 3)
    assert "'receipt'" in result.explanation and "1 of 3" in result.explanation
    assert result.metadata["missing"] == ["receipt"]
    assert ContainsFacts().evaluate(s, "30 days, full refund, keep the receipt").passed


def test_contains_facts_without_facts_says_what_to_add() -> None:
    with pytest.raises(StrategyError, match="sample 's' has no expected facts"):
        ContainsFacts().evaluate(sample(), "x")


TEXTS = [
    ("the cat sat on the mat", "a cat sat on a mat"),
    ("Paris is the capital of France", "The capital is Paris"),
    ("", ""),
    ("completely different", "nothing shared here"),
]


@pytest.mark.parametrize(
    ("strategy", "kernel"),
    [
        (TokenF1(0.5), metrics.token_f1),
        (RougeL(0.5), metrics.rouge_l),
        (LevenshteinSimilarity(0.5), metrics.levenshtein_similarity),
    ],
)
def test_metric_strategies_equal_the_kernels_and_batch_equals_scalar(strategy, kernel) -> None:  # type: ignore[no-untyped-def]
    samples = [sample(e, name=f"s{i}") for i, (e, _) in enumerate(TEXTS)]
    outputs = [a for _, a in TEXTS]
    column = strategy.evaluate_batch(samples, outputs)
    for i, (e, a) in enumerate(TEXTS):
        expected = kernel(e, a)
        assert column[i].score == pytest.approx(expected, abs=0)
        assert column[i].passed is (expected >= 0.5)
        assert strategy.evaluate(samples[i], a) == column[i]
    assert ">= threshold 0.5" in column[0].explanation or "< threshold 0.5" in column[0].explanation


def test_metric_strategy_scores_the_best_of_several_expected_outputs() -> None:
    s = sample(expected_outputs=["Lyon", "the city of Paris", "Paris"])
    result = TokenF1(0.9).evaluate(s, "Paris")
    assert result.passed and result.score == 1.0


def test_a_row_without_expectation_is_an_error_and_the_others_still_score() -> None:
    good = sample("a b c", name="good")
    bad = Sample(name="no-expect", parameters=["q"], expected_outputs=[])
    column = TokenF1().evaluate_batch([good, bad], ["a b c", "x"])
    assert column[0].passed and column[0].score == 1.0
    assert column[1].error is not None and "no-expect" in column[1].error.message


def test_threshold_is_checked() -> None:
    with pytest.raises(ValueError, match="threshold"):
        TokenF1(1.5)


def test_json_match_by_value_and_strict() -> None:
    s = sample('{"a": 1, "b": [1, 2]}')
    assert JsonMatch().evaluate(s, '{"b": [1, 2.0], "a": 1.0}').passed
    strict = JsonMatch(numbers="strict").evaluate(s, '{"b": [1, 2.0], "a": 1.0}')
    assert not strict.passed and "differ" in strict.explanation
    assert JsonMatch().evaluate(s, {"a": 1, "b": [1, 2]}).passed


def test_json_match_invalid_output_fails_and_invalid_expected_names_the_sample() -> None:
    samples = [
        sample('{"a": 1}', name="ok"),
        sample("{nope", name="broken"),
        sample("[1]", name="arr"),
    ]
    column = JsonMatch().evaluate_batch(samples, ['{"a": 1}', "{}", "not json"])
    assert column[0].passed
    assert column[1].error is not None and "sample 'broken'" in column[1].explanation
    assert not column[2].passed and column[2].error is None
    assert "not valid JSON" in column[2].explanation


def test_semantic_similarity_uses_the_offline_hash_embedding_by_default() -> None:
    strategy = SemanticSimilarity(0.8)
    assert isinstance(strategy.model, HashEmbedding)
    s = sample("the refund takes thirty days")
    assert strategy.evaluate(s, "the refund takes thirty days").score == pytest.approx(
        1.0, abs=1e-6
    )
    far = strategy.evaluate(s, "quantum chromodynamics lecture notes")
    assert not far.passed and far.score < 0.5
    column = strategy.evaluate_batch([s, s], ["the refund takes thirty days", "unrelated words"])
    assert column.scores.tolist() == [
        strategy.evaluate(s, "the refund takes thirty days").score,
        strategy.evaluate(s, "unrelated words").score,
    ]


def test_retrieved_segments_score_is_found_over_expected() -> None:
    s = Sample(
        name="r", parameters=["q"], expected_outputs=["refund within 30 days", "Keep the receipt"]
    )
    retrieved = ["Policy: a REFUND WITHIN 30 DAYS of purchase.", "Shipping is free."]
    result = RetrievedSegments().evaluate(s, retrieved)
    assert not result.passed and result.score == 0.5
    assert "'Keep the receipt'" in result.explanation
    assert RetrievedSegments(threshold=0.5).evaluate(s, retrieved).passed
    both = RetrievedSegments().evaluate(
        s, [{"text": "keep the receipt"}, {"content": "Refund within 30 days"}]
    )
    assert both.passed and both.score == 1.0
    case = TestCase("q", "a", retrieval_context=("keep the receipt", "refund within 30 days"))
    assert RetrievedSegments().evaluate(s, case).passed


def test_guardrail_records_decisions() -> None:
    reject = Sample(name="g", parameters=["q"], expected_output="REJECT")
    assert Guardrail().evaluate(reject, "REJECT: unsafe").passed
    missed = Guardrail().evaluate(reject, "accept")
    assert not missed.passed and missed.explanation == "expected REJECT, got ACCEPT"
    assert missed.metadata["guardrail"] == {
        "expected": "REJECT",
        "actual": "ACCEPT",
        "positive": "ACCEPT",
    }
    assert not Guardrail().evaluate(reject, "hmm").passed
    assert Guardrail().evaluate(reject, False).passed
    with pytest.raises(StrategyError, match="ACCEPT or REJECT"):
        Guardrail().evaluate(sample("maybe"), "ACCEPT")


def test_composite_passes_when_all_pass_and_names_the_failing_members() -> None:
    s = sample("Paris", expected_facts=["Paris"])
    composite = Composite(ExactMatch(), ContainsFacts(), TokenF1(0.1))
    result = composite.evaluate(s, "Paris is lovely")
    assert not result.passed
    assert result.score == pytest.approx(
        (0.0 + 1.0 + metrics.token_f1("Paris", "Paris is lovely")) / 3
    )
    assert result.explanation.startswith("ExactMatch failed")
    assert "ContainsFacts" not in result.explanation
    members = result.metadata["members"]
    assert members["ContainsFacts"]["passed"] is True and members["ExactMatch"]["passed"] is False
    assert Composite(Contains(), ContainsFacts()).evaluate(s, "Paris").passed


def test_composite_member_error_makes_an_error_result() -> None:
    result = Composite(ContainsFacts(), Contains()).evaluate(sample(), "Paris")
    assert result.error is not None and "ContainsFacts" in result.explanation


def test_composite_needs_distinct_member_names() -> None:
    with pytest.raises(ValueError, match="TokenF1"):
        Composite(TokenF1(0.5), TokenF1(0.8))
    Composite(TokenF1(0.5), TokenF1(0.8, name="strict"))


def test_plain_functions_are_strategies() -> None:
    def short(s: Sample, output: str) -> bool:
        return len(output) < 10

    result = Composite(short).evaluate(sample(), "a long, long answer")
    assert not result.passed and "short" in result.explanation


def test_scores_are_numpy_free_python_floats() -> None:
    column = TokenF1().evaluate_batch([sample("a")], ["a"])
    assert type(column[0].score) is float and isinstance(column.scores, np.ndarray)


_words = st.lists(
    st.sampled_from(["the", "cat", "sat", "mat", "Paris", "a", "on", "!"]), max_size=6
)
_text = _words.map(" ".join)


@given(st.lists(st.tuples(st.lists(_text, min_size=1, max_size=3), _text), min_size=1, max_size=8))
def test_batch_scores_are_the_best_scalar_score_over_expected_outputs(
    rows: list[tuple[list[str], str]],
) -> None:
    samples = [
        Sample(name=f"r{i}", parameters=["q"], expected_outputs=choices)
        if len(choices) > 1
        else Sample(name=f"r{i}", parameters=["q"], expected_output=choices[0])
        for i, (choices, _) in enumerate(rows)
    ]
    outputs = [actual for _, actual in rows]
    for strategy, kernel in (
        (TokenF1(0.5), metrics.token_f1),
        (RougeL(0.5), metrics.rouge_l),
        (LevenshteinSimilarity(0.5), metrics.levenshtein_similarity),
    ):
        column = strategy.evaluate_batch(samples, outputs)
        function = type(strategy).function
        for i, (choices, actual) in enumerate(rows):
            if function is not None and function.targets == "many":
                # The function scores the list: the best gold answer (SQuAD), score_multi.
                assert column[i].score == kernel(choices, actual)
            else:
                assert column[i].score == max(kernel(e, actual) for e in choices)
            assert column[i].passed is (column[i].score >= 0.5)
    # ROUGE-L's F-measure of score_multi is the best F-measure of one target.
    assert RougeL(0.5).evaluate_batch(samples, outputs).scores.tolist() == [
        max(metrics.rouge_l(e, a) for e in choices) for choices, a in rows
    ]


def test_batch_calls_from_many_threads_equal_the_serial_results() -> None:
    batches = [
        (
            [
                Sample(name=f"b{b}-{i}", parameters=["q"], expected_output=f"word {i} of {b}")
                for i in range(50)
            ],
            [f"word {i} of {b % 3}" for i in range(50)],
        )
        for b in range(16)
    ]
    strategies = [TokenF1(0.5), RougeL(0.5), JsonMatch()]
    serial = [[s.evaluate_batch(*batch).scores.tolist() for s in strategies] for batch in batches]
    with ThreadPoolExecutor(8) as pool:
        parallel = list(
            pool.map(
                lambda batch: [s.evaluate_batch(*batch).scores.tolist() for s in strategies],
                batches,
            )
        )
    assert parallel == serial


def test_composite_of_batch_strategies_has_a_batch_path_equal_to_row_by_row() -> None:
    composite = Composite(TokenF1(0.5), RougeL(0.5), KeywordRelevance(("word",)))
    assert composite.batch is False  # KeywordRelevance has no batch path
    assert Composite(TokenF1(0.5), ExactMatch(), Contains(), ContainsFacts(("w",))).batch
    metric_only = Composite(TokenF1(0.5), RougeL(0.5), JsonMatch())
    assert metric_only.batch is True
    samples = [sample(e, name=f"c{i}") for i, (e, _) in enumerate(TEXTS)] + [
        Sample(name="none", parameters=["q"], expected_outputs=[])
    ]
    outputs = [a for _, a in TEXTS] + ["x"]
    column = metric_only.evaluate_batch(samples, outputs)
    for i, (s, o) in enumerate(zip(samples, outputs, strict=True)):
        assert column[i] == metric_only.evaluate(s, o)
    assert column.errored.tolist() == [r.error is not None for r in column]
    assert column[len(samples) - 1].error is not None
    mixed = composite.evaluate_batch(samples[:2], outputs[:2])
    assert mixed[1] == composite.evaluate(samples[1], outputs[1])
