"""Content words and word overlap: what ``RuleJudge`` decides by.

Text is NFKC-normalised and case-folded; stop words (function words, negations included) are
dropped; thousands separators are removed from numbers. Lexical only: see
:mod:`evalmark.models._rule_judge` for what that gets wrong.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["STOPWORDS", "content_words", "overlap"]

_STOPWORD_TEXT = """
    a an the and or but if then else of to in on at by for with from into onto as about
    is are was were be been being am do does did doing have has had having will would shall
    should can could may might must it its it's this that these those there here which who
    whom whose what when where why how i me my we our you your he him his she her they them
    their not no nor never none n't s t so than too very also just only any all each
    some such own same other more most both either neither
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+")


def content_words(text: str) -> list[str]:
    """The content words and numbers of ``text``: NFKC, case-folded, stop words dropped;
    thousands separators removed from numbers (``1,000`` → ``1000``)."""
    words: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()):
        if token[0].isdigit():
            token = re.sub(r",(?=\d{3}\b)", "", token)
        if token not in STOPWORDS:
            words.append(token)
    return words


def overlap(claim: str, evidence: str) -> tuple[float, list[str]]:
    """(share of the claim's distinct content words found in the evidence, the missing ones).

    A claim without content words has overlap 1.0.
    """
    wanted = list(dict.fromkeys(content_words(claim)))
    if not wanted:
        return 1.0, []
    present = set(content_words(evidence))
    missing = [word for word in wanted if word not in present]
    return (len(wanted) - len(missing)) / len(wanted), missing
