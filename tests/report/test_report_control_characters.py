"""Control characters in run text (a NUL, an ANSI colour code) reach no HTML or Markdown
report raw: each shows as U+FFFD, and the rest of the text is kept."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples, Scorer
from evalmark.report import render_report
from evalmark.report._render.common import visible
from evalmark.strategies import ExactMatch

RAW_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=20)


@settings(max_examples=examples(40), deadline=None)
@given(TEXT, TEXT)
@example("\x1b[31mred\x1b[0m", "nul\x00byte")
@example("\x85", "")  # a name of white space only (NEL) is no sample name: the test names it
def test_html_and_markdown_show_control_characters_as_replacement_characters(
    name: str, output: str
) -> None:
    sample_name = name if name.strip() else "s"
    samples = Samples([Sample(name=sample_name, parameters=["q"], expected_output="x")])
    report = Scorer().evaluate_outputs(samples, [output], ExactMatch(), name=name or "r")
    for format in ("html", "markdown"):
        text = render_report(report, format)
        assert not RAW_CONTROLS.search(text), format
    if name.startswith("\x1b[31m"):  # the text around the codes is kept
        assert "\ufffd[31mred\ufffd[0m" in render_report(report, "html")


@settings(max_examples=examples(100), deadline=None)
@given(TEXT)
def test_visible_replaces_exactly_the_control_characters(text: str) -> None:
    shown = visible(text)
    assert len(shown) == len(text)
    for before, after in zip(text, shown, strict=True):
        control = bool(RAW_CONTROLS.fullmatch(before))
        assert after == ("\ufffd" if control else before)
