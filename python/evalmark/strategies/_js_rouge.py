"""ROUGE-N as the js-rouge package (3.2) computes it, which promptfoo's ``rouge-n`` calls.

Ported from the package's logic, not its text: a summary is split into sentences by
js-rouge's rule-based segmenter, each sentence into Penn Treebank tokens; n-grams are matched
as multisets (each candidate gram counts up to its frequency in the reference); the score is
the F-beta of precision (over the candidate's grams) and recall (over the reference's), with
js-rouge's own way of computing F-beta. Comparison is case-sensitive by default.

The segmenter and the text helpers are in :mod:`evalmark.strategies._js_rouge_segment`,
which says where JavaScript's regular expressions and Python's differ and how the port
keeps JavaScript's meaning.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from evalmark.strategies._js_rouge_segment import (
    _WS_CHARS,
    _WS_RUN,
    _opens_quote,
    _trim,
    sentence_segment,
)

__all__ = ["f_measure", "js_rouge_n", "n_gram", "tree_bank_tokenize"]

_CONTRACTIONS = [
    re.compile(pattern, re.IGNORECASE | re.ASCII)
    for pattern in (
        r"\b(can)(not)\b",
        r"\b(d)('ye)\b",
        r"\b(gim)(me)\b",
        r"\b(gon)(na)\b",
        r"\b(got)(ta)\b",
        r"\b(lem)(me)\b",
        r"\b(more)('n)\b",
        r"\b(wan)(na) ",
        r" ('t)(is)\b",
        r" ('t)(was)\b",
    )
]

# Spacing rules of the tokenizer, in order: (pattern, replacement).
_SPACING = [
    (re.compile(r"\.\.\.*"), " ... "),
    (re.compile(r"[:,](?!\d)", re.ASCII), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (
        re.compile(rf"([^.])(?<!\b[A-Za-z]\.[A-Za-z])(\.)([\])}}>'{_WS_CHARS}]*)\Z", re.ASCII),
        r"\1 \2\3 ",
    ),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"[\][(){}<>]"), r" \g<0> "),
    (re.compile(r"---*"), " -- "),
]
_SPLITS = [
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"'([sSmMdD]) "), r" '\1 "),
    (re.compile(r"('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r" \1 "),
]


def tree_bank_tokenize(sentence: str) -> list[str]:
    """js-rouge's Penn Treebank tokens of one sentence (``treeBankTokenize``)."""
    text = _WS_RUN.sub(" ", _trim(sentence))
    if not text:
        return []
    pieces: list[str] = []
    inside = False
    for index, char in enumerate(text):
        if char == '"':
            inside = _opens_quote(text, index, inside)
            pieces.append(" `` " if inside else " '' ")
        else:
            pieces.append(char)
    parse = "".join(pieces)
    for pattern, replacement in _SPACING:
        parse = pattern.sub(replacement, parse)
    parse = f" {parse} "
    for pattern, replacement in _SPLITS:
        parse = pattern.sub(replacement, parse)
    for pattern in _CONTRACTIONS:
        parse = pattern.sub(r" \1 \2 ", parse)
    parse = re.sub(r"\A | \Z", "", re.sub(r" {2,}", " ", parse))
    return parse.split(" ")


def n_gram(tokens: Sequence[str], n: int = 2) -> list[tuple[str, ...]]:
    """The n-grams of a token list, as tuples (``nGram`` without padding); ValueError when
    ``n`` is not a positive integer or exceeds the number of tokens."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError("ngram size must be a positive integer")
    if len(tokens) < n:
        raise ValueError("ngram size cannot be larger than the number of tokens available")
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _check_beta(beta: float) -> None:
    if math.isnan(beta) or beta < 0:
        raise ValueError("beta must be a non-negative number or Infinity")


def f_measure(precision: float, recall: float, beta: float = 1.0) -> float:
    """js-rouge's F-beta of a precision and a recall (``fMeasure``), computed its way (scaled
    by the smaller score so it neither underflows nor leaves [min, max])."""
    for name, value in (("Precision value p", precision), ("Recall value r", recall)):
        if not math.isfinite(value) or value < 0 or value > 1:
            raise ValueError(f"{name} must have bounds 0 <= value <= 1")
    _check_beta(beta)
    p, r = precision, recall
    if p == r:
        return p
    if beta == math.inf:
        return r
    if p == 0 or r == 0:
        return 0.0
    if beta == 0:
        return p
    if beta < 1:
        return f_measure(r, p, 1 / beta)
    if p > r:
        weight = (1 / beta) * (1 / beta)
        return min(p, r * ((1 + weight) / (1 + weight * (r / p))))
    beta_sq = beta * beta
    if math.isfinite(beta_sq):
        return min(r, p * ((1 + beta_sq) / (1 + beta_sq * (p / r))))
    ratio = ((p * beta) / r) * beta
    return r if ratio == math.inf else r * (ratio / (1 + ratio))


def _summary_tokens(text: str, case_sensitive: bool) -> list[str]:
    return [
        token
        for sentence in sentence_segment(text)
        for token in tree_bank_tokenize(sentence if case_sensitive else sentence.lower())
    ]


def js_rouge_n(
    candidate: str,
    reference: str,
    *,
    n: int = 1,
    beta: float = 1.0,
    case_sensitive: bool = True,
) -> float:
    """js-rouge's ``n(candidate, reference, {n, beta, caseSensitive})``: the F-beta of the
    clipped n-gram matches. ValueError for a blank candidate or reference, a bad ``n`` or
    ``beta``, or a summary with fewer than ``n`` tokens (js-rouge's RangeErrors)."""
    if not _trim(candidate):
        raise ValueError("Candidate cannot be an empty string")
    if not _trim(reference):
        raise ValueError("Reference cannot be an empty string")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError("ngram size must be a positive integer")
    _check_beta(beta)
    mine = n_gram(_summary_tokens(candidate, case_sensitive), n)
    theirs = n_gram(_summary_tokens(reference, case_sensitive), n)
    matches = sum((Counter(mine) & Counter(theirs)).values())
    if matches == 0:
        return 0.0
    return f_measure(matches / len(mine), matches / len(theirs), beta)
