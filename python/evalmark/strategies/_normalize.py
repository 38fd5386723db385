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
from itertools import compress

import numpy as np

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
    flags = list(map(str.isascii, texts))
    plain = list(texts) if all(flags) else list(compress(texts, flags))
    joined = _SEPARATOR.join(plain)
    if joined.count(_SEPARATOR) != max(len(plain) - 1, 0):  # a text holds the separator
        return [normalize_text(t, case=case, punctuation=punctuation) for t in texts]
    done = _ascii_batch(joined.encode("ascii"), case, punctuation) if plain else []
    if len(plain) == len(flags):
        return done
    others = iter(
        [
            normalize_text(t, case=case, punctuation=punctuation)
            for t, f in zip(texts, flags, strict=True)
            if not f
        ]
    )
    ascii_done = iter(done)
    return [next(ascii_done) if f else next(others) for f in flags]


def _ascii_batch(data: bytes, case: bool, punctuation: bool) -> list[str]:
    """The normalized texts of ``data``, ASCII texts joined by the separator."""
    if case:
        data = data.lower()  # casefold of an ASCII text
    codes = np.frombuffer(data.translate(_ASCII_TABLES[punctuation]), dtype=np.uint8)
    # Every whitespace character is a space now: keep the first of each run of spaces, then
    # drop a space that starts or ends a text.
    spaces = codes == 32
    keep = np.ones(len(codes), dtype=np.bool_)
    keep[1:] = ~(spaces[1:] & spaces[:-1])
    codes = codes[keep]
    edges = np.ones(len(codes) + 2, dtype=np.bool_)
    edges[1:-1] = codes == 0
    codes = codes[~((codes == 32) & (edges[:-2] | edges[2:]))]
    squeezed: bytes = codes.tobytes()
    return squeezed.decode("ascii").split(_SEPARATOR)
