"""Reports: the results of a run and their figures (:class:`Report`, :class:`SuiteReport`), the
comparison with a baseline, and the formats (Markdown, JSON, HTML, JUnit XML and plug-ins).

A report is a frozen value that imports no renderer and no gate rule (the rules are in
:mod:`evalmark.gates`; the conditions they checked travel as :class:`GateResult` values).
Layout, from the bottom: :mod:`~evalmark.report._values`, :mod:`~evalmark.report._cases` and
:mod:`~evalmark.report._gate_result` are plain values; :mod:`~evalmark.report._reading` reads a
JSON report back; :mod:`~evalmark.report._model` is the :class:`Report`;
:mod:`~evalmark.report._document` its JSON document; :mod:`~evalmark.report._comparison` the
figures of a comparison with a baseline; :mod:`~evalmark.report._suite` suites of reports;
:mod:`~evalmark.report._render` the formats, found through :mod:`~evalmark.report._formatters`;
:mod:`~evalmark.report._output` (:func:`render_report`, :func:`write_report`) on top;
:mod:`~evalmark.report._paths` safe file names for reports.
"""

from evalmark.report._comparison import compare
from evalmark.report._document import report_document
from evalmark.report._formatters import Formatter, register_formatter, unregister_formatter
from evalmark.report._gate_result import GateResult
from evalmark.report._model import Report
from evalmark.report._output import render_comparison, render_report, write_report
from evalmark.report._plot import score_histogram
from evalmark.report._suite import SuiteReport

__all__ = [
    "Formatter",
    "GateResult",
    "Report",
    "SuiteReport",
    "compare",
    "register_formatter",
    "render_comparison",
    "render_report",
    "report_document",
    "score_histogram",
    "unregister_formatter",
    "write_report",
]
