"""The js-rouge package's sentence segmenter (3.2), and the text helpers its tokenizer shares.

Ported from the package's logic, not its text (see :mod:`evalmark.strategies._js_rouge`).
JavaScript's regular expressions differ from Python's in what ``\\s``, ``\\b``, ``.`` and
``$`` match, so the patterns here spell those out: :data:`_WS` is JavaScript's whitespace,
``\\b`` is ASCII (``re.ASCII``), ``$`` is the end of the text (``\\Z``). Text is indexed by
code point, where JavaScript indexes UTF-16 units: a cased letter outside the Basic
Multilingual Plane may segment differently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["char_is_upper_case", "sentence_segment", "str_is_title_case"]

_WS_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS = f"[{_WS_CHARS}]"
_NOT_WS = f"[^{_WS_CHARS}]"
_WS_RUN = re.compile(f"{_WS}+")
_WS_ONE = re.compile(_WS)
_WORDS = re.compile(f"{_NOT_WS}+")
_TRIM = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)


def _trim(text: str) -> str:
    return text.strip(_TRIM)


def _opens_quote(text: str, index: int, inside: bool) -> bool:
    return not inside and (index == 0 or text[index - 1] in "([{<" or _is_ws(text[index - 1]))


def _is_ws(char: str) -> bool:
    return _WS_ONE.fullmatch(char) is not None


def char_is_upper_case(char: str) -> bool:
    """Whether one character is an upper-case letter (``charIsUpperCase``); ValueError for
    anything but one character."""
    if len(char) != 1:
        raise ValueError("Input should be a single character")
    return char.upper() == char and char.lower() != char


def str_is_title_case(text: str) -> bool:
    """Whether the text's first non-blank character is upper case (``strIsTitleCase``)."""
    first = _trim(text)[:1]
    return bool(first) and char_is_upper_case(first)


# fmt: off
_HONORIFICS = [
    "jr", "mr", "mrs", "ms", "dr", "prof", "sr", "sen", "corp", "rep", "gov", "atty", "supt",
    "det", "rev", "col", "gen", "lt", "cmdr", "adm", "capt", "sgt", "cpl", "maj", "miss", "misses",
    "mister", "sir", "esq", "mstr", "phd", "adj", "adv", "asst", "bldg", "brig", "comdr", "hon",
    "messrs", "mlle", "mme", "op", "ord", "pvt", "reps", "res", "sens", "sfc", "surg"
]
_COMMON = [
    "arc", "al", "exp", "rd", "st", "dist", "mt", "fy", "pd", "pl", "plz", "tce", "llb", "md",
    "bl", "ma", "ba", "lit", "ex", "e.g", "i.e", "circa", "ca", "cca", "v.s", "etc", "esp", "ft",
    "b.c", "a.d"
]
_DATES = [
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"
]
_ORGANIZATIONS = [
    "co", "corp", "yahoo", "joomla", "jeopardy", "dept", "univ", "assn", "bros", "inc", "ltd"
]
_PLACES = [
    "ala", "ariz", "ark", "cal", "calif", "col", "colo", "conn", "del", "fed", "fla", "fl", "ga",
    "ida", "ind", "ia", "la", "kan", "kans", "ken", "ky", "la", "md", "mich", "minn", "mont",
    "neb", "nebr", "nev", "okla", "penna", "penn", "pa", "dak", "tenn", "tex", "ut", "vt", "va",
    "wash", "wis", "wisc", "wy", "wyo", "usafa", "alta", "ont", "que", "sask", "yuk", "ave",
    "blvd", "cl", "ct", "cres", "hwy", "U.S", "U.S.A", "E.U", "N°"
]
# fmt: on
_EXCEPTIONS = ["ex", "e.g", "i.e", "circa", "ca", "cca", "v.s", "esp", "ft", "st", "mt"]
_EXCEPTIONS += _HONORIFICS
_SUBSTITUTIONS = [*_COMMON, *_DATES, *_ORGANIZATIONS, *_PLACES, "a.m", "p.m", *_HONORIFICS]


