"""The native row writer (``fill_rows``, ``fill_each``) writes what the Python rules write:
every slot kind against :func:`python_fill` and the one-text rules, every code point through
the escaping slots, and whole Markdown and HTML reports, rendered natively and with the native
writer off, byte for byte (hostile text, lone surrogates, explanations of text checks)."""

from __future__ import annotations

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Scorer
from evalmark._core import fill_each, fill_rows
from evalmark.errors import EvalmarkError
from evalmark.report import render_report
from evalmark.report._render import fill as fill_module
from evalmark.report._render.common import cell, html_text
from evalmark.report._render.fill import fill, python_fill
from evalmark.strategies import Contains, ContainsFacts, ExactMatch, TokenF1, _text_explain

CHARS = st.one_of(
    st.sampled_from(list(" \t\n\r\x0b\x1c\x85\xa0\u2003\u3000|&<>\"'\\%`\x00\x7f\x9f…é名ab")),
    st.characters(codec=None, exclude_categories=()),
)
TEXTS = st.text(CHARS, max_size=40)
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 0.0625, 0.125, 0.5, 2.5, 1.0, 1e300]),
    st.integers(-(10**6), 10**6),
)
SLOTS = ("%s", "%C", "%H", "%.3f", "%.2f", "%.0s", "%.5R", "%.80R")


def _value(slot: str) -> st.SearchStrategy[object]:
    return NUMBERS if slot.endswith("f") else TEXTS


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[int], list[list[object]]]:
    """Forms of one slot kind per column (as the renderers use them), keys and columns."""
    kinds = draw(st.lists(st.sampled_from(SLOTS), min_size=1, max_size=4))
    fixed = st.text(CHARS, max_size=4).map(lambda t: t.replace("%", "%%"))
    forms = [
        "".join(draw(fixed) + kind for kind in kinds) + draw(fixed)
        for _ in range(draw(st.integers(1, 3)))
    ]
    count = draw(st.integers(0, 6))
    keys = [draw(st.integers(0, len(forms) - 1)) for _ in range(count)]
    columns = [[draw(_value(kind)) for _ in range(count)] for kind in kinds]
    return forms, keys, columns


@settings(max_examples=examples(400), deadline=None)
@given(tables(), TEXTS, TEXTS)
def test_native_rows_equal_the_python_rows(
    table: tuple[list[str], list[int], list[list[object]]], before: str, after: str
) -> None:
    forms, keys, columns = table
    found = fill(forms, keys, columns, before, after)
    assert found.text == python_fill(forms, keys, columns, before, after)
    assert not (found.clean and _has_surrogate(found.text))  # clean: proved free of one
    assert found.clean or _has_surrogate(
        "".join(map(str, [*forms, *(v for column in columns for v in column), before, after]))
    )


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def test_every_code_point_is_escaped_as_the_one_text_rules_escape_it() -> None:
    # every character up to U+30FF (all whitespace and controls lie below), a spread above
    codes = [*range(0x3100), *range(0x3100, sys.maxunicode + 1, 61)]
    points = [chr(c) for c in codes if not 0xD800 <= c <= 0xDFFF]
    for shape in ("a{}b", " {}  {} "):
        texts = [shape.format(c, c) for c in points]
        keys = [0] * len(texts)
        assert fill_each(["%C"], keys, [texts]) == [cell(t) for t in texts]
        assert fill_each(["%H"], keys, [texts]) == [html_text(t) for t in texts]
        assert fill_each(["%.80R"], keys, [texts]) == list(map(repr, texts))


