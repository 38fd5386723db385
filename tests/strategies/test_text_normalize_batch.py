"""The batch normalizer of the text strategies gives, text by text, what the one-text rule gives,
and both equal the rule written out character by character. The batch runs natively
(``_core.normalize_text_batch``) with the rule's per-character table made in Python."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import _core
from evalmark.strategies._normalize import normalize_text, normalize_texts

_SPACES = re.compile(r"\s+")


def reference(text: str, *, case: bool, punctuation: bool) -> str:
    """The rule as stated: NFKC, casefold, each P* character a space, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    if case:
        text = text.casefold()
    if punctuation:
        text = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)
    return _SPACES.sub(" ", text).strip()


# ASCII heavy, with every kind of whitespace, the separator the batch uses, punctuation from
# several blocks, and letters that change under NFKC or case folding.
CHARS = st.one_of(
    st.characters(max_codepoint=127),
    st.sampled_from(list("\x00\x1c\x1d\x1e\x1f\t\n\r\x0b\x0c \xa0\u2028\u3000")),
    st.sampled_from(list("¿¡«»—–…、。「」‘’“”·߷")),
    st.sampled_from(list("ßİŉﬁＡ①ΣςÅ\u0301e\u0308")),
    st.sampled_from(list("\ud800\udfff\udc80\uffff\U0001f600\U000e0041")),  # lone surrogates too
    st.characters(codec=None, exclude_categories=()),
)
TEXTS = st.lists(st.text(CHARS, max_size=30), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@example(["", "  ", "a\x00b", " x ", "Hello, World!"], True, True)
@example(["café  ,  ok", "plain  text  ", "\x1c\x1dy"], True, False)
@given(TEXTS, st.booleans(), st.booleans())
def test_the_batch_normalizer_equals_the_rule_text_by_text(
    texts: list[str], case: bool, punctuation: bool
) -> None:
    expected = [reference(t, case=case, punctuation=punctuation) for t in texts]
    assert [normalize_text(t, case=case, punctuation=punctuation) for t in texts] == expected
    assert normalize_texts(texts, case=case, punctuation=punctuation) == expected


def test_every_ascii_character_normalizes_as_the_rule_says() -> None:
    texts = [f"a{chr(c)}b" for c in range(128)] + [chr(c) * 3 for c in range(128)]
    for case in (True, False):
        for punctuation in (True, False):
            wanted = [reference(t, case=case, punctuation=punctuation) for t in texts]
            assert normalize_texts(texts, case=case, punctuation=punctuation) == wanted


def test_the_native_batch_leaves_to_python_what_it_cannot_read_or_compose() -> None:
    ascii = bytes(
        c + 32 if 65 <= c <= 90 else 32 if c in (9, 10, 33, 44) else c for c in range(128)
    )
    texts = ["Hi,  there!", "Caf\u00e9", "x\ud800y", "na\u00efve \u00e9t\u00e9", ""]
    rows, pending, missing = _core.normalize_text_batch(texts, ascii, {})
    assert rows == ["hi there", None, None, None, ""]
    assert (pending, missing) == ([1, 2, 3], [])
    rows, pending, missing = _core.normalize_text_batch(texts, ascii, {0xE9: "\u00e9"}, False)
    assert rows == ["hi there", "caf\u00e9", None, None, ""]
    assert (pending, missing) == ([2, 3], [0xEF])


def test_a_text_already_normal_comes_back_as_the_same_object() -> None:
    text = "already normal text"
    assert normalize_texts([text])[0] is text
