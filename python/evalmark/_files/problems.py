"""Wording problems in data files: names for values, "did you mean" suggestions, and raising
every problem found as one typed error.

Every loader (samples, test cases, suites, scoring inputs) words its problems with these helpers,
so a misspelt key, a misspelt check and a misspelt metric get the same kind of suggestion.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from evalmark.errors import DataFileError, Problem

__all__ = [
    "MAX_PROBLEMS",
    "describe_value",
    "fold",
    "raise_problems",
    "suggest",
]

MAX_PROBLEMS = 20


def raise_problems(
    problems: Sequence[Problem], error: type[DataFileError], total: int | None = None
) -> None:
    """Raise ``error`` with the first :data:`MAX_PROBLEMS` problems, if there are any."""
    if problems:
        shown = list(problems[:MAX_PROBLEMS])
        more = (total if total is not None else len(problems)) - len(shown)
        raise error(shown, more=more)


def describe_value(value: object) -> str:
    """A short, human name for the type of a decoded value ("a string", "a list"...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float | Decimal):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


_SEPARATORS = re.compile(r"[\s_\-]+")


def fold(word: str) -> str:
    """``word`` lower-cased with spaces, underscores and hyphens all made one hyphen."""
    return _SEPARATORS.sub("-", word.strip().lower())


def suggest(
    word: str,
    choices: Iterable[str],
    *,
    aliases: Mapping[str, str] | None = None,
    cutoff: float = 0.6,
) -> str | None:
    """The choice a misspelt, differently spelt or foreign ``word`` most likely means, or None.

    Tried in order: the same word spelt with other separators or case (``rouge-L`` for
    ``rouge_l``); an alias (``checks`` means ``strategies``); a close spelling of a choice or
    of an alias (``cheks``); a choice holding the word as one of its parts (``f1`` for
    ``token_f1``, the shortest such choice).
    """
    options = list(choices)
    by_fold = {fold(choice): choice for choice in options}
    folded = fold(word)
    if folded in by_fold:
        return by_fold[folded]
    aliases = aliases or {}
    meanings = {fold(alias): target for alias, target in aliases.items() if target in options}
    if folded in meanings:
        return meanings[folded]
    spellings = {**meanings, **by_fold}
    close = difflib.get_close_matches(folded, list(spellings), n=1, cutoff=cutoff)
    if close:
        return spellings[close[0]]
    holding = [choice for choice in options if folded and folded in fold(choice).split("-")]
    return min(holding, key=len) if holding else None