def test_a_character_is_escaped_at_every_place_of_a_long_text() -> None:
    # the writer passes over eight plain bytes at a time: each character that needs a look,
    # at each place of a text longer than a few such words, behind ASCII or wider characters
    special = list("&<>|\"'\\\t\n\x00\x1f\x7f\x85\x9f\xa0é…名😀")
    texts = [
        lead * 3 + "a" * at + c + "b" * (23 - at)
        for lead in ("", "é", "名")
        for c in special
        for at in range(24)
    ]
    keys = [0] * len(texts)
    assert fill_each(["%C"], keys, [texts]) == [cell(t) for t in texts]
    assert fill_each(["%H"], keys, [texts]) == [html_text(t) for t in texts]
    assert fill_each(["%.80R"], keys, [texts]) == list(map(repr, texts))


def test_a_lone_surrogate_sends_the_rows_to_python() -> None:
    assert fill_rows(["%s"], [0], [["a\udcffb"]]) is None
    assert fill_each(["%C"], [0], [["\ud800"]]) is None
    found = fill(["| %C |"], [0, 0], [["ok", "bad \udcff |"]])
    assert found == (r"| ok |" + "\n" + "| bad \udcff \\| |", False)
    assert fill(["%s \udcff"], [0], [["a"]]) == ("a \udcff", False)


@pytest.mark.parametrize(
    ("forms", "keys", "columns"),
    [
        (["%d"], [0], [[1]]),
        (["%.1s"], [0], [["a"]]),
        (["%"], [0], [["a"]]),
        (["%s %s"], [0], [["a"]]),
        (["%s"], [1], [["a"]]),
        (["%s"], [0, 0], [["a"]]),
        (["%.3f"], [0], [["a"]]),
    ],
)
def test_bad_forms_and_columns_are_typed_errors(
    forms: list[str], keys: list[int], columns: list[list[object]]
) -> None:
    with pytest.raises((EvalmarkError, TypeError, ValueError)):
        fill_rows(forms, keys, columns)


def test_numbers_are_written_as_percent_formatting_writes_them() -> None:
    values = [0.0625, 0.125, 2.675, 1e-7, 123456.0005, -0.0, math.inf, -math.inf, math.nan, 7]
    for places in (0, 2, 3, 6):
        found = fill_rows([f"%.{places}f"], [0] * len(values), [values])
        assert found is not None
        assert found.split("\n") == [f"%.{places}f" % v for v in values]


HOSTILE = st.lists(
    st.one_of(
        st.sampled_from(["|", "<b>", "&", "'", '"', "\\", "\n", "\t", "  ", "\x00", "é", "…"]),
        st.sampled_from(["\U0001f600", "\u2028", "\x85", "\xa0", "`", "%", "\udcff"]),
        st.text(CHARS, max_size=6),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=examples(15), deadline=None)
@given(rows=st.lists(st.tuples(HOSTILE, HOSTILE, HOSTILE), min_size=70, max_size=90))
def test_reports_rendered_natively_equal_reports_rendered_in_python(
    rows: list[tuple[str, str, str]], monkeypatch_module: pytest.MonkeyPatch
) -> None:
    samples = [
        Sample(
            name=f"{name} {i}",
            parameters=[i],
            expected_output=expected or "x",
            expected_facts=(expected[:3] or "y", name[:2] or "z"),
            tags=(name[:3],) if name else (),
        )
        for i, (name, expected, _) in enumerate(rows)
    ]
    outputs = [output for _, _, output in rows]
    checks = (ExactMatch(), Contains(), ContainsFacts(), TokenF1(0.5))

    def rendered() -> tuple[str, ...]:
        report = Scorer().evaluate_outputs(samples, outputs, *checks, name="hostile | <b>")
        return tuple(render_report(report, f) for f in ("markdown", "html"))

    native = rendered()
    with monkeypatch_module.context() as patch:
        patch.setattr(fill_module, "fill_rows", lambda *args: None)
        patch.setattr(_text_explain, "fill_each", lambda *args: None)
        assert rendered() == native


@pytest.fixture(scope="module")
def monkeypatch_module() -> pytest.MonkeyPatch:
    """A monkeypatch usable inside a Hypothesis test (its ``context`` undoes each change)."""
    return pytest.MonkeyPatch()
