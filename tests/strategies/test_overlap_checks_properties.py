"""Properties of the overlap checks (token F1, ROUGE, BLEU, chrF, Levenshtein, SQuAD exact
match, semantic similarity) as checks, over generated sentences.

Identity scores one, the symmetric measures are symmetric, bag-of-words measures ignore word
order, the documented normalizations (case, articles, punctuation) hold, and an output given as
a TestCase, a JSON value or through the batch path with any worker count scores what the plain
text scores.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, TestCase
from evalmark.models import HashEmbedding
from evalmark.strategies import (
    Bleu,
    Chrf,
    LevenshteinSimilarity,
    RougeL,
    RougeLsum,
    RougeN,
    SemanticSimilarity,
    SquadExactMatch,
    TokenF1,
)

WORD = st.sampled_from(["cat", "sat", "mat", "dog", "ran", "paris", "42", "blue", "sky", "big"])
WORDS = st.lists(WORD, min_size=1, max_size=8)
SENTENCE = WORDS.map(" ".join)
ANY_TEXT = st.text(max_size=16)


def sample(expected: str) -> Sample:
    return Sample(name="s", parameters=[], expected_output=expected)


def score(check: Any, expected: str, output: Any) -> float:
    value: float = check.evaluate(sample(expected), output).score
    return value


def every_overlap_check() -> list[Any]:
    return [
        TokenF1(),
        RougeL(),
        RougeLsum(),
        RougeN(n=1),
        RougeN(n=2),
        Bleu(),
        Chrf(),
        LevenshteinSimilarity(),
        SquadExactMatch(),
        SemanticSimilarity(model=HashEmbedding(dim=32)),
    ]


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE)
def test_every_overlap_check_scores_a_text_against_itself_one(text: str) -> None:
    for check in every_overlap_check():
        if isinstance(check, Bleu) and len(text.split()) < 4:
            continue  # BLEU-4 has no 4-grams to match in a shorter text
        if isinstance(check, RougeN) and len(text.split()) < 2:
            continue
        assert score(check, text, text) == pytest.approx(1.0), check.name


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_token_f1_is_symmetric(a: str, b: str) -> None:
    assert score(TokenF1(), a, b) == pytest.approx(score(TokenF1(), b, a))


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, SENTENCE, st.randoms())
def test_token_f1_ignores_word_order(words: list[str], expected: str, random: Any) -> None:
    shuffled = list(words)
    random.shuffle(shuffled)
    assert score(TokenF1(), expected, " ".join(words)) == pytest.approx(
        score(TokenF1(), expected, " ".join(shuffled))
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_token_f1_and_squad_ignore_case(expected: str, output: str) -> None:
    for check in (TokenF1(), SquadExactMatch()):
        assert score(check, expected, output.upper()) == score(check, expected, output)


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, st.sampled_from(["the ", "a ", "an "]), st.sampled_from(["", ".", "!", ","]))
def test_squad_exact_match_ignores_articles_and_punctuation(
    text: str, article: str, mark: str
) -> None:
    assert SquadExactMatch().evaluate(sample(text), article + text + mark).passed


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_squad_exact_match_passes_only_where_token_f1_is_one(expected: str, output: str) -> None:
    exact = SquadExactMatch().evaluate(sample(expected), output)
    assert exact.score in (0.0, 1.0)
    if exact.passed:
        assert score(TokenF1(), expected, output) == pytest.approx(1.0)


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_rouge_f_measures_are_symmetric(a: str, b: str) -> None:
    for check in (RougeL(), RougeN(n=1), RougeN(n=2)):
        assert score(check, a, b) == pytest.approx(score(check, b, a)), check.name


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, SENTENCE, st.randoms())
def test_rouge_1_ignores_word_order(words: list[str], expected: str, random: Any) -> None:
    shuffled = list(words)
    random.shuffle(shuffled)
    check = RougeN(n=1)
    assert score(check, expected, " ".join(words)) == pytest.approx(
        score(check, expected, " ".join(shuffled))
    )


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_rouge_l_is_at_most_rouge_1(expected: str, output: str) -> None:
    assert score(RougeL(), expected, output) <= score(RougeN(n=1), expected, output) + 1e-12


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_rouge_ignores_case(expected: str, output: str) -> None:
    for check in (RougeL(), RougeN(n=1)):
        assert score(check, expected, output.upper()) == pytest.approx(
            score(check, expected, output)
        )


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_levenshtein_similarity_is_symmetric_and_one_only_for_equal_texts(a: str, b: str) -> None:
    forward = score(LevenshteinSimilarity(), a, b)
    assert forward == pytest.approx(score(LevenshteinSimilarity(), b, a))
    assert (forward == 1.0) == (a == b) or (not a and not b)


@settings(max_examples=examples(60), deadline=None)
@given(SENTENCE, SENTENCE)
def test_semantic_similarity_with_hash_embeddings_is_symmetric(a: str, b: str) -> None:
    check = SemanticSimilarity(model=HashEmbedding(dim=32))
    assert score(check, a, b) == pytest.approx(score(check, b, a))


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE)
def test_chrf_and_bleu_score_an_empty_output_zero(expected: str) -> None:
    for check in (Chrf(), Bleu(), TokenF1(), RougeL()):
        assert score(check, expected, "") == 0.0, check.name
        assert not check.evaluate(sample(expected), "").passed


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE, SENTENCE)
def test_a_test_case_output_scores_what_its_actual_output_scores(
    expected: str, output: str
) -> None:
    case = TestCase("question", output)
    for check in every_overlap_check():
        assert score(check, expected, case) == score(check, expected, output), check.name


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE, st.dictionaries(WORD, st.integers(0, 9) | WORD, max_size=3))
def test_a_json_output_scores_what_its_canonical_text_scores(
    expected: str, value: dict[str, Any]
) -> None:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    for check in every_overlap_check():
        assert score(check, expected, value) == score(check, expected, text), check.name


@settings(max_examples=examples(15), deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=12), st.integers(1, 4))
def test_the_batch_path_gives_the_same_column_for_any_worker_count(
    pairs: list[tuple[str, str]], workers: int
) -> None:
    samples = [sample(e) for e, _ in pairs]
    outputs = [o for _, o in pairs]
    for make in (TokenF1, RougeL, LevenshteinSimilarity, Chrf, SquadExactMatch):
        one = make(workers=1).evaluate_batch(samples, outputs)
        many = make(workers=workers).evaluate_batch(samples, outputs)
        assert [r.score for r in one] == [r.score for r in many], make
        assert [r.passed for r in one] == [r.passed for r in many], make


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE, SENTENCE)
def test_scoring_twice_gives_the_same_result(expected: str, output: str) -> None:
    for check in every_overlap_check():
        first = check.evaluate(sample(expected), output)
        assert check.evaluate(sample(expected), output) == first, check.name


@settings(max_examples=examples(40), deadline=None)
@given(SENTENCE, SENTENCE, st.floats(0.0, 1.0))
def test_the_explanation_states_the_threshold_comparison(
    expected: str, output: str, threshold: float
) -> None:
    result = TokenF1(threshold).evaluate(sample(expected), output)
    assert (">=" in result.explanation) == result.passed
    assert ("<" in result.explanation) == (not result.passed)
