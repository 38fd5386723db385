"""Reading judges' replies: verdict, grade and JSON tables; failures keep the raw reply."""

from __future__ import annotations

import pytest

from evalmark.errors import JudgeParseError
from evalmark.strategies._parsing import (
    parse_grade,
    parse_grade_reply,
    parse_json_judgment,
    parse_verdict_reply,
    parse_yes_no,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Yes.", True),
        ("**Yes**", True),
        ("yes, because the document says so", True),
        ("  YES", True),
        ("> _No_ — it contradicts", False),
        ('"No"', False),
        ("no", False),
        ("`yes`", True),
        ("# Yes\nreasons", True),
    ],
)
def test_yes_no_from_the_first_word(reply: str, expected: bool) -> None:
    assert parse_yes_no(reply) is expected


@pytest.mark.parametrize(
    "reply", ["", "Maybe", "Yesterday it rained", "Nope", "The answer is yes", "1. yes", "nothing"]
)
def test_anything_else_is_a_verdict_error_with_the_raw_reply(reply: str) -> None:
    with pytest.raises(JudgeParseError) as info:
        parse_yes_no(reply)
    assert info.value.raw == reply


def test_verdict_line_of_our_templates_wins_over_the_first_word() -> None:
    assert parse_verdict_reply("No doubt about it.\nVERDICT: yes") is True
    assert parse_verdict_reply("Yes, mostly.\n**Verdict:** no") is False
    assert parse_verdict_reply("Yes.") is True


@pytest.mark.parametrize(
    ("reply", "grade"),
    [
        ("4/5", 4),
        ("Score: 4 - solid answer", 4),
        ("**3**", 3),
        ("I'd give it a 2.", 2),
        ("5", 5),
        ("Grade 1 of 5", 1),
        ("v2 model says 3", 3),
    ],
)
def test_grade_from_the_first_standalone_number(reply: str, grade: int) -> None:
    assert parse_grade(reply) == grade


@pytest.mark.parametrize("reply", ["10", "0", "no grade here", "3.5 stars", "-2"])
def test_bad_grades_are_errors(reply: str) -> None:
    with pytest.raises(JudgeParseError) as info:
        parse_grade(reply)
    assert info.value.raw == reply


def test_clamp_brings_out_of_range_grades_to_the_scale() -> None:
    assert parse_grade("10", clamp=True) == 5
    assert parse_grade("0", clamp=True) == 1
    assert parse_grade("7", 1, 10) == 7


def test_grade_line_of_our_templates_wins() -> None:
    assert parse_grade_reply("Mentions 2 facts of 3.\nGRADE: 4") == 4
    with pytest.raises(JudgeParseError):
        parse_grade_reply("GRADE: 9")


@pytest.mark.parametrize(
    ("reply", "passed", "score", "explanation"),
    [
        ('{"score": 0.8, "passed": true, "explanation": "ok"}', True, 0.8, "ok"),
        ('```json\n{"score": 0.2, "explanation": "weak"}\n```', False, 0.2, "weak"),
        (
            'Sure! Here is my verdict: {"passed": "yes", "reasoning": "fine {really}"} Thanks',
            True,
            1.0,
            "fine {really}",
        ),
        ('{"note": 1} then {"passed": false}', False, 0.0, ""),
        ('{"explanation": "quote \\" and brace }", "score": 1}', True, 1.0, 'quote " and brace }'),
        ('{"a": {"b": 1}, "score": 0.5}', True, 0.5, ""),
    ],
)
def test_json_judgments(reply: str, passed: bool, score: float, explanation: str) -> None:
    judgment = parse_json_judgment(reply)
    assert (judgment.passed, judgment.score, judgment.explanation) == (passed, score, explanation)


@pytest.mark.parametrize(
    "reply",
    [
        "no json",
        '{"verdict": "yes"}',
        '{"score": 7}',
        '{"score": "high"}',
        '{"passed": "maybe"}',
        "{broken",
    ],
)
def test_bad_json_judgments_are_errors(reply: str) -> None:
    with pytest.raises(JudgeParseError) as info:
        parse_json_judgment(reply)
    assert info.value.raw == reply
