"""A long rendered page keeps its lone surrogates written as \\udcff, whatever its characters'
width, and is returned as it is when it holds none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evalmark import Sample
from evalmark.engine._scorer import Scorer
from evalmark.report import register_formatter, render_report, unregister_formatter
from evalmark.strategies import ExactMatch

_PAGE: list[str] = []


def _page(report: Any, **options: Any) -> str:
    return _PAGE[0]


@pytest.fixture
def page_format() -> Iterator[None]:
    register_formatter("longpage", _page, extensions=[".longpage"])
    yield
    unregister_formatter("longpage")


@pytest.mark.parametrize("body", ["abc ", "é ab", "日本 a", "🙂 ab", "é🙂日 "])
@pytest.mark.parametrize("length", [10, 70_000])
@pytest.mark.parametrize("surrogate", [None, "\ud800", "\udcff", "\udfff"])
def test_a_page_of_any_width_keeps_each_lone_surrogate_escaped(
    page_format: None, body: str, length: int, surrogate: str | None
) -> None:
    text = (body * (length // len(body) + 1))[:length]
    want = text
    if surrogate is not None:
        text = text[:3] + surrogate + text[3:-1] + surrogate
        code = f"\\u{ord(surrogate):04x}"
        want = want[:3] + code + want[3:-1] + code
    _PAGE[:] = [text]
    report = Scorer().evaluate_outputs(
        [Sample(name="a", parameters=(1,), expected_output="x")], ["x"], ExactMatch()
    )
    page = render_report(report, "longpage")
    assert page == want
    if surrogate is None:
        assert page is text  # nothing to escape: the text itself
