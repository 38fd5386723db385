"""The JSON report's ``samples`` written from the report's columns: the same bytes as
``dumps(report_document(report), indent)`` in a fraction of the time.

The reference path builds a :class:`~evalmark.report._values.SampleRow` and a dict per sample,
encodes the whole document with msgspec, re-indents it and decodes the UTF-8 back to text. Here
the rest of the document (whatever keys :func:`~evalmark.report._document.report_document` holds)
still goes through :func:`~evalmark.report._document.dumps`, and the rows are put in at the
``samples`` key. Each row is a ``%`` template filled with its values: one template per distinct
shape of row (its verdict and the shape of each result, :mod:`.json_results`), made once, and
values encoded a column at a time (:mod:`.json_layout`): names, tags, the row's score, its
output and usage, two slots per result. A threshold metric's explanation is written by the
template around the row's score, never built as a text of its own. The whole document is
formatted in one call and decoded once (:class:`~.json_layout.Template`).

``tests/report/test_report_json_fast.py`` compares the bytes with the reference on reports with
Unicode, NaN, big integers, nested metadata, errors, usage and every ``indent``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
import numpy.typing as npt

from evalmark.report._document import dumps
from evalmark.report._render.json_layout import Layout, Template, layout_for, numbers, texts
from evalmark.report._render.json_results import SHAPES, ColumnText, column_text
from evalmark.report._values import output_text_of

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["Layout", "document_template", "layout_for", "samples_template", "splice_samples"]

_VERDICTS = (b'"pass"', b'"fail"', b'"error"')
_CODES = 2**62  # row shape codes stay below this (int64)


def samples_template(report: Report, layout: Layout, depth: int = 1) -> Template | None:
    """The ``samples`` array of ``report`` at ``depth``, or None when the report holds a value
    the reference path must handle (it then fails or succeeds in its own way)."""
    out = Template()
    count = len(report)
    if not count:
        out.text(b"[]")
        return out
    row_depth, member_depth = depth + 1, depth + 2
    colon, sep = layout.colon, layout.sep(row_depth)
    keys = texts(list(report.strategies))
    names = texts(list(report.sample_names))
    tags = _tag_texts(report.sample_tags, layout, member_depth)
    extras = _extras(report, layout, sep, member_depth)
    if keys is None or names is None or tags is None or extras is None:
        return None
    columns = []
    for index, (name, key) in enumerate(zip(report.strategies, keys, strict=True)):
        lead = layout.open(b"{", member_depth) if index == 0 else layout.sep(member_depth)
        lead += b'"' + key.replace(b"%", b"%%") + b'"' + colon
        column = column_text(report.column(name), layout, lead, member_depth + 1)
        if column is None:
            return None
        columns.append(column)
    said_extras, extra_values = extras
    values: list[list[Any]] = [names]
    head = layout.sep(depth) + layout.open(b"{", row_depth) + b'"name"' + colon + b'"%s"'
    head += sep + b'"tags"' + colon
    if isinstance(tags, bytes):  # the same for every row
        head += tags.replace(b"%", b"%%")
    else:
        head += b"%s"
        values.append(tags)
    head += sep + b'"verdict"' + colon
    middle = sep + b'"score"' + colon + b"%s" + said_extras + sep + b'"results"' + colon
    end = (layout.close(b"}", member_depth) if columns else b"{}") + layout.close(b"}", row_depth)
    verdicts = _verdicts(columns, count)
    kinds, inverse = _row_shapes(verdicts, columns)
    templates = [
        head
        + _VERDICTS[verdicts[row]]
        + middle
        + b"".join(column.fragment(int(column.shapes[row])) for column in columns)
        + end
        for row in kinds.tolist()
    ]
    values.append(_row_scores(columns, count))
    if extra_values is not None:
        values.append(extra_values)
    for column in columns:
        values += [column.first, column.second]
    rows: list[bytes] = np.array(templates, dtype=object)[inverse].tolist()
    rows[0] = rows[0][len(layout.sep(depth)) :]
    out.text(layout.open(b"[", depth))
    out.slots(rows, chain.from_iterable(zip(*values, strict=True)))
    out.text(layout.close(b"]", depth))
    return out


def _row_shapes(
    verdicts: npt.NDArray[np.int64], columns: list[ColumnText]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """A row of each distinct shape (its verdict and its results' shapes), and each row's
    index among those shapes."""
    code = verdicts
    bound = len(_VERDICTS)
    for column in columns:
        if bound * SHAPES >= _CODES:  # number the codes seen so far 0, 1, ...
            code = np.unique(code, return_inverse=True)[1].reshape(-1)
            bound = int(code.max()) + 1
        code = code * SHAPES + column.shapes
        bound *= SHAPES
    _, kinds, inverse = np.unique(code, return_index=True, return_inverse=True)
    return kinds, inverse.reshape(-1)


def _extras(
    report: Report, layout: Layout, sep: bytes, depth: int
) -> tuple[bytes, list[bytes] | None] | None:
    """The template and values of each row's output and usage members (the text before
    ``"results"``): what ``report.output(i)`` and ``report.usage(i)`` give, read without a
    call per row. None when msgspec refuses a text."""
    count = len(report)
    raw = report._outputs
    if raw is None:
        outputs: Sequence[str | None] = [None] * count
    elif set(map(type, raw)) == {str}:
        outputs = raw
    else:
        outputs = [o if o is None or type(o) is str else output_text_of(o) for o in raw]
    given = list(outputs) if outputs is raw else [o for o in outputs if o is not None]
    encoded = texts(given, checked=True)
    if encoded is None:
        return None
    said_output = sep + b'"output"' + layout.colon
    usages = report._usage_map()
    if not usages and len(given) in (0, count):
        return (said_output + b'"%s"', encoded) if given else (b"", None)
    shown = iter(encoded)
    written = [b"" if o is None else said_output + b'"' + next(shown) + b'"' for o in outputs]
    colon = layout.colon
    for index, usage in sorted(usages.items()):
        written[index] += b"".join(
            sep + msgspec.json.encode(key) + colon + layout.value(value, depth)
            for key, value in usage.to_dict().items()
        )
    return b"%s", written


def _row_scores(columns: list[ColumnText], count: int) -> list[bytes]:
    # SampleRow.of: the fsum of the strategies' scores over their number (0.0 without any).
    if not columns:
        return numbers([0.0] * count)
    sums = np.fromiter(map(math.fsum, zip(*(c.scores for c in columns), strict=True)), float, count)
    return numbers((sums / len(columns)).tolist())


def _verdicts(columns: list[ColumnText], count: int) -> npt.NDArray[np.int64]:
    """Each row's verdict as an index into ``_VERDICTS``, as ``SampleRow.of`` gives it:
    "error" if any result is an error, else "pass" when all passed, else "fail"."""
    any_error = np.zeros(count, dtype=np.bool_)
    all_passed = np.ones(count, dtype=np.bool_)
    for column in columns:
        any_error |= column.errored
        all_passed &= column.passed
    return np.where(any_error, 2, np.where(all_passed, 0, 1)).astype(np.int64)


def _tag_texts(
    tags: Sequence[tuple[str, ...]], layout: Layout, depth: int
) -> list[bytes] | bytes | None:
    """Each row's tags encoded (one text when every row has the same), or None to take the
    reference path."""
    known: dict[tuple[str, ...], bytes] = {}
    try:
        groups = set(tags)
    except TypeError:  # unhashable, so not a tuple of texts
        return None
    for group in groups:
        if type(group) is not tuple:
            return None
        encoded = texts(list(group))
        if encoded is None:
            return None
        known[group] = layout.array([b'"' + text + b'"' for text in encoded], depth)
    if len(known) == 1:
        return next(iter(known.values()))
    return list(map(known.__getitem__, tags))


def splice_samples(document: dict[str, Any], rows: Template, layout: Layout) -> str:
    """``document`` (whose ``samples`` is a placeholder) as JSON text with ``rows`` at its
    ``samples`` key; the keys before and after it are encoded by :func:`dumps`."""
    text = document_template(document, rows, layout)
    text.text(b"\n")
    return text.render()


def document_template(
    document: dict[str, Any], rows: Template, layout: Layout, depth: int = 0
) -> Template:
    """:func:`splice_samples`'s text, without the final line break, laid out as a value at
    ``depth`` (``rows`` from :func:`samples_template` at ``depth + 1``)."""
    keys = list(document)
    at = keys.index("samples")
    before, after = (
        dumps({k: document[k] for k in chunk}, layout.indent)[:-1].encode("utf-8")
        for chunk in (keys[:at], keys[at + 1 :])
    )
    # A non-empty object is "{" + members + "}", with a line break and indent inside when
    # indented: keep the members, and put the samples member between the two sets. A JSON
    # text holds no raw line break inside a string, so moving it to ``depth`` indents each.
    cut = 2 if layout.indent else 1
    deeper = layout.pad(depth) if layout.indent else b"\n"
    head = b"{" + layout.pad(depth + 1)
    if before != b"{}":
        head += before[cut:-cut].lstrip(b" ").replace(b"\n", deeper) + layout.sep(depth)
    head += b'"samples"' + layout.colon
    tail = layout.close(b"}", depth)
    if after != b"{}":
        tail = layout.sep(depth) + after[cut:-cut].lstrip(b" ").replace(b"\n", deeper) + tail
    out = Template()
    out.text(head)
    out.extend(rows)
    out.text(tail)
    return out
