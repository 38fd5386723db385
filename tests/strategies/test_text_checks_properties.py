"""Metamorphic properties of the text checks (ExactMatch, Contains, ContainsFacts,
KeywordRelevance) and of the normalization they share, over generated texts.

Each documented transform is applied to a generated text and the verdict is compared with the
verdict before: case and whitespace do not matter where the check says they do not, adding text
never removes a found fact or keyword, and the order of facts or keywords never matters.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample
from evalmark.errors import StrategyError
from evalmark.strategies import Contains, ContainsFacts, ExactMatch, KeywordRelevance
from evalmark.strategies._text import normalize_text

# ASCII words: case folding and whitespace behave as plainly as the transforms assume.
WORD = st.text(alphabet="abcdefgXYZ019", min_size=1, max_size=5)
WORDS = st.lists(WORD, min_size=1, max_size=6)
SPACES = st.text(alphabet=" \t\n", min_size=1, max_size=3)
ANY_TEXT = st.text(max_size=20)


def sample(expected: str | None = "x", **fields: Any) -> Sample:
    """A sample named ``s`` with one expected output."""
    return Sample(name="s", parameters=[], expected_output=expected, **fields)


def spaced(words: list[str], gaps: list[str]) -> str:
    """``words`` joined by the whitespace runs ``gaps`` (repeated as needed)."""
    out = words[0]
    for i, word in enumerate(words[1:]):
        out += gaps[i % len(gaps)] + word
    return out


def well_formed(result: EvaluationResult) -> None:
    assert 0.0 <= result.score <= 1.0 and not math.isnan(result.score)


@settings(max_examples=examples(80), deadline=None)
@given(ANY_TEXT)
def test_normalize_text_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@settings(max_examples=examples(80), deadline=None)
@given(ANY_TEXT, st.booleans(), st.booleans())
def test_normalized_text_has_no_outer_or_double_whitespace(
    text: str, case: bool, punctuation: bool
) -> None:
    out = normalize_text(text, case=case, punctuation=punctuation)
    assert out == out.strip()
    assert "  " not in out and "\n" not in out and "\t" not in out


@settings(max_examples=examples(60), deadline=None)
@given(WORDS)
def test_normalize_text_folds_ascii_case(words: list[str]) -> None:
    text = " ".join(words)
    assert normalize_text(text.upper()) == normalize_text(text.lower())


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_exact_match_scores_zero_or_one_and_passes_at_one(expected: str, output: str) -> None:
    result = ExactMatch().evaluate(sample(expected), output)
    assert result.score in (0.0, 1.0)
    assert result.passed == (result.score == 1.0)


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, st.booleans(), st.booleans())
def test_exact_match_passes_any_text_against_itself(
    text: str, case: bool, punctuation: bool
) -> None:
    check = ExactMatch(case=case, punctuation=punctuation)
    assert check.evaluate(sample(text), text).passed


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_exact_match_is_symmetric(expected: str, output: str) -> None:
    forward = ExactMatch().evaluate(sample(expected), output).passed
    assert ExactMatch().evaluate(sample(output), expected).passed == forward


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, st.lists(SPACES, min_size=1, max_size=3), SPACES, SPACES)
def test_exact_match_ignores_runs_and_ends_of_whitespace(
    words: list[str], gaps: list[str], lead: str, tail: str
) -> None:
    output = lead + spaced(words, gaps) + tail
    assert ExactMatch().evaluate(sample(" ".join(words)), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(WORDS)
def test_exact_match_ignores_case_unless_told(words: list[str]) -> None:
    text = " ".join(words)
    assert ExactMatch().evaluate(sample(text.lower()), text.upper()).passed
    strict = ExactMatch(case=False).evaluate(sample(text.lower()), text.upper()).passed
    assert strict == (text.lower() == text.upper())


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, st.sampled_from([".", ",", "!", "?", ";", ":"]))
def test_exact_match_ignores_trailing_punctuation_unless_told(words: list[str], mark: str) -> None:
    text = " ".join(words)
    assert ExactMatch().evaluate(sample(text), text + mark).passed
    assert not ExactMatch(punctuation=False).evaluate(sample(text), text + mark).passed


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=4), ANY_TEXT)
def test_exact_match_passes_a_list_of_answers_when_one_answer_passes(
    answers: list[str], output: str
) -> None:
    item = Sample(name="s", parameters=[], expected_outputs=tuple(answers))
    alone = [ExactMatch().evaluate(sample(a), output).passed for a in answers]
    assert ExactMatch().evaluate(item, output).passed == any(alone)


@settings(max_examples=examples(40), deadline=None)
@given(ANY_TEXT)
def test_a_sample_without_expected_output_is_a_typed_error(output: str) -> None:
    for check in (ExactMatch(), Contains()):
        with pytest.raises(StrategyError, match="expected output"):
            check.evaluate(sample(None, expected_facts=("x",)), output)


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_exact_match_pass_implies_contains_pass(expected: str, output: str) -> None:
    if ExactMatch(punctuation=False).evaluate(sample(expected), output).passed:
        assert Contains().evaluate(sample(expected), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, st.text(alphabet="abc XYZ", max_size=8), st.text(alphabet="abc XYZ", max_size=8))
def test_contains_finds_the_expected_text_wherever_it_is_put(
    words: list[str], before: str, after: str
) -> None:
    expected = " ".join(words)
    assert Contains().evaluate(sample(expected), f"{before} {expected} {after}").passed


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, st.text(alphabet="abc ", max_size=8))
def test_contains_ignores_case_by_default(words: list[str], around: str) -> None:
    expected = " ".join(words)
    output = f"{around} {expected.swapcase()} {around}"
    assert Contains().evaluate(sample(expected), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT)
def test_contains_case_sensitive_pass_implies_insensitive_pass(expected: str, output: str) -> None:
    if Contains(case_sensitive=True).evaluate(sample(expected), output).passed:
        assert Contains().evaluate(sample(expected), output).passed


@settings(max_examples=examples(60), deadline=None)
@given(WORDS, st.lists(SPACES, min_size=1, max_size=3))
def test_contains_collapses_whitespace_runs(words: list[str], gaps: list[str]) -> None:
    expected = " ".join(words)
    assert Contains().evaluate(sample(expected), "x " + spaced(words, gaps) + " y").passed
    assert Contains(case_sensitive=True).evaluate(sample(spaced(words, gaps)), expected).passed


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_contains_with_its_own_text_ignores_the_sample(
    text: str, expected: str, output: str
) -> None:
    one = Contains(text).evaluate(sample(expected), output)
    other = Contains(text).evaluate(sample(output), output)
    assert one.passed == other.passed and one.score in (0.0, 1.0)


@settings(max_examples=examples(60), deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_contains_survives_appending_text(expected: str, output: str, more: str) -> None:
    if Contains().evaluate(sample(expected), output).passed:
        assert Contains().evaluate(sample(expected), f"{output} {more}").passed


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8), st.randoms())
def test_contains_facts_does_not_depend_on_the_order_of_facts(
    facts: list[str], output_words: list[str], random: Any
) -> None:
    output = " ".join(output_words)
    shuffled = list(facts)
    random.shuffle(shuffled)
    a = ContainsFacts(tuple(facts)).evaluate(sample(), output)
    b = ContainsFacts(tuple(shuffled)).evaluate(sample(), output)
    assert (a.score, a.passed) == (b.score, b.passed)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8), ANY_TEXT)
def test_contains_facts_never_loses_a_fact_when_text_is_appended(
    facts: list[str], output_words: list[str], more: str
) -> None:
    output = " ".join(output_words)
    before = ContainsFacts(tuple(facts)).evaluate(sample(), output)
    after = ContainsFacts(tuple(facts)).evaluate(sample(), f"{output} {more}")
    assert after.score >= before.score
    assert after.passed or not before.passed


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8))
def test_contains_facts_reads_the_sample_facts_like_its_own(
    facts: list[str], output_words: list[str]
) -> None:
    output = " ".join(output_words)
    own = ContainsFacts(tuple(facts)).evaluate(sample(), output)
    read = ContainsFacts().evaluate(sample(expected_facts=tuple(facts)), output)
    assert (own.score, own.passed) == (read.score, read.passed)
    assert own.metadata["found"] == round(own.score * len(facts))


@settings(max_examples=examples(40), deadline=None)
@given(ANY_TEXT)
def test_contains_facts_without_facts_is_a_typed_error(output: str) -> None:
    with pytest.raises(StrategyError, match="no expected facts"):
        ContainsFacts().evaluate(sample(), output)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8), st.floats(0, 1))
def test_keyword_relevance_scores_in_range_and_agrees_with_its_threshold(
    keywords: list[str], output_words: list[str], threshold: float
) -> None:
    result = KeywordRelevance(keywords, threshold=threshold).evaluate(
        sample(), " ".join(output_words)
    )
    well_formed(result)
    assert result.passed == (result.score >= threshold)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8), st.randoms())
def test_keyword_relevance_does_not_depend_on_keyword_order(
    keywords: list[str], output_words: list[str], random: Any
) -> None:
    shuffled = list(keywords)
    random.shuffle(shuffled)
    output = " ".join(output_words)
    a = KeywordRelevance(keywords).evaluate(sample(), output)
    b = KeywordRelevance(shuffled).evaluate(sample(), output)
    assert a.score == b.score


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5), st.lists(WORD, max_size=8), st.lists(WORD))
def test_keyword_relevance_never_drops_when_words_are_appended(
    keywords: list[str], output_words: list[str], more: list[str]
) -> None:
    output = " ".join(output_words)
    before = KeywordRelevance(keywords).evaluate(sample(), output)
    after = KeywordRelevance(keywords).evaluate(sample(), " ".join([output, *more]))
    assert after.score >= before.score


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=5))
def test_keyword_relevance_finds_every_keyword_in_their_own_text(keywords: list[str]) -> None:
    output = " and ".join(k.upper() for k in keywords)
    assert KeywordRelevance(keywords).evaluate(sample(), output).score == 1.0


@settings(max_examples=examples(40), deadline=None)
@given(st.floats(allow_nan=False).filter(lambda t: not 0.0 <= t <= 1.0))
def test_keyword_relevance_refuses_a_threshold_outside_zero_one(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        KeywordRelevance(["a"], threshold=threshold)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(WORD, min_size=1, max_size=4), st.lists(WORD, max_size=6))
def test_keyword_relevance_reads_metadata_keywords_like_its_own(
    keywords: list[str], output_words: list[str]
) -> None:
    output = " ".join(output_words)
    own = KeywordRelevance(keywords).evaluate(sample(), output)
    read = KeywordRelevance().evaluate(sample(metadata={"keywords": keywords}), output)
    assert own.score == read.score
