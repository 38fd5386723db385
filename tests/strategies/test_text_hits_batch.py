"""The text checks' comparisons over a column (``normalized_hits``: ASCII pairs natively with no
normalized string made, the others through the batch normalizer) equal the one-text rule's
normalized texts compared with ``==`` or ``in``, pair by pair."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import _core
from evalmark.errors import MetricInputError
from evalmark.strategies._normalize import normalize_text, normalized_hits

# Mostly ASCII words and punctuation (so ASCII pairs are common), with whitespace of several
# kinds, letters that change under NFKC or case folding and a lone surrogate.
PIECES = st.sampled_from(
    [
        *["a", "B", "cat", "Cat", "the", " ", "  ", "\t", ",", "!", "-", "x-y", "\x1c", "\xa0"],
        *["café", "ß", "SS", "ﬁ", "Ａ", "\u3000", "\ud800"],
    ]
)
TEXT = st.lists(PIECES, max_size=8).map("".join)


def expected_hits(
    actual: list[str], wanted: list[str], owners: list[int], *, case: bool, punct: bool, op: str
) -> list[bool]:
    def norm(text: str) -> str:
        return normalize_text(text, case=case, punctuation=punct)

    if op == "contains":
        return [norm(w) in norm(actual[o]) for w, o in zip(wanted, owners, strict=True)]
    return [norm(w) == norm(actual[o]) for w, o in zip(wanted, owners, strict=True)]


@settings(max_examples=examples(300), deadline=None)
@example(["Hello, World!", "café"], ["hello world", "CAFÉ"], [0, 1], True, True, "equal")
@example(["The cat sat.", "ß"], ["CAT", "ss", "mat", "", "SS"], [0, 1, 0, 0, 1], True, True, "in")
@given(
    st.lists(TEXT, min_size=1, max_size=6),
    st.lists(TEXT, max_size=10),
    st.lists(st.integers(0, 5), max_size=10),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["equal", "in"]),
)
def test_the_hits_are_the_normalized_texts_compared(
    actual: list[str],
    wanted: list[str],
    owners: list[int],
    case: bool,
    punct: bool,
    op: str,
) -> None:
    count = min(len(wanted), len(owners))
    wanted = wanted[:count]
    owners = [o % len(actual) for o in owners[:count]]
    contains = op == "in"
    got = normalized_hits(
        actual,
        wanted,
        np.asarray(owners, dtype=np.int64),
        case=case,
        punctuation=punct,
        contains=contains,
    )
    wanted_hits = expected_hits(
        actual, wanted, owners, case=case, punct=punct, op="contains" if contains else "equal"
    )
    assert got.tolist() == wanted_hits
    if len(actual) == len(wanted):  # owners None: each pair its own row
        paired = normalized_hits(actual, wanted, case=case, punctuation=punct, contains=contains)
        row_owners = list(range(len(actual)))
        op_name = "contains" if contains else "equal"
        assert paired.tolist() == expected_hits(
            actual, wanted, row_owners, case=case, punct=punct, op=op_name
        )


def test_bad_input_is_a_typed_error_not_a_crash() -> None:
    rule, table = bytes(range(128)), {}
    with pytest.raises(TypeError, match="row 1 of wanted: expected str, got int"):
        _core.normalized_hits_batch(["a", "b"], ["a", 5], None, rule, table, False)
    with pytest.raises(ValueError, match=r"owners\[0\] is 7, not a row of actual"):
        _core.normalized_hits_batch(["a"], ["a"], np.array([7]), rule, table, True)
    with pytest.raises(ValueError, match="owners has 2 entries for 1 wanted texts"):
        _core.normalized_hits_batch(["a"], ["a"], np.array([0, 0]), rule, table, True)
    with pytest.raises(MetricInputError, match="equal length, got 2 and 1"):
        _core.normalized_hits_batch(["a", "b"], ["a"], None, rule, table, True)
    with pytest.raises(TypeError, match="128 bytes"):
        _core.normalized_hits_batch(["a"], ["a"], None, b"x", table, True)
    with pytest.raises(TypeError, match="single str"):
        _core.normalized_hits_batch("abc", ["a"], None, rule, table, True)
