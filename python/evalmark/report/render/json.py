"""The JSON report format: every figure and every result, readable back with
``Report.from_json`` (the document itself is :mod:`evalmark.report.document`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalmark.report.document import dumps, report_document
from evalmark.report.render.common import stamp
from evalmark.report.render.json_rows import (
    Layout,
    document_pieces,
    layout_for,
    samples_pieces,
    splice_samples,
)

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
    report's rows written by the column writer."""
    layout = layout_for(indent)
    if layout is None or layout.indent is None or not head:
        return dumps({**head, "reports": [report_document(r) for r in reports]}, indent or None)
    opened = dumps(head, indent)[: -len("\n}\n")]
    said = layout.sep(0) + '"reports"' + layout.colon
    if not reports:
        return opened + said + "[]" + layout.close("}", 0) + "\n"
    pieces = [opened, said, layout.open("[", 1)]
    for index, report in enumerate(reports):
        if index:
            pieces.append(layout.sep(1))
        pieces.extend(_report_pieces(report, layout, 2))
    pieces += [layout.close("]", 1), layout.close("}", 0), "\n"]
    return "".join(pieces)


def _report_pieces(report: Report, layout: Layout, depth: int) -> list[str]:
    document = report_document(report, with_samples=False)
    if "samples" in document:
        rows = samples_pieces(report, layout, depth + 1)
        if rows is not None:
            return document_pieces(document, rows, layout, depth)
    # A JSON text holds no raw line break inside a string: indent each one to ``depth``.
    return [reference_render(report, indent=layout.indent)[:-1].replace("\n", layout.pad(depth))]
