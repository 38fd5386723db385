"""The JSON report format: every figure and every result, readable back with
``Report.from_json`` (the document itself is :mod:`evalmark.report._document`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalmark.report._document import dumps, report_document
from evalmark.report._render.common import stamp
from evalmark.report._render.json_layout import Layout, Template
from evalmark.report._render.json_rows import (
    document_template,
    layout_for,
    samples_template,
    splice_samples,
)

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["reference_render", "render", "render_with_reports"]


def render(report: Report, *, indent: int | None = 2, timestamp: bool | str = False) -> str:
    """The JSON report text (ends with a newline); ``timestamp=True`` (or a text) adds a
    ``generated_at`` field after ``name``. The rows are written column by column
    (:mod:`~evalmark.report._render.json_rows`): the bytes of :func:`reference_render`."""
    layout = layout_for(indent)
    if layout is not None:
        document = _stamped(report_document(report, with_samples=False), timestamp)
        if "samples" in document:
            rows = samples_template(report, layout)
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
    report's rows written by the column writer."""
    layout = layout_for(indent)
    if layout is None or layout.indent is None or not head:
        return dumps({**head, "reports": [report_document(r) for r in reports]}, indent or None)
    out = Template()
    out.text(dumps(head, indent)[: -len("\n}\n")].encode("utf-8"))
    out.text(layout.sep(0) + b'"reports"' + layout.colon)
    if not reports:
        out.text(b"[]" + layout.close(b"}", 0) + b"\n")
        return out.render()
    out.text(layout.open(b"[", 1))
    for index, report in enumerate(reports):
        if index:
            out.text(layout.sep(1))
        out.extend(_report_template(report, layout, 2))
    out.text(layout.close(b"]", 1) + layout.close(b"}", 0) + b"\n")
    return out.render()


def _report_template(report: Report, layout: Layout, depth: int) -> Template:
    document = report_document(report, with_samples=False)
    if "samples" in document:
        rows = samples_template(report, layout, depth + 1)
        if rows is not None:
            return document_template(document, rows, layout, depth)
    # A JSON text holds no raw line break inside a string: indent each one to ``depth``.
    text = reference_render(report, indent=layout.indent)[:-1].encode("utf-8")
    out = Template()
    out.text(text.replace(b"\n", layout.pad(depth)))
    return out
