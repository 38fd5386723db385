"""A sentence splitter for ROUGE-Lsum that needs no data, and its use on whole batches
(``rouge_lsum(..., split_summaries=True)``, as rouge-score's ``split_summaries=True``)."""

from __future__ import annotations

import re
from typing import Any

from evalmark.errors import MetricInputError
from evalmark.metrics._column import TextColumn, Texts
from evalmark.metrics._multi import TargetBatch, Targets

# A sentence ends at '.', '!' or '?' (a run of them, then any closing quotes or brackets),
# where spaces and then an upper-case letter, digit or opening quote or bracket follow.
_BOUNDARY = re.compile(r"""(?<=[.!?])(["'\u201d\u2019)\]]*)[^\S\n]+(?=(\S))""")
_OPENING = "\"'\u201c\u2018(["


def split_summaries(text: str) -> str:
    """``text`` with one sentence per line, for ROUGE-Lsum, by a fixed rule that needs no
    model: a sentence ends after a run of ``.``, ``!`` or ``?`` (and any closing quotes or
    brackets) followed by spaces and then an upper-case letter, a digit, an opening quote or
    bracket; those spaces become one newline. Existing newlines are kept. Unlike nltk's Punkt
    it knows no abbreviations, so "Dr. Smith" is split."""
    if not isinstance(text, str):
        raise TypeError(f"split_summaries takes a str, got {type(text).__name__}")

    def cut(m: re.Match[str]) -> str:
        after = m.group(2)
        if after.isupper() or after.isdigit() or after in _OPENING:
            return m.group(1) + "\n"
        return m.group(0)

    return _BOUNDARY.sub(cut, text)


def split_targets(targets: Targets) -> Targets:
    """A row's target (or each of its targets) with one sentence per line."""
    if isinstance(targets, str):
        return split_summaries(targets)
    return [split_summaries(target) for target in targets]


def split_rows(expected: TargetBatch, actual: Texts) -> tuple[list[Targets], list[str]]:
    """Both sides of a batch with one sentence per line (a :class:`TextColumn` is read as
    text first)."""
    return [split_targets(row) for row in _strings(expected)], [
        split_summaries(text) for text in _strings(actual)
    ]


def _strings(batch: TargetBatch) -> list[Any]:
    if not isinstance(batch, TextColumn):
        return list(batch)
    data, offsets = batch._parts()
    rows: list[Any] = []
    for row in range(len(batch)):
        chunk = data[offsets[row] : offsets[row + 1]].tobytes()
        try:
            rows.append(chunk.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise MetricInputError(
                f"row {row} of the TextColumn is not UTF-8 ({error.reason} at byte "
                f"{error.start}): build the column from valid text"
            ) from None
    return rows
