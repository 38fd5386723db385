"""Reports: the results of a run and their figures (:class:`Report`, :class:`SuiteReport`),
formats (Markdown, JSON, HTML, JUnit XML and plug-ins), gates and baselines.

Layout: :mod:`~evalmark.report.values` and :mod:`~evalmark.report.model` are the data;
:mod:`~evalmark.report.document` the JSON document; :mod:`~evalmark.report.render` the formats,
found through :mod:`~evalmark.report.formatters`; :mod:`~evalmark.report.gates` every gate;
:mod:`~evalmark.report.baseline` comparisons; :mod:`~evalmark.report.suite` suites of reports;
:mod:`~evalmark.report.paths` safe file names for reports.
"""

from evalmark.errors import ReportFormatError
from evalmark.report.assertions import ReportAssertion, assert_that
from evalmark.report.baseline import CaseChange, Comparison, Delta, compare
from evalmark.report.formatters import (
    ENTRY_POINT_GROUP,
    Formatter,
    get_formatter,
    known_formatters,
    register_formatter,
    unregister_formatter,
)
from evalmark.report.gates import GateResult, require_pass_rate
from evalmark.report.model import Report
from evalmark.report.suite import SuiteReport
from evalmark.report.values import GuardrailSummary, SampleRow, SampleUsage, SkippedSample, Tally

__all__ = [
    "ENTRY_POINT_GROUP",
    "CaseChange",
    "Comparison",
    "Delta",
    "Formatter",
    "GateResult",
    "GuardrailSummary",
    "Report",
    "ReportAssertion",
    "ReportFormatError",
    "SampleRow",
    "SampleUsage",
    "SkippedSample",
    "SuiteReport",
    "Tally",
    "assert_that",
    "compare",
    "get_formatter",
    "known_formatters",
    "register_formatter",
    "require_pass_rate",
    "unregister_formatter",
]
