"""A column's explanations are searched for a judge's closing verdict only when they name a
verdict or a grade: the cheap test never skips a text ``judge_reason`` would cut."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalmark.report._render.html_checks import _may_close
from evalmark.report._render.html_inputs import judge_reason

CLOSINGS = ["VERDICT: yes", "Verdict : No", "**verdict**: **YES**.", "GRADE: 7", "grade:3"]


@pytest.mark.parametrize("closing", CLOSINGS)
def test_a_closing_verdict_in_any_case_is_searched_for(closing: str) -> None:
    text = f"The answer names the capital.\n{closing}"
    assert judge_reason(text) != text  # cut: the reason alone
    assert _may_close(text)


def test_a_text_naming_neither_is_not_searched() -> None:
    assert not _may_close("output 'a: b' does not match the expected 'c'")


@given(
    st.text(max_size=40),
    st.sampled_from(["verdict", "VERDICT", "Verdict", "grade", "GRADE", "verdıct", "vote"]),
    st.sampled_from([": yes", ":no", " : 4", "**: 10.", ": maybe"]),
)
def test_every_text_judge_reason_cuts_passes_the_precheck(head: str, word: str, tail: str) -> None:
    text = f"{head} {word}{tail}"
    if judge_reason(text) != text:
        assert _may_close(text)
