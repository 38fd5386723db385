"""The documents and formats of a :class:`~evalmark.report.model.Report`: its JSON document, its
readers, and rendering or writing it through the formatter registry.

Kept apart from the figures in :mod:`~evalmark.report.model` as a mixin, so the report's data
and its output are each one concept in one place.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

from evalmark._files.atomic import write_atomically
from evalmark.report.document import decode, report_document, report_parts
from evalmark.report.formatters import formatter_for_path, get_formatter

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["ReportOutput"]


class ReportOutput:
    """The output methods of a report (mixed into ``Report``)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the report as plain Python values (see :meth:`to_json`)."""
        return report_document(cast("Report", self))

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> Self:
        """Read back :meth:`to_dict`; :class:`~evalmark.errors.ReportFormatError` naming
        ``source`` (a file name, for messages) and the field when something is unreadable."""
        return cls(**report_parts(data, source))

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str | None = None) -> Self:
        """Read a report written by :meth:`to_json` (for baselines and suites). Raises
        :class:`~evalmark.errors.ReportFormatError` (a ``ValueError``) naming ``source``, and
        the line or field, when the text is not such a report."""
        return cls.from_dict(decode(text, source), source=source)

    @classmethod
    def read(cls, path: str | Path) -> Self:
        """Read the JSON report at ``path``; ``FileNotFoundError`` when there is none."""
        return cls.from_json(Path(path).read_bytes(), source=str(path))

    def format(self, format: str, **options: Any) -> str:
        """The report rendered by the formatter named ``format`` (``markdown``, ``json``,
        ``html``, ``junit``, or one registered with :func:`~evalmark.report.register_formatter`)."""
        return get_formatter(format).render(cast("Report", self), **options)

    def to_markdown(self, **options: Any) -> str:
        """A Markdown report (GitHub-flavoured: fit for a pull-request comment)."""
        return self.format("markdown", **options)

    def to_json(self, **options: Any) -> str:
        """The JSON report: every result, readable back with :meth:`from_json`."""
        return self.format("json", **options)

    def to_html(self, **options: Any) -> str:
        """A self-contained HTML page for a reviewer: the gate's verdict, counts per check and
        tag, then every case (failing first) with its output and each check's verdict, score
        and reason. Nothing is fetched; a small inline script (allowed by the page's content
        security policy) adds filters by tag, check and "failing only", and the page reads
        whole with scripts off. Every run text is escaped. Options: ``samples=`` (the run's
        samples: each case's input, expected answer, facts and context), ``max_rows=``,
        ``timestamp=``."""
        return self.format("html", **options)

    def to_junit_xml(self, **options: Any) -> str:
        """JUnit XML: one test case per (sample, strategy)."""
        return self.format("junit", **options)

    def write(self, path: str | Path, *, format: str | None = None, **options: Any) -> Path:
        """Write the report to ``path`` in ``format``, or the format its extension names
        (``.md``, ``.json``, ``.html``, ``.xml``); the file appears whole or not at all.
        Returns the path."""
        target = Path(path)
        formatter = get_formatter(format) if format is not None else formatter_for_path(target)
        text = formatter.render(cast("Report", self), **options)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, text.encode("utf-8"))
        return target
