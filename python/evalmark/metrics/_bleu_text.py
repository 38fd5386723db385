"""BLEU's references and the tokenizers done before the kernel (``char`` and ``zh``).

The kernel tokenizes ``13a``, ``intl`` and ``none`` itself. ``char`` and ``zh`` are applied
here, as sacrebleu's ``TokenizerChar`` and ``TokenizerZh`` define them (lowercasing first, as
its ``BLEU._preprocess_segment`` does), and the kernel then splits the result on whitespace
(its ``none`` tokenizer). A ``None`` among a row's references is dropped, as sacrebleu drops
it: rows may have different numbers of references.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from evalmark.errors import MetricInputError
from evalmark.metrics._column import TextColumn

KERNEL_TOKENIZERS = ("13a", "intl", "none")
PRE_TOKENIZERS = ("char", "zh")

# The code point ranges sacrebleu's TokenizerZh treats as Chinese characters. Its table
# compares one character with two-character bounds for the two supplementary ranges
# ("\u20000" is U+2000 then "0"), so those ranges in effect are U+2001..U+2A6D and
# U+2F81..U+2FA1; the ranges below are the effective ones.
_ZH_RANGES = (
    (0x3400, 0x4DB5),
    (0x4E00, 0x9FA5),
    (0x9FA6, 0x9FBB),
    (0xF900, 0xFA2D),
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),
    (0x2F81, 0x2FA1),
    (0xFF00, 0xFFEF),
    (0x2E80, 0x2EFF),
    (0x3000, 0x303F),
    (0x31C0, 0x31EF),
    (0x2F00, 0x2FDF),
    (0x2FF0, 0x2FFF),
    (0x3100, 0x312F),
    (0x31A0, 0x31BF),
    (0xFE10, 0xFE1F),
    (0xFE30, 0xFE4F),
    (0x2600, 0x26FF),
    (0x2700, 0x27BF),
    (0x3200, 0x32FF),
    (0x3300, 0x33FF),
)
_ZH_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _ZH_RANGES)
_ZH_CHAR = re.compile(f"([{_ZH_CLASS}])")

# The mteval punctuation rules (sacrebleu's TokenizerRegexp), which ``zh`` applies after
# spacing out the Chinese characters (13a applies them too, after its entity replacements).
_PUNCT_RULES = (
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
)


def _zh(text: str) -> str:
    spaced = _ZH_CHAR.sub(r" \1 ", text.strip())
    for pattern, replacement in _PUNCT_RULES:
        spaced = pattern.sub(replacement, spaced)
    return " ".join(spaced.split())


def _char(text: str) -> str:
    return " ".join(text)


def _pre(text: str, tokenize: str, lowercase: bool) -> str:
    if lowercase:
        text = text.lower()
    text = text.rstrip()
    return _char(text) if tokenize == "char" else _zh(text)


def check_tokenize(tokenize: object) -> str:
    """``tokenize`` itself, or a typed error listing the ones evalmark has."""
    if tokenize in KERNEL_TOKENIZERS or tokenize in PRE_TOKENIZERS:
        return str(tokenize)
    raise MetricInputError(
        f"tokenize must be one of {', '.join(KERNEL_TOKENIZERS + PRE_TOKENIZERS)}, "
        f"got {tokenize!r} (ja-mecab, ko-mecab and the spm/flores tokenizers need native "
        "libraries or downloaded models and are not offered)"
    )


def _row(refs: Any, row: int | None) -> Any:
    if isinstance(refs, str) or not isinstance(refs, Sequence) or None not in refs:
        return refs
    kept = [r for r in refs if r is not None]
    if not kept:
        where = "expected" if row is None else f"row {row} of expected"
        raise MetricInputError(f"{where}: every reference is None; give at least one reference")
    return kept


def sentence_args(expected: Any, actual: str, tokenize: str, lowercase: bool) -> Any:
    """(expected, actual, kernel tokenizer, kernel lowercase) for one row."""
    tokenize = check_tokenize(tokenize)
    expected = _row(expected, None)
    if tokenize in KERNEL_TOKENIZERS:
        return expected, actual, tokenize, lowercase
    if not isinstance(actual, str):
        raise TypeError(f"actual must be a str, got {type(actual).__name__}")
    if isinstance(expected, str):
        refs: Any = _pre(expected, tokenize, lowercase)
    else:
        refs = [_text(r, tokenize, lowercase, None) for r in expected]
    return refs, _pre(actual, tokenize, lowercase), "none", False


def _text(value: object, tokenize: str, lowercase: bool, row: int | None) -> str:
    if not isinstance(value, str):
        where = "a reference" if row is None else f"row {row}"
        raise TypeError(f"{where} must be str, got {type(value).__name__}")
    return _pre(value, tokenize, lowercase)


def _strings(column: TextColumn) -> list[str]:
    data = column.data.tobytes()
    bounds = column.offsets.tolist()
    return [data[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]


def batch_args(expected: Any, actual: Any, tokenize: str, lowercase: bool) -> Any:
    """(expected, actual, kernel tokenizer, kernel lowercase) for a batch whose expected is
    already checked for layout."""
    tokenize = check_tokenize(tokenize)
    if (
        not isinstance(expected, TextColumn | str)
        and isinstance(expected, Sequence)
        and any(not isinstance(r, str) and isinstance(r, Sequence) and None in r for r in expected)
    ):
        expected = [_row(r, i) for i, r in enumerate(expected)]
    if tokenize in KERNEL_TOKENIZERS:
        return expected, actual, tokenize, lowercase
    if isinstance(expected, TextColumn):
        expected = _strings(expected)
    if isinstance(actual, TextColumn):
        actual = _strings(actual)
    rows: list[Any] = []
    for i, r in enumerate(expected):
        if isinstance(r, str):
            rows.append(_pre(r, tokenize, lowercase))
        else:
            rows.append([_text(x, tokenize, lowercase, i) for x in r])
    hyps = [_text(h, tokenize, lowercase, i) for i, h in enumerate(actual)]
    return rows, hyps, "none", False
