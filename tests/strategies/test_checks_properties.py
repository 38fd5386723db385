"""Properties of every check kind that runs offline, over generated samples and outputs.

For each kind: the score lies in [0, 1]; the verdict agrees with the score and the threshold; a
higher threshold never turns a fail into a pass; the batch path gives what one call per row
gives, in any order of the rows; a metric check scores what its metric function scores; and any
text (control characters, lone surrogates, right-to-left marks, a megabyte) gives a result or a
typed error, never another exception.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample
from evalmark.errors import EvalmarkError
from evalmark.metrics import (
    bleu,
    chrf,
    levenshtein_similarity,
    rouge_l,
    rouge_lsum,
    rouge_n,
    token_f1,
)
from evalmark.models import HashEmbedding
from evalmark.strategies import (
    Bleu,
    Chrf,
    Composite,
    Contains,
    ContainsFacts,
    ContextualPrecision,
    ContextualRecall,
    ExactMatch,
    Faithfulness,
    JsonKeysMatch,
    JsonMatch,
    KeywordRelevance,
    LevenshteinSimilarity,
    PlanAdherence,
    RougeL,
    RougeLsum,
    RougeN,
    SemanticSimilarity,
    TokenF1,
)

# Words drawn from a small vocabulary overlap often, so verdicts of both kinds occur.
WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "dog", "Paris", "42", "über", "a"])
SENTENCES = st.lists(WORDS, max_size=8).map(" ".join)
# Text that has broken parsers before: controls, lone surrogates, bidi marks, combining marks.
HOSTILE_CHARS = st.sampled_from(
    ["\x00", "\x1b", "\ud800", "\udfff", "\u202e", "\u200f", "\u0301", "\ufeff", "\n", "\r", "<"]
)
HOSTILE = st.lists(st.one_of(WORDS, HOSTILE_CHARS, st.text(max_size=4)), max_size=12).map("".join)
THRESHOLDS = st.floats(0.0, 1.0)

METRIC_CHECKS: dict[str, tuple[Callable[[float], Any], Callable[[str, str], float]]] = {
    "TokenF1": (lambda t: TokenF1(t), token_f1),
    "RougeL": (lambda t: RougeL(t), rouge_l),
    "LevenshteinSimilarity": (lambda t: LevenshteinSimilarity(t), levenshtein_similarity),
    "RougeN": (lambda t: RougeN(t, n=2), lambda e, a: rouge_n(e, a, n=2)),
    "RougeLsum": (lambda t: RougeLsum(t), rouge_lsum),
    "Bleu": (lambda t: Bleu(t), bleu),
    "Chrf": (lambda t: Chrf(t), chrf),
}


def sample(expected: str | None = "", **fields: Any) -> Sample:
    """A sample named ``s`` with one expected output (and any other field)."""
    return Sample(name="s", parameters=[], expected_output=expected, **fields)


def offline_checks(threshold: float) -> list[Any]:
    """One check of every offline kind that takes a threshold."""
    made = [make(threshold) for make, _ in METRIC_CHECKS.values()]
    made.append(SemanticSimilarity(threshold, model=HashEmbedding(dim=32)))
    made.append(KeywordRelevance(("cat", "mat"), threshold=threshold))
    made.append(ContextualPrecision(threshold))
    made.append(ContextualRecall(threshold))
    made.append(Faithfulness(threshold))
    made.append(PlanAdherence(["cat sat", "dog"], threshold=threshold))
    made.append(JsonKeysMatch(threshold=threshold, aggregator="average"))
    return made


def every_check() -> list[Any]:
    """A check of every offline kind, thresholds at their defaults."""
    return [
        *offline_checks(0.5),
        ExactMatch(),
        Contains(),
        ContainsFacts(("cat",)),
        JsonMatch(),
        Composite(ExactMatch(), TokenF1()),
    ]


def judged(check: Any, item: Sample, output: Any) -> EvaluationResult | None:
    """The check's result, or None when the check refused the input with a typed error."""
    try:
        result: EvaluationResult = check.evaluate(item, output)
    except EvalmarkError:
        return None
    return result


def refused_as_malformed(check: Any, result: EvaluationResult) -> bool:
    """A JSON check fails an output that is not JSON whatever its threshold."""
    return isinstance(check, JsonKeysMatch) and "not valid JSON" in result.explanation


def assert_well_formed(result: EvaluationResult) -> None:
    assert isinstance(result, EvaluationResult)
    assert 0.0 <= result.score <= 1.0 and not math.isnan(result.score)
    if result.error is not None:
        assert not result.passed


