"""promptfoo's own test expectations for its ``levenshtein`` and ``bleu`` assertions
(``test/assertions/levenshtein.test.ts``, ``test/assertions/bleu.test.ts``), as values, against
the ``promptfoo-asserts`` check's re-scoring.

An assertion handler that throws in promptfoo (a value of the wrong type, no reference) is an
assertion that fails here. The BLEU cases with custom n-gram weights are left out: an
assertion cannot set them.
"""

from __future__ import annotations

from typing import Any

import pytest

from evalmark.strategies._promptfoo import promptfoo_assert_score, promptfoo_bleu

CAT = "The cat sat on the mat."


@pytest.mark.parametrize(
    ("value", "output", "threshold", "passed"),
    [
        ("test", "test", None, True),
        ("test", "tast", None, True),
        ("test", "tist", 2, True),
        ("test", "completely different", None, False),
        ("test", "tast", 0, False),  # a threshold of 0 is kept, not replaced by the default
        ("", "", None, True),
        ("test!@#$", "test!@#$", None, True),
    ],
)
def test_levenshtein_cases(value: str, output: str, threshold: float | None, passed: bool) -> None:
    score = 1.0 if passed else 0.0
    assert promptfoo_assert_score("levenshtein", output, value, threshold) == (passed, score)


@pytest.mark.parametrize("kind", ["levenshtein", "not-levenshtein"])
def test_a_levenshtein_value_that_is_not_text_fails(kind: str) -> None:
    """promptfoo throws ('must have a string value'): the assertion fails, inverted or not."""
    assert promptfoo_assert_score(kind, "test", 123, None) == (False, 0.0)


@pytest.mark.parametrize(
    ("candidate", "references", "low", "high"),
    [
        (CAT, [CAT], 0.999, None),
        ("Dogs run in the park.", [CAT], 0.0, 0.001),
        ("The dog sat on the mat.", [CAT], 0.5, 1.0),
        ("cat", ["cat"], 0.0, None),
        ("The cat sat.", [CAT], 0.0, 1.0),
        (
            "The cat was sitting on the mat.",
            [CAT, "There is a cat on the mat.", "A cat is sitting on the mat."],
            0.25,
            None,
        ),
        (
            "The cat sat on mat.",
            ["The cat sat on mat.", "Cat mat.", "A cat is sitting on a mat."],
            0.999,
            None,
        ),
        (
            "The small cat sat.",
            ["The small cat sat.", "A cat was sitting.", "The cat is on the mat."],
            0.999,
            None,
        ),
    ],
)
def test_bleu_score_cases(
    candidate: str, references: list[str], low: float, high: float | None
) -> None:
    score = promptfoo_bleu(candidate, references)
    assert score > low
    if high is not None:
        assert score < high


def test_bleu_refuses_no_reference() -> None:
    with pytest.raises(ValueError):
        promptfoo_bleu("test", [])
    assert promptfoo_assert_score("bleu", "test", [], None) == (False, 0.0)


@pytest.mark.parametrize(
    ("kind", "value", "output", "threshold", "passed"),
    [
        ("bleu", CAT, CAT, None, True),
        (
            "bleu",
            ["The cat sat on mat.", "The cat is sitting on mat."],
            "The cat sat on mat.",
            None,
            True,
        ),
        ("bleu", CAT, "The dog sat on the mat.", 0.8, False),
        ("not-bleu", CAT, "The dog ran in the park.", 0.8, True),
        ("bleu", CAT, "The dog ran in the park.", None, False),
    ],
)
def test_bleu_assertion_cases(
    kind: str, value: Any, output: str, threshold: float | None, passed: bool
) -> None:
    ok, score = promptfoo_assert_score(kind, output, value, threshold)
    bleu = promptfoo_bleu(output, value)
    assert ok is passed
    assert score == pytest.approx(1 - bleu if kind.startswith("not-") else bleu)


@pytest.mark.parametrize("value", [123, ["a", 1], {"a": "b"}, None])
@pytest.mark.parametrize("kind", ["bleu", "not-bleu"])
def test_a_bleu_value_that_is_not_text_fails(kind: str, value: Any) -> None:
    """promptfoo throws ('must have a string or array of strings value'): it fails."""
    assert promptfoo_assert_score(kind, "a", value, None) == (False, 0.0)
