"""The JSON report format: every figure and every result, readable back with
``Report.from_json`` (the document itself is :mod:`evalmark.report.document`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalmark.report.document import dumps, report_document
from evalmark.report.render.common import stamp
from evalmark.report.render.json_rows import layout_for, samples_pieces, splice_samples

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["reference_render", "render", "render_with_reports"]


def render(report: Report, *, indent: int | None = 2, timestamp: bool | str = False) -> str:
    """The JSON report text (ends with a newline); ``timestamp=True`` (or a text) adds a
    ``generated_at`` field after ``name``. The rows are written column by column
    (:mod:`~evalmark.report.render.json_rows`): the bytes of :func:`reference_render`."""
    layout = layout_for(indent)
    if layout is not None:
        document = _stamped(report_document(report, with_samples=False), timestamp)
        if "samples" in document:
            rows = samples_pieces(report, layout)
            if rows is not None:
                return splice_samples(document, rows, layout)
    return reference_render(report, indent=indent, timestamp=timestamp)


def reference_render(
    report: Report, *, indent: int | None = 2, timestamp: bool | str = False
) -> str:
    """:func:`render` through the whole document as Python values: the definition of the
    bytes (slower; taken for the indents and values the column writer leaves to it)."""
    return dumps(_stamped(report_document(report), timestamp), indent)


def _stamped(document: dict[str, Any], timestamp: bool | str) -> dict[str, Any]:
    when = stamp(timestamp)
    if not when:
        return document
    return {
        **{k: document[k] for k in ("format", "version", "name")},
        "generated_at": when,
        **document,
    }


def render_with_reports(head: dict[str, Any], reports: Sequence[Report], indent: int = 2) -> str:
    """``dumps({**head, "reports": [report_document(r) for r in reports]}, indent)``, each
    report written by :func:`render`. A JSON text holds no raw line break inside a string, so
    a report's text indented one level deeper at every line break is that report laid out as
    an array item."""
    if indent <= 0 or not head:
        return dumps({**head, "reports": [report_document(r) for r in reports]}, indent or None)
    pad = " " * indent
    opened = dumps(head, indent)[: -len("\n}\n")]
    if not reports:
        return f'{opened},\n{pad}"reports": []\n}}\n'
    item = "\n" + pad * 2
    texts = [render(report, indent=indent)[:-1].replace("\n", item) for report in reports]
    return f'{opened},\n{pad}"reports": [{item}{("," + item).join(texts)}\n{pad}]\n}}\n'
