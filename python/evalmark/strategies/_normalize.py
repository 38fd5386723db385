"""The text normalizer of the text strategies, for one text and for a whole batch.

:func:`normalize_text` is the rule: NFKC, then (by default) case folded and every Unicode
punctuation character (category P*) replaced by a space; runs of whitespace become one space
and the ends are trimmed. :func:`normalize_texts` gives the same strings for a list of texts in
one native call (``evalmark._core.normalize_text_batch``). After NFKC every step of the rule is
per character, so the native call is given the rule as a table, one entry a character, made
here from this Python's own ``str.casefold``, ``unicodedata.category`` and ``str.isspace``:
the two agree under any Unicode version. ASCII text is its own NFKC form; a text with other
characters is composed by ``unicodedata`` first, and a text the native side cannot read (a
lone surrogate) goes through :func:`normalize_text`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from evalmark.metrics._native import core as _core

__all__ = ["normalize_text", "normalize_texts", "normalized_hits"]


class _PunctuationMap(dict[int, int]):
    """``str.translate`` table: a punctuation character's code point to a space's, filled as
    characters are first seen (a character left out is kept as it is)."""

    def __missing__(self, code: int) -> int:
        value = 32 if unicodedata.category(chr(code)).startswith("P") else code
        self[code] = value
        return value


_PUNCTUATION = _PunctuationMap()


def normalize_text(text: str, *, case: bool = True, punctuation: bool = True) -> str:
    """NFKC, then (by default) case folded and punctuation dropped; runs of whitespace become one
    space and the ends are trimmed."""
    text = unicodedata.normalize("NFKC", text)
    if case:
        text = text.casefold()
    if punctuation:
        text = text.translate(_PUNCTUATION)
    return " ".join(text.split())  # str.split's whitespace is the \s of re


def _replacement(code: int, case: bool, punctuation: bool) -> str:
    """What the rule makes of the NFKC character ``code`` before whitespace is collapsed: its
    case folding, each whitespace character of it (and punctuation, when dropped) a space."""
    text = chr(code).casefold() if case else chr(code)
    return "".join(
        " " if c.isspace() or (punctuation and unicodedata.category(c).startswith("P")) else c
        for c in text
    )


class _Rules:
    """The rule of one (case, punctuation) pair as the native normalizer takes it: the ASCII
    characters' replacements as 128 bytes, and a dict of the other characters' replacements,
    filled as characters are first seen."""

    def __init__(self, case: bool, punctuation: bool) -> None:
        self.case, self.punctuation = case, punctuation
        self.ascii = "".join(_replacement(c, case, punctuation) for c in range(128)).encode()
        assert len(self.ascii) == 128  # ASCII folds to one ASCII character each
        self.table: dict[int, str] = {}

    def learn(self, codes: list[int]) -> None:
        """Add the replacements of ``codes``."""
        for code in codes:
            self.table[code] = _replacement(code, self.case, self.punctuation)


_RULES = {(c, p): _Rules(c, p) for c in (True, False) for p in (True, False)}


def normalize_texts(
    texts: Sequence[str], *, case: bool = True, punctuation: bool = True
) -> list[str]:
    """``[normalize_text(t, case=case, punctuation=punctuation) for t in texts]``, computed over
    the batch in one native call."""
    rules = _RULES[(bool(case), bool(punctuation))]
    done, pending, _ = _core.normalize_text_batch(texts, rules.ascii, rules.table)
    if pending:
        composed = [unicodedata.normalize("NFKC", texts[row]) for row in pending]
        again, unread, missing = _core.normalize_text_batch(
            composed, rules.ascii, rules.table, False
        )
        if missing:
            rules.learn(missing)
            again, unread, _ = _core.normalize_text_batch(composed, rules.ascii, rules.table, False)
        for row, text in zip(pending, again, strict=True):
            done[row] = text
        for index in unread:  # a lone surrogate: the Python rule
            row = pending[index]
            done[row] = normalize_text(texts[row], case=case, punctuation=punctuation)
    return done  # type: ignore[return-value]  # no None is left


def normalized_hits(
    actual: Sequence[str],
    wanted: Sequence[str],
    owners: npt.NDArray[np.int64] | None = None,
    *,
    case: bool = True,
    punctuation: bool = True,
    contains: bool = False,
) -> npt.NDArray[np.bool_]:
    """For each ``k``, whether ``wanted[k]`` normalized equals (with ``contains``: occurs in)
    ``actual[owners[k]]`` normalized (``owners`` None: ``actual[k]``), judged in one native
    call that makes no normalized strings. The pairs with a text that is not ASCII are judged
    in a second call on their texts composed (NFKC), and a text holding a lone surrogate by
    :func:`normalize_text`: the verdicts are those of the normalized texts compared."""
    rules = _RULES[(bool(case), bool(punctuation))]
    raw, pending, _ = _core.normalized_hits_batch(
        actual, wanted, owners, rules.ascii, rules.table, contains
    )
    hits = np.frombuffer(raw, dtype=np.bool_).copy()
    if not pending:
        return hits
    rows = pending if owners is None else owners[pending].tolist()
    places = {row: place for place, row in enumerate(dict.fromkeys(rows))}  # each row once
    got = [_composed(actual[row]) for row in places]
    at = np.fromiter(map(places.__getitem__, rows), np.int64, len(rows))
    want = [_composed(wanted[k]) for k in pending]
    again = _core.normalized_hits_batch(got, want, at, rules.ascii, rules.table, contains, False)
    if again[2]:  # characters seen for the first time: learn them, then judge again
        rules.learn(again[2])
        again = _core.normalized_hits_batch(
            got, want, at, rules.ascii, rules.table, contains, False
        )
    hits[pending] = np.frombuffer(again[0], dtype=np.bool_)
    for index in again[1]:  # a lone surrogate: the Python rule
        one, other = (
            normalize_text(text, case=case, punctuation=punctuation)
            for text in (actual[rows[index]], wanted[pending[index]])
        )
        hits[pending[index]] = other in one if contains else other == one
    return hits


def _composed(text: str) -> str:
    """``text`` in NFKC form (an ASCII text is its own)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)