def _gate(words: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(word) for word in words)
    return re.compile(rf"\b({alternatives})[.!?] ?\Z", re.IGNORECASE | re.ASCII)


_ABBREVIATION = _gate(_SUBSTITUTIONS)
_EXCEPTION = _gate(_EXCEPTIONS)
_ACRONYM = re.compile(r"[ |.][A-Z][^\n\r\u2028\u2029]?\Z", re.IGNORECASE | re.ASCII)
_BREAK = re.compile(r"[\r\n]+")
_ELLIPSIS = re.compile(r"\.{2,10}\Z")
_SUFFIX = max(10, *(len(word) + 2 for word in _SUBSTITUTIONS))
_CLOSING = "])}>\"'"
_OPENING_BRACKETS = "([{<"
_CLOSING_BRACKETS = "])}>"


def _trim_end_spaces(text: str) -> str:
    return text.rstrip(" ")


class _Sentence:
    """A sentence being assembled from chunks; boundary rules read its suffix and the casing
    of its last two words."""

    def __init__(self, text: str) -> None:
        self.parts: list[str] = []
        self.normalized_through = 0
        self.words: list[list[bool]] = []  # [title case, lower case] of the last two words
        self.line_breaks = False
        self.starts_title_case = False
        self.append(text.strip(" "))

    @property
    def empty(self) -> bool:
        return not self.words

    def suffix(self) -> str:
        suffix = ""
        for part in reversed(self.parts):
            if len(suffix) >= _SUFFIX:
                break
            suffix = part[len(suffix) - _SUFFIX :] + suffix
        return suffix

    def append(self, text: str) -> None:
        if not text:
            return
        previous = self.words[-1] if self.words else None
        last = self.parts[-1][-1:] if self.parts else ""
        for match in _WORDS.finditer(text):
            word = match.group()
            lower = word == word.lower()
            if match.start() == 0 and previous is not None and not (last and _is_ws(last)):
                previous[1] = previous[1] and lower
            else:
                title = str_is_title_case(word)
                if self.empty:
                    self.starts_title_case = title
                self.words = [*self.words, [title, lower]][-2:]
        self.line_breaks = self.line_breaks or _BREAK.search(text) is not None
        self.parts.append(text)

    def trim_end(self) -> None:
        while self.parts:
            trimmed = _trim_end_spaces(self.parts[-1])
            if trimmed:
                self.parts[-1] = trimmed
                break
            self.parts.pop()
        self.normalized_through = min(self.normalized_through, len(self.parts))

    def normalize_whitespace(self) -> None:
        write = self.normalized_through
        for read in range(write, len(self.parts)):
            part = _WS_RUN.sub(" ", self.parts[read])
            if (write == 0 or self.parts[write - 1].endswith(" ")) and part.startswith(" "):
                part = part[1:]
            if part:
                self.parts[write] = part
                write += 1
        del self.parts[write:]
        self.trim_end()
        self.normalized_through = len(self.parts)
        self.line_breaks = False

    def text(self) -> str:
        return "".join(self.parts)


def _spaces(text: str) -> str:
    return re.sub(r" +", " ", text)


