"""inspect_ai's ``match`` and ``includes`` over a column (``inspect_match_column``: one native
call, ASCII by byte rules and other characters by a table of Python's own ``casefold`` and
``isspace``; a lone surrogate by the Python definition) give, pair by pair, the verdicts of the
Python definition spelled out here, for every location, scorer and case option; and the native
call refuses bad input with a Python error, never a panic."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import _core
from evalmark.errors import MetricInputError
from evalmark.strategies._inspect import inspect_match, inspect_match_column
from oracles import inspect_match_verdict as verdict

_LOCATIONS = ("begin", "end", "any", "exact")


# ASCII whitespace (the separators \x1c-\x1f too, which str.strip() takes and
# string.whitespace lacks), punctuation, letters of both cases, and some other characters:
# Unicode whitespace, letters whose case folding is longer or not ASCII, CJK, a lone surrogate.
_PIECES = st.sampled_from(
    [
        *[" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"],
        *[".", ",", "!", '"', "'", "\\", "`", "~", "-", "_", "(", ")", "@"],
        *["a", "A", "b", "B", "z", "Z", "ab", "Ab", "the", "THE"],
        *["é", "É", "ß", "SS", "İ", "i\u0307", "\x85", "\xa0", "\u3000", "東京", "\u212a"],
        "\ud800",
    ]
)
_TEXT = st.lists(_PIECES, max_size=8).map("".join)
_ASCII_WEIGHTED = st.one_of(st.lists(_PIECES.filter(str.isascii), max_size=8).map("".join), _TEXT)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    """An answer and a target: unrelated, or a piece of the answer with edges around it (so
    that hits are common)."""
    answer = draw(_ASCII_WEIGHTED)
    if draw(st.booleans()):
        return answer, draw(_ASCII_WEIGHTED)
    start = draw(st.integers(0, len(answer)))
    end = draw(st.integers(start, len(answer)))
    return answer, draw(_TEXT) + answer[start:end].swapcase() + draw(_TEXT)


_OPTIONS = st.tuples(
    st.sampled_from(["match", "includes"]), st.sampled_from(_LOCATIONS), st.booleans()
)


@settings(max_examples=examples(400), deadline=None)
@example([("The answer is PARIS.\x1c", " paris\n")], ("match", "end", True))
@example([(".\x1c.", "\x1c"), ("\x1c.", "")], ("match", "exact", False))
@example([("Straße", "STRASSE"), ("x", "")], ("match", "any", True))
@given(st.lists(pairs(), max_size=12), _OPTIONS)
def test_each_pair_has_the_python_definitions_verdict(
    rows: list[tuple[str, str]], options: tuple[str, str, bool]
) -> None:
    scorer, location, ignore_case = options
    answers = [answer for answer, _ in rows]
    targets = [target for _, target in rows]
    wanted = [verdict(a, t, scorer, location, ignore_case) for a, t in rows]
    got = inspect_match_column(
        answers, [[t] for t in targets], scorer=scorer, location=location, ignore_case=ignore_case
    )
    assert got == wanted
    # the native call itself: without a table it leaves exactly the pairs with a non-ASCII
    # text; with every character's rule, exactly those with a lone surrogate
    raw, pending, missing = _core.inspect_match_batch(
        answers, targets, location, scorer, ignore_case
    )
    assert pending == [k for k, (a, t) in enumerate(rows) if not (a.isascii() and t.isascii())]
    assert missing == []
    assert list(raw) == [0 if k in pending else int(wanted[k]) for k in range(len(rows))]
    table = {ord(c): (c.casefold(), c.isspace()) for c in "".join(answers + targets)}
    raw, pending, missing = _core.inspect_match_batch(
        answers, targets, location, scorer, ignore_case, table
    )
    assert pending == [k for k, (a, t) in enumerate(rows) if "\ud800" in a + t]
    assert missing == []
    assert list(raw) == [0 if k in pending else int(wanted[k]) for k in range(len(rows))]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(_TEXT, st.lists(_TEXT, max_size=3)), max_size=8), _OPTIONS)
def test_a_sample_passes_when_one_of_its_targets_matches(
    rows: list[tuple[str, list[str]]], options: tuple[str, str, bool]
) -> None:
    scorer, location, ignore_case = options
    got = inspect_match_column(
        [answer for answer, _ in rows],
        [targets for _, targets in rows],
        scorer=scorer,
        location=location,
        ignore_case=ignore_case,
    )
    assert got == [
        any(verdict(a, t, scorer, location, ignore_case) for t in targets) for a, targets in rows
    ]


@pytest.mark.parametrize("location", _LOCATIONS)
@pytest.mark.parametrize("scorer", ["match", "includes"])
@pytest.mark.parametrize("ignore_case", [True, False])
def test_every_ascii_character_at_the_edges(location: str, scorer: str, ignore_case: bool) -> None:
    answers, targets = [], []
    for code in range(128):
        c = chr(code)
        for answer, target in [
            (f"{c}Ab{c}", "aB"),
            (f"x {c}", f"{c}"),
            (f"{c}{c}", ""),
            (f"A{c}.", f".{c}a"),
            (f".{c}b", f"{c}B"),
        ]:
            answers.append(answer)
            targets.append(target)
    got = inspect_match_column(
        answers, [[t] for t in targets], scorer=scorer, location=location, ignore_case=ignore_case
    )
    assert got == [
        verdict(a, t, scorer, location, ignore_case) for a, t in zip(answers, targets, strict=True)
    ]
    assert _core.inspect_match_batch(answers, targets, location, scorer, ignore_case)[1:] == (
        [],
        [],
    )


def test_the_characters_a_table_lacks_are_listed_and_their_pairs_left() -> None:
    table = {0xE9: ("é", False), 0xC9: ("é", False)}
    raw, pending, missing = _core.inspect_match_batch(
        ["Café", "Straße\u3000", "abc", "東京 x"],
        ["CAFÉ", "SS", "C", "X"],
        "end",
        "match",
        True,
        table,
    )
    assert (list(raw), pending, missing) == ([1, 0, 1, 0], [1, 3], [0xDF, 0x3000, 0x4EAC, 0x6771])
    with pytest.raises(TypeError, match=r"chars\[233\] must be a \(str, bool\) pair"):
        _core.inspect_match_batch(["é"], ["e"], "end", "match", True, {0xE9: "é"})


def test_one_pair_is_judged_as_in_a_column() -> None:
    assert inspect_match("The answer: Paris!", "paris")
    assert not inspect_match("The answer: Paris!", "paris", ignore_case=False)
    assert inspect_match("Straße", "STRASSE", location="exact")
    assert inspect_match("say  hi", "Y  H", scorer="includes")


@pytest.mark.parametrize("side", ["answers", "targets"])
def test_an_item_that_is_not_str_is_a_type_error_naming_its_row(side: str) -> None:
    good, bad = ["a", "b", "c"], ["a", "b", 3]
    answers, targets = (bad, good) if side == "answers" else (good, bad)
    with pytest.raises(TypeError, match=f"row 2 of {side}: expected str, got int"):
        _core.inspect_match_batch(answers, targets, "end", "match", True)
    with pytest.raises(TypeError, match="single str"):
        _core.inspect_match_batch("abc", ["a"], "end", "match", True)


def test_columns_of_different_lengths_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="equal length, got 2 and 1"):
        _core.inspect_match_batch(["a", "b"], ["a"], "end", "match", True)
    with pytest.raises(ValueError, match="same length"):
        inspect_match_column(["a", "b"], [["a"]])


def test_unknown_options_are_refused() -> None:
    with pytest.raises(MetricInputError, match="location must be one of"):
        _core.inspect_match_batch(["a"], ["a"], "middle", "match", True)
    with pytest.raises(MetricInputError, match="scorer must be one of"):
        _core.inspect_match_batch(["a"], ["a"], "end", "exact", True)
    with pytest.raises(TypeError):
        _core.inspect_match_batch(["a"], ["a"], "end", "match", "yes")


def test_a_long_column_of_long_texts_is_judged_pair_by_pair() -> None:
    answers = [f"Answer {i}: {'PARIS' if i % 3 else 'Rome'}!" * 40 for i in range(3000)]
    targets = ["paris" if i % 2 else "café" for i in range(3000)]
    raw, pending, _ = _core.inspect_match_batch(answers, targets, "end", "match", True)
    assert pending == list(range(0, 3000, 2))
    assert list(raw) == [
        int(k % 2 == 1 and verdict(a, t, "match", "end", True))
        for k, (a, t) in enumerate(zip(answers, targets, strict=True))
    ]
    table = {0xE9: ("é", False)}
    raw, pending, _ = _core.inspect_match_batch(answers, targets, "end", "match", True, table)
    assert pending == []
    assert list(raw) == [
        int(verdict(a, t, "match", "end", True)) for a, t in zip(answers, targets, strict=True)
    ]
