"""The JSON report's ``samples`` written column by column: the same bytes as
``dumps(report_document(report), indent)`` in a fraction of the time.

The reference path builds a :class:`~evalmark.report.values.SampleRow` and a dict per sample,
encodes the whole document with msgspec, re-indents it and decodes the UTF-8 back to text. Here
the rest of the document (whatever keys :func:`~evalmark.report.document.report_document` holds)
still goes through :func:`~evalmark.report.document.dumps`, and the rows are spliced in at the
``samples`` key, written from the report's columns with fixed templates:

* strings are escaped by :func:`json.encoder.encode_basestring`, which escapes exactly the
  characters msgspec escapes (``"``, ``\\`` and U+0000-U+001F, the same spellings); a lone
  surrogate, which msgspec refuses, sends the whole report down the reference path, so it fails
  the same way;
* numbers are encoded by msgspec itself, one call per column;
* a result with metadata or an error, and a sample's usage fields, are encoded by msgspec and
  re-indented to their depth (a JSON text holds no raw newline outside its layout).

``tests/report/test_report_json_fast.py`` compares the bytes with the reference on reports with
Unicode, NaN, big integers, nested metadata, errors, usage and every ``indent``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

import msgspec

from evalmark.data.results import ResultColumn
from evalmark.report.document import dumps, result_entry
from evalmark.report.values import output_text_of

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["Layout", "document_pieces", "layout_for", "samples_pieces", "splice_samples"]

_encode = msgspec.json.encode


class Layout:
    """The separators of one JSON layout: ``indent`` spaces per level, or compact (None)."""

    __slots__ = ("colon", "indent")

    def __init__(self, indent: int | None) -> None:
        self.indent = indent
        self.colon = ": " if indent else ":"

    def pad(self, depth: int) -> str:
        """The line break and indentation before a value at ``depth`` (empty when compact)."""
        return "\n" + " " * (self.indent * depth) if self.indent else ""

    def open(self, bracket: str, depth: int) -> str:
        """The opening bracket of a non-empty container at ``depth``, up to its first item."""
        return bracket + self.pad(depth + 1)

    def sep(self, depth: int) -> str:
        """Between two items of a container at ``depth``."""
        return "," + self.pad(depth + 1)

    def close(self, bracket: str, depth: int) -> str:
        """After the last item of a non-empty container at ``depth``."""
        return self.pad(depth) + bracket

    def value(self, value: Any, depth: int) -> str:
        """Any plain value encoded by msgspec as the reference does, laid out at ``depth``."""
        encoded = _encode(value)
        if self.indent:
            encoded = msgspec.json.format(encoded, indent=self.indent)
            return encoded.decode("utf-8").replace("\n", self.pad(depth))
        return encoded.decode("utf-8")

    def array(self, values: Sequence[str], depth: int) -> str:
        """An array at ``depth`` from encoded values."""
        if not values:
            return "[]"
        return self.open("[", depth) + self.sep(depth).join(values) + self.close("]", depth)


def layout_for(indent: object) -> Layout | None:
    """The layout ``dumps`` writes for ``indent`` (0 and None: compact), or None for an
    indent only the reference path takes (negative, or not an int)."""
    if indent is None or (type(indent) is int and indent == 0):
        return Layout(None)
    if type(indent) is int and indent > 0:
        return Layout(indent)
    return None


def _numbers(values: list[Any]) -> list[str]:
    # msgspec spells numbers (shortest round trip, NaN as null); none holds a comma.
    if not values:
        return []
    return _encode(values).decode("ascii")[1:-1].split(",")


def _strings(values: list[Any], layout: Layout, depth: int) -> list[str] | None:
    """The encoded strings, or None when msgspec refuses one (a lone surrogate): the reference
    path then fails as it fails."""
    try:
        encoded = _encode(values)
    except (TypeError, UnicodeEncodeError):
        return None
    if len(values) > 1 and b'\\"' not in encoded and set(map(type, values)) == {str}:
        # No text holds a quote, so every '","' separates two of them: split msgspec's array.
        if encoded.isascii():
            # One decode, each text keeping its quotes (an encoded text holds no raw U+0000).
            parts = encoded[1:-1].decode("ascii").replace('","', '"\0"').split("\0")
        else:  # pieces of a wide str would each be scanned for their width: decode each
            parts = ['"' + text + '"' for text in map(bytes.decode, encoded[2:-2].split(b'","'))]
        if len(parts) == len(values):
            return parts
    try:
        return list(map(encode_basestring, values))
    except TypeError:  # not all str: msgspec spells them
        return [layout.value(v, depth) for v in values]


Pieces = list[str] | str  # one text per row, or the same text for every row


def _column(column: ResultColumn, layout: Layout, lead: str, depth: int) -> list[Any] | None:
    """One strategy's results as JSON objects at ``depth``, each after ``lead`` (its key, or
    the separator and its key): five piece fields, then the verdicts, error flags and scores;
    None to take the reference path."""
    scores, passed, said, full = column.export()
    if not all(type(full[i].passed) is bool for i in full):
        return None
    explanations = _strings(said, layout, depth + 1)
    if explanations is None:
        return None
    count = len(scores)
    colon, sep = layout.colon, layout.sep(depth)
    head = lead + layout.open("{", depth) + '"passed"' + colon
    starts = {ok: head + ("true" if ok else "false") + sep + '"score"' + colon for ok in (1, 0)}
    key = sep + '"explanation"' + colon
    opening = list(map(starts.__getitem__, passed))
    numbers = _numbers(scores)
    close = layout.close("}", depth)
    told: Pieces = key
    if not all(said):  # an empty explanation is left out
        told = [key if raw else "" for raw in said]
        explanations = [text if raw else "" for raw, text in zip(said, explanations, strict=True)]
    errored = [False] * count
    whole = [i for i, r in full.items() if r.metadata or r.error is not None]
    if not whole:
        return [opening, numbers, told, explanations, close, passed, errored, scores]
    # These rows are written whole by msgspec, in the first piece.
    told_rows = [told] * count if isinstance(told, str) else told
    ends = [close] * count
    for index in whole:
        result = full[index]
        opening[index] = lead + layout.value(result_entry(result), depth)
        numbers[index] = told_rows[index] = explanations[index] = ends[index] = ""
        errored[index] = result.error is not None
    return [opening, numbers, told_rows, explanations, ends, passed, errored, scores]


def samples_pieces(report: Report, layout: Layout, depth: int = 1) -> list[str] | None:
    """The ``samples`` array of ``report`` at ``depth`` as pieces to concatenate, or None when
    the report holds a value the reference path must handle (it then fails or succeeds in its
    own way). Pieces, not a text per row: the caller joins the whole document once, since
    copying text of tens of megabytes (four bytes a character once it holds an emoji) costs
    more than writing the rows."""
    count = len(report)
    if not count:
        return ["[]"]
    row_depth, member_depth = depth + 1, depth + 2
    colon, sep = layout.colon, layout.sep(row_depth)
    keys = _strings(list(report.strategies), layout, member_depth)
    names = _strings(list(report.sample_names), layout, member_depth)
    tags = _tag_texts(report.sample_tags, layout, member_depth)
    extras = _extras(report, layout, sep, member_depth)
    if keys is None or names is None or tags is None or extras is None:
        return None
    said_results = sep + '"results"' + colon
    columns = []
    for index, (name, key) in enumerate(zip(report.strategies, keys, strict=True)):
        lead = (layout.open("{", member_depth) if index == 0 else layout.sep(member_depth)) + key
        column = _column(report.column(name), layout, lead + colon, member_depth + 1)
        if column is None:
            return None
        columns.append(column)
    end = layout.close("}", member_depth) if columns else "{}"
    verdicts = {
        verdict: sep + '"verdict"' + colon + f'"{verdict}"' + sep + '"score"' + colon
        for verdict in ("pass", "fail", "error")
    }
    fields: list[Pieces] = [
        layout.sep(depth) + layout.open("{", row_depth) + '"name"' + colon,
        names,
        sep + '"tags"' + colon,
        tags,
        list(map(verdicts.__getitem__, _verdicts(columns, count))),
        _row_scores(columns, count),
        *extras,
        said_results,
    ]
    for column in columns:
        fields.extend(column[:5])
    fields.append(end + layout.close("}", row_depth))
    flat = _interleave(fields, count)
    flat[0] = layout.open("[", depth) + flat[0][len(layout.sep(depth)) :]
    flat.append(layout.close("]", depth))
    return flat


def _interleave(fields: list[Pieces], count: int) -> list[str]:
    """Row by row, the pieces of every field (runs of same-for-every-row fields merged)."""
    merged: list[Pieces] = []
    for field in fields:
        last = merged[-1] if merged else None
        if isinstance(field, str) and isinstance(last, str):
            merged[-1] = last + field
        elif field != "":
            merged.append(field)
    width = len(merged)
    flat = [""] * (width * count)
    for offset, field in enumerate(merged):
        flat[offset::width] = [field] * count if isinstance(field, str) else field
    return flat


def _extras(report: Report, layout: Layout, sep: str, depth: int) -> list[Pieces] | None:
    """The fields of each row's output and usage members (the text before ``"results"``):
    what ``report.output(i)`` and ``report.usage(i)`` give, read without a call per row."""
    count = len(report)
    raw = report._outputs
    outputs = (
        [None] * count
        if raw is None
        else [o if o is None or type(o) is str else output_text_of(o) for o in raw]
    )
    given = [o for o in outputs if o is not None]
    encoded = _strings(given, layout, depth)
    if encoded is None:
        return None
    said_output = sep + '"output"' + layout.colon
    usages = report._usage_map()
    if len(given) == count and not usages:
        return [said_output, encoded]
    shown = iter(encoded)
    texts = ["" if o is None else said_output + next(shown) for o in outputs]
    colon = layout.colon
    for index, usage in sorted(usages.items()):
        texts[index] += "".join(
            sep + encode_basestring(key) + colon + layout.value(value, depth)
            for key, value in usage.to_dict().items()
        )
    return [texts]


def _row_scores(columns: list[list[Any]], count: int) -> list[str]:
    # SampleRow.of: the fsum of the strategies' scores over their number (0.0 without any).
    if not columns:
        return _numbers([0.0] * count)
    k = len(columns)
    sums = map(math.fsum, zip(*(c[7] for c in columns), strict=True))
    return _numbers([total / k for total in sums])


def _verdicts(columns: list[list[Any]], count: int) -> list[str]:
    # SampleRow.of: "error" if any result is an error, else "pass" when all passed.
    if not columns:
        return ["pass"] * count
    errors = map(any, zip(*(c[6] for c in columns), strict=True))
    passes = map(all, zip(*(c[5] for c in columns), strict=True))
    return [
        "error" if bad else "pass" if ok else "fail" for bad, ok in zip(errors, passes, strict=True)
    ]


def _tag_texts(tags: Sequence[tuple[str, ...]], layout: Layout, depth: int) -> list[str] | None:
    known: dict[tuple[str, ...], str] = {}
    if not all(type(group) is tuple for group in tags):
        return None
    for group in set(tags):
        encoded = _strings(list(group), layout, depth + 1)
        if encoded is None:
            return None
        known[group] = layout.array(encoded, depth)
    return list(map(known.__getitem__, tags))


def splice_samples(document: dict[str, Any], rows: list[str], layout: Layout) -> str:
    """``document`` (whose ``samples`` is a placeholder) as JSON text with the pieces ``rows``
    at its ``samples`` key; the keys before and after it are encoded by :func:`dumps`."""
    # One join: copying a text of tens of megabytes again would cost as much as writing it.
    return "".join([*document_pieces(document, rows, layout), "\n"])


def document_pieces(
    document: dict[str, Any], rows: list[str], layout: Layout, depth: int = 0
) -> list[str]:
    """:func:`splice_samples`'s text, without the final line break, as pieces laid out as a
    value at ``depth`` (``rows`` from :func:`samples_pieces` at ``depth + 1``)."""
    keys = list(document)
    at = keys.index("samples")
    before, after = (
        dumps({k: document[k] for k in chunk}, layout.indent)[:-1]
        for chunk in (keys[:at], keys[at + 1 :])
    )
    # A non-empty object is "{" + members + "}", with a line break and indent inside when
    # indented: keep the members, and put the samples member between the two sets. A JSON
    # text holds no raw line break inside a string, so moving it to ``depth`` indents each.
    cut = 2 if layout.indent else 1
    deeper = layout.pad(depth) if layout.indent else "\n"
    head = "{" + layout.pad(depth + 1)
    if before != "{}":
        head += before[cut:-cut].lstrip(" ").replace("\n", deeper) + layout.sep(depth)
    head += '"samples"' + layout.colon
    tail = layout.close("}", depth)
    if after != "{}":
        tail = layout.sep(depth) + after[cut:-cut].lstrip(" ").replace("\n", deeper) + tail
    return [head, *rows, tail]