def sentence_segment(text: str) -> list[str]:
    """js-rouge's sentences of a text (``sentenceSegment``): terminal punctuation ends a
    sentence unless an abbreviation, an initial, an ellipsis or a line-wrap rule joins it to
    the next; a text with no sentence found is one sentence."""
    if not text:
        return []
    chunks = _chunks(text)
    found: list[str] = []
    pending: _Sentence | None = None
    idx = 0
    while idx < len(chunks):
        if pending is None and not chunks[idx]:
            idx += 1
            continue
        chunk = pending if pending is not None else _Sentence(chunks[idx])
        pending = None
        chunk.trim_end()
        after = chunks[idx + 1] if idx + 1 < len(chunks) else ""
        later = chunks[idx + 2] if idx + 2 < len(chunks) else ""
        if chunk.empty:
            pass
        elif chunk.line_breaks:
            if after and chunk.starts_title_case:
                chunk.append(f" {after}")
                chunk.normalize_whitespace()
                pending = chunk
            else:
                found.extend(s for line in _BREAK.split(chunk.text()) if (s := _trim(line)))
        elif after and _ABBREVIATION.search(chunk.suffix()):
            if str_is_title_case(after) and not _EXCEPTION.search(chunk.suffix()):
                found.append(chunk.text())
            else:
                chunk.append(" " + _spaces(after).strip(" "))
                pending = chunk
        elif after and _ACRONYM.search(chunk.suffix()):
            if not chunk.words or chunk.words[-1][1]:
                chunk.append(" " + _spaces(after))
                pending = chunk
            elif later and len(chunk.words) > 1 and chunk.words[-2][0] and str_is_title_case(later):
                chunk.append(_WS_RUN.sub(" ", after) + later)
                pending = chunk
                idx += 1
            else:
                found.append(chunk.text())
        elif after and _ELLIPSIS.search(chunk.suffix()):
            chunk.append(_spaces(after))
            if not (_trim(after) or _BREAK.search(after)) and later:
                chunk.append(_spaces(later))
                idx += 1
            pending = chunk
        else:
            found.append(chunk.text())
        idx += 1
    return found or [text]


def _chunks(text: str) -> list[str]:
    """Alternating separators and sentence candidates, split at terminal punctuation."""
    chunks: list[str] = []
    last_end, start, inside = 0, -1, False
    depth, standalone = 0, False
    for index, char in enumerate(text):
        if char == '"':
            inside = _opens_quote(text, index, inside)
        if char in _OPENING_BRACKETS:
            if depth == 0:
                standalone = start == -1
            depth += 1
        elif char in _CLOSING_BRACKETS:
            depth = max(0, depth - 1)
        if index < last_end or char in "\r\n":
            start = -1
            continue
        if start == -1:
            if not _is_ws(char):
                start = index
            continue
        if char in ".?!":
            end = _sentence_end(text, index, inside, depth, standalone)
            if end == -1:
                continue
            chunks += [text[last_end:start], _BREAK.sub(" ", text[start:end])]
            last_end, start = end, -1
    chunks.append(text[last_end:])
    return chunks


def _closing_end(text: str, index: int, inside: bool) -> int:
    end, quote_pending = index + 1, inside
    while end < len(text):
        if text[end] in _CLOSING:
            quote_pending = quote_pending and text[end] != '"'
            end += 1
            continue
        following = end
        while following < len(text) and _is_ws(text[following]):
            following += 1
        if (
            following > end
            and following < len(text)
            and (text[following] in _CLOSING_BRACKETS or (quote_pending and text[following] == '"'))
        ):
            end = following
            continue
        break
    return end


def _sentence_end(text: str, index: int, inside: bool, depth: int, standalone: bool) -> int:
    """Where the sentence whose terminal is at ``index`` ends (past closing delimiters), or
    -1 when it goes on."""
    end = _closing_end(text, index, inside)
    if end < len(text) and not _is_ws(text[end]):
        return -1
    if end == index + 1:
        return end
    closed = sum(1 for char in text[index + 1 : end] if char in _CLOSING_BRACKETS)
    closes_quotation = inside and text[end - 1] == '"'
    if closed > 0 and (closed < depth or not (standalone or closes_quotation)):
        return -1
    following = end
    while following < len(text) and (_is_ws(text[following]) or text[following] in "\"'([{<"):
        following += 1
    if following == len(text):
        return end
    if not char_is_upper_case(text[following]):
        return -1
    suffix = text[max(0, index + 1 - _SUFFIX) : index + 1]
    if _ELLIPSIS.search(suffix) and closed > 0:
        return -1
    return -1 if _ABBREVIATION.search(suffix) and _EXCEPTION.search(suffix) else end