def contexts() -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(SENTENCES, max_size=3).map(tuple)


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, SENTENCES, contexts(), THRESHOLDS)
def test_every_thresholded_check_has_a_score_in_range_and_a_verdict_that_agrees(
    expected: str, output: str, context: tuple[str, ...], threshold: float
) -> None:
    item = sample(expected, context=context)
    for check in offline_checks(threshold):
        result = judged(check, item, output)
        if result is None:
            continue
        assert_well_formed(result)
        if result.passed:
            assert result.score >= check.threshold, (check, result)
        elif result.error is None and not refused_as_malformed(check, result):
            assert result.score < check.threshold, (check, result)


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, SENTENCES, contexts(), THRESHOLDS, THRESHOLDS)
def test_a_higher_threshold_never_turns_a_fail_into_a_pass(
    expected: str, output: str, context: tuple[str, ...], t1: float, t2: float
) -> None:
    low, high = sorted((t1, t2))
    item = sample(expected, context=context)
    for lenient, strict in zip(offline_checks(low), offline_checks(high), strict=True):
        a, b = judged(lenient, item, output), judged(strict, item, output)
        if a is None or b is None:
            assert a is None and b is None, lenient  # refusal does not depend on the threshold
            continue
        assert a.score == b.score, lenient
        assert a.passed or not b.passed, (lenient, a, b)


@pytest.mark.parametrize("kind", sorted(METRIC_CHECKS))
@settings(max_examples=examples(40), deadline=None)
@given(expected=SENTENCES, output=SENTENCES, threshold=THRESHOLDS)
def test_a_metric_check_scores_what_its_metric_function_scores(
    kind: str, expected: str, output: str, threshold: float
) -> None:
    make, function = METRIC_CHECKS[kind]
    result = make(threshold).evaluate(sample(expected), output)
    want = min(max(function(expected, output), 0.0), 1.0)
    assert result.score == pytest.approx(want, abs=1e-12)
    assert result.passed == (want >= threshold)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(SENTENCES, SENTENCES), min_size=1, max_size=8), st.randoms())
def test_the_batch_path_equals_one_call_per_row_in_any_order(
    pairs: list[tuple[str, str]], random: Any
) -> None:
    samples = [sample(e, context=(e,)) for e, _ in pairs]
    outputs = [o for _, o in pairs]
    order = list(range(len(pairs)))
    random.shuffle(order)
    for check in offline_checks(0.5):
        if not hasattr(check, "evaluate_batch"):
            continue
        column = check.evaluate_batch(samples, outputs)
        shuffled = check.evaluate_batch([samples[i] for i in order], [outputs[i] for i in order])
        for position, i in enumerate(order):
            one = check.evaluate(samples[i], outputs[i])
            assert column[i].score == one.score == shuffled[position].score, check
            assert column[i].passed == one.passed == shuffled[position].passed, check


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=5, unique=True), SENTENCES)
def test_contains_facts_scores_the_share_of_facts_found(facts: list[str], output: str) -> None:
    result = ContainsFacts(tuple(facts)).evaluate(sample("x"), output)
    found = sum(f.casefold() in output.casefold() for f in facts)
    assert result.score == pytest.approx(found / len(facts))
    assert result.passed == (found == len(facts))


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCES, SENTENCES)
def test_exact_match_passes_exactly_when_contains_both_ways(expected: str, output: str) -> None:
    exact = ExactMatch().evaluate(sample(expected), output)
    forward = Contains().evaluate(sample(expected), output)
    backward = Contains(output).evaluate(sample("x"), expected) if output else None
    assert exact.score in (0.0, 1.0) and exact.passed == (exact.score == 1.0)
    if exact.passed:
        assert forward.passed and (backward is None or backward.passed)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@settings(max_examples=examples(80), deadline=None)
@given(json_values, st.randoms())
def test_json_checks_pass_a_document_against_itself_whatever_its_key_order(
    value: Any, random: Any
) -> None:
    def shuffled(node: Any) -> Any:
        if isinstance(node, dict):
            keys = list(node)
            random.shuffle(keys)
            return {k: shuffled(node[k]) for k in keys}
        if isinstance(node, list):
            return [shuffled(v) for v in node]
        return node

    expected = json.dumps(value)
    output = json.dumps(shuffled(value))
    assert JsonMatch().evaluate(sample(expected), output).passed
    keys = judged(JsonKeysMatch(), sample(expected), output)
    if keys is not None:
        assert_well_formed(keys)
        assert keys.passed or not isinstance(value, dict)


@settings(max_examples=examples(60), deadline=None)
@given(HOSTILE, HOSTILE, st.lists(HOSTILE, max_size=2).map(tuple))
def test_hostile_text_gives_a_result_or_a_typed_error(
    expected: str, output: str, context: tuple[str, ...]
) -> None:
    item = sample(expected, context=context, expected_facts=(expected or "x",))
    for check in every_check():
        result = judged(check, item, output)
        if result is not None:
            assert_well_formed(result)


@pytest.mark.parametrize("char", ["\ud800\x00", "\u202e"])
def test_a_megabyte_of_text_gives_a_result_or_a_typed_error(char: str) -> None:
    big = ("the cat " + char) * (1_000_000 // 9)
    item = sample("the cat sat", context=("the cat",), expected_facts=("cat",))
    for check in every_check():
        if isinstance(check, Composite):
            continue  # its members are checked on their own
        result = judged(check, item, big)
        if result is not None:
            assert_well_formed(result)
