"""The text normalizer of the text strategies, for one text and for a whole batch.

:func:`normalize_text` is the rule: NFKC, then (by default) case folded and every Unicode
punctuation character (category P*) replaced by a space; runs of whitespace become one space
and the ends are trimmed. :func:`normalize_texts` gives the same strings for a list of texts,
with the ASCII texts of the batch normalized together in a few passes over one byte string
(ASCII text is its own NFKC form and folds case as ``bytes.lower`` does), so a batch costs a
few C-level passes rather than a Python loop per character.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["normalize_text", "normalize_texts"]

_SEPARATOR = "\x00"  # neither whitespace nor punctuation; a batch containing it goes text by text


class _PunctuationMap(dict[int, int]):
    """``str.translate`` table: a punctuation character's code point to a space's, filled as
    characters are first seen (a character left out is kept as it is)."""

    def __missing__(self, code: int) -> int:
        value = 32 if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = value
        return value


_PUNCTUATION = _PunctuationMap()


def _ascii_table(punctuation: bool) -> bytes:
    # ASCII whitespace (str.isspace: \t-\r, \x1c-\x1f, space) becomes a space, as the collapse
    # below would make it; punctuation too when it is dropped.
    table = bytearray(range(256))
    for code in range(128):
        char = chr(code)
        if char.isspace() or (punctuation and unicodedata.category(char).startswith("P")):
            table[code] = 32
    return bytes(table)


_ASCII_TABLES = {True: _ascii_table(True), False: _ascii_table(False)}


def normalize_text(text: str, *, case: bool = True, punctuation: bool = True) -> str:
    """NFKC, then (by default) case folded and punctuation dropped; runs of whitespace become one
    space and the ends are trimmed."""
    text = unicodedata.normalize("NFKC", text)
    if case:
        text = text.casefold()
    if punctuation:
        text = text.translate(_PUNCTUATION)
    return " ".join(text.split())  # str.split's whitespace is the \s of re


def normalize_texts(
    texts: Sequence[str], *, case: bool = True, punctuation: bool = True
) -> list[str]:
    """``[normalize_text(t, case=case, punctuation=punctuation) for t in texts]``, computed over
    the batch at once."""
    out: list[str] = [""] * len(texts)
    ascii_rows: list[int] = []
    for row, text in enumerate(texts):
        if text.isascii() and _SEPARATOR not in text:
            ascii_rows.append(row)
        else:
            out[row] = normalize_text(text, case=case, punctuation=punctuation)
    if not ascii_rows:
        return out
    data = _SEPARATOR.join([texts[row] for row in ascii_rows]).encode("ascii")
    if case:
        data = data.lower()  # casefold of an ASCII text
    data = data.translate(_ASCII_TABLES[punctuation])
    while b"  " in data:  # runs of spaces become one (each pass halves the longest run)
        data = data.replace(b"  ", b" ")
    data = data.replace(b" \x00", b"\x00").replace(b"\x00 ", b"\x00").strip(b" ")
    texts_out = data.decode("ascii").split(_SEPARATOR)
    if len(ascii_rows) == len(out):
        return texts_out
    for row, text in zip(ascii_rows, texts_out, strict=True):
        out[row] = text
    return out
