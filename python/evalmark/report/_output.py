"""Rendering and writing reports: :func:`render_report` and :func:`write_report`.

A report (and a suite of reports) is a value that knows no format; these functions take one and
find its format in the formatter registry (:mod:`~evalmark.report._formatters`: Markdown, JSON,
HTML, JUnit XML and plug-ins). They sit above every module of the report package, and nothing in
it imports them, so the report's modules form no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark._files.text import escape_surrogates, to_utf8
from evalmark.report._formatters import formatter_for_path, get_formatter, known_formatters
from evalmark.report._model import Report
from evalmark.report._render.json import render_with_reports
from evalmark.report._render.markdown import render_comparison, render_suite
from evalmark.report._suite import SuiteReport

__all__ = ["render_comparison", "render_report", "report_bytes", "write_report"]

_SUITE_FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    "md": "markdown",
}
_BUILT_IN = ("markdown", "json", "html", "junit", "inspect")


def _suite_text(suite: SuiteReport, format: str, options: dict[str, Any]) -> str:
    chosen = _SUITE_FORMATS.get(format, format)
    if chosen in ("markdown", "json") and options:
        raise TypeError(f"a {chosen} suite report takes no options; got {', '.join(options)}")
    if chosen == "markdown":
        return render_suite(suite)
    if chosen == "json":
        head = {k: v for k, v in suite.to_dict(with_reports=False).items() if k != "reports"}
        return render_with_reports(head, suite.reports)
    if chosen == "html":
        from evalmark.report._render.html_suite import render_suite as html_suite

        return html_suite(suite, **options)
    formatter = get_formatter(chosen)  # KeyError naming the known formats
    if formatter.name in _BUILT_IN:
        raise ValueError(
            f"a suite report is rendered as markdown, json, html or a registered format; "
            f"{formatter.name} renders one report at a time"
        )
    return formatter.render(suite, **options)  # type: ignore[arg-type]  # a plug-in gets the suite


def render_report(report: Report | SuiteReport, format: str = "markdown", **options: Any) -> str:
    """``report`` as text in ``format``: ``markdown`` (GitHub-flavoured, fit for a pull-request
    comment), ``json`` (every result and gate condition, read back with ``Report.from_json``),
    ``html`` (a self-contained page for a reviewer; options ``samples=``, ``max_rows=``,
    ``timestamp=``), ``junit`` (one test case per check of a case, and per gate condition), or a
    format registered with ``register_formatter``. A :class:`SuiteReport` renders as
    ``markdown`` (its overview), ``json`` (every report in full), ``html`` (one page: the
    overview and every report, with the options of ``html``) or a registered format, whose
    function is then given the suite. The text is what :func:`write_report` writes: a lone
    surrogate in it is written as ``\\udcff``."""
    if isinstance(report, SuiteReport):
        return escape_surrogates(_suite_text(report, format, options))
    formatter = get_formatter(format)
    escaping = _escaping(formatter.function)
    if escaping is not None:
        return escaping(report, **options)
    return escape_surrogates(formatter.render(report, **options))


def _escaping(function: Callable[..., str]) -> Callable[..., str] | None:
    """The form of a built-in renderer that writes each lone surrogate as ``\\udcff`` itself
    (scanning only the texts not known to hold none); None for any other function."""
    from evalmark.report._render import html, markdown

    found: dict[Callable[..., str], Callable[..., str]] = {
        markdown.render: markdown.render_escaped,
        html.render: html.render_escaped,
    }
    return found.get(function)


def write_report(
    report: Report | SuiteReport, path: str | Path, *, format: str | None = None, **options: Any
) -> Path:
    """Write ``report`` to ``path`` in ``format``, or in the format its extension names (``.md``,
    ``.json``, ``.html``, ``.xml``; a suite: ``.md``, ``.json``, ``.html`` or a registered
    format's extension); the file appears whole or not
    at all. Returns the path."""
    target = Path(path)
    write_atomically(target, report_bytes(report, target, format=format, **options))
    return target


def report_bytes(
    report: Report | SuiteReport, path: str | Path, *, format: str | None = None, **options: Any
) -> bytes:
    """The bytes :func:`write_report` writes to ``path``: the report rendered in ``format`` (or
    the one ``path``'s extension names) as UTF-8, a lone surrogate kept as ``\\udcff``."""
    target = Path(path)
    if isinstance(report, SuiteReport):
        chosen = format or _SUITE_FORMATS.get(target.suffix.lower())
        if chosen is None:
            known = [f for f in known_formatters().values() if f.name not in _BUILT_IN]
            chosen = next((f.name for f in known if target.suffix.lower() in f.extensions), None)
        if chosen is None:
            raise ValueError(
                "a suite report is written as markdown (.md), json (.json), html (.html) or a "
                f"registered format; got {target.name!r}"
            )
        text = render_report(report, chosen, **options)
    else:
        formatter = get_formatter(format) if format is not None else formatter_for_path(target)
        text = formatter.render(report, **options)
    return to_utf8(text)
