"""The JSON report format: every figure and every result, readable back with
``Report.from_json`` (the document itself is :mod:`evalmark.report.document`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalmark.report.document import dumps, report_document
from evalmark.report.render.common import stamp

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["render"]


def render(report: Report, *, indent: int | None = 2, timestamp: bool | str = False) -> str:
    """The JSON report text (ends with a newline); ``timestamp=True`` (or a text) adds a
    ``generated_at`` field after ``name``."""
    document = report_document(report)
    when = stamp(timestamp)
    if when:
        document = {
            **{k: document[k] for k in ("format", "version", "name")},
            "generated_at": when,
            **document,
        }
    return dumps(document, indent)
