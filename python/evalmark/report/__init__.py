"""Reports: figures, formatters (Markdown, JSON, HTML, JUnit XML, plug-ins), gates, baselines
and suites. See :class:`Report`."""

from evalmark.report.baseline import CaseChange, Comparison, Delta, compare
from evalmark.report.formatters import (
    ENTRY_POINT_GROUP,
    Formatter,
    get_formatter,
    known_formatters,
    register_formatter,
    unregister_formatter,
)
from evalmark.report.gates import ReportAssertion, assert_that, require_pass_rate
from evalmark.report.model import (
    GuardrailSummary,
    Report,
    SampleRow,
    SampleUsage,
    SkippedSample,
    Summary,
)
from evalmark.report.suite import SuiteReport

__all__ = [
    "ENTRY_POINT_GROUP",
    "CaseChange",
    "Comparison",
    "Delta",
    "Formatter",
    "GuardrailSummary",
    "Report",
    "ReportAssertion",
    "SampleRow",
    "SampleUsage",
    "SkippedSample",
    "SuiteReport",
    "Summary",
    "assert_that",
    "compare",
    "get_formatter",
    "known_formatters",
    "register_formatter",
    "require_pass_rate",
    "unregister_formatter",
]
