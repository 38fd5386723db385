"""Errors of data files: a :class:`Problem` says where (file, line, column, record) and what to
do; a :class:`DataFileError` carries every problem found, and each kind of file has its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalmark.errors._root import EvalmarkError

__all__ = [
    "CalibrationError",
    "ConversationError",
    "DataFileError",
    "ImportFormatError",
    "Problem",
    "PromptFileError",
    "ReportFormatError",
    "SampleError",
    "SuiteError",
    "TestCaseError",
    "TraceError",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a data file: where it is, which record, and what to do about it."""

    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    record: str | None = None

    def __str__(self) -> str:
        if self.path is None and self.line is None:
            return f"{self.record}: {self.message}" if self.record else self.message
        where = self.path or "<data>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        label = f" {self.record}:" if self.record else ""
        return f"{where}:{label} {self.message}"


class DataFileError(EvalmarkError, ValueError):
    """A data file could not be loaded; ``problems`` lists every problem found (at most 20)."""

    def __init__(self, problems: Sequence[Problem] | str, *, more: int = 0) -> None:
        if isinstance(problems, str):
            problems = [Problem(problems)]
        if not problems:
            raise ValueError("a DataFileError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.more = more
        first = self.problems[0]
        self.path = first.path
        self.line = first.line
        self.column = first.column
        self.record = first.record
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1 and not self.more:
            return str(self.problems[0])
        count = len(self.problems) + self.more
        lines = [f"{count} problems found:"]
        lines += [f"  {p}" for p in self.problems]
        if self.more:
            lines.append(f"  ... and {self.more} more")
        return "\n".join(lines)


class SampleError(DataFileError):
    """A sample or a samples file is invalid; the message says where and what to do.

    Attributes ``path``, ``line``, ``column`` and ``record`` locate the first problem;
    ``problems`` holds every problem found in the file (at most 20 are kept).
    """


class TestCaseError(DataFileError):
    """A test case or a test-case file is invalid; the message says where and what to do."""

    __test__ = False  # not a pytest test class


class TraceError(DataFileError):
    """A trace file cannot be read (not OTLP JSON or protobuf, a bad line), or a trace read
    without a list for its problems cannot be evaluated; the message names the file and line
    or the trace id, and what to do."""


class SuiteError(DataFileError):
    """A suite file is invalid; the message names the file, line, key and the fix."""


class ReportFormatError(DataFileError):
    """A JSON report (or suite report) that cannot be read: not JSON, nested too deep, not in
    evalmark's report format, or a field of the wrong type; the message names the file, the
    place (line, or the field's path such as ``samples[3].results``) and what to do."""


class PromptFileError(DataFileError):
    """A prompt file (Markdown with a YAML front matter) is malformed; the message names the
    file, the line and the field."""


class CalibrationError(DataFileError):
    """A judge calibration set (labelled items) is invalid; the message names the file, the
    line, the item and the field."""


class ImportFormatError(DataFileError):
    """A file of another evaluation tool cannot be imported without loss: the message names the
    file, the line or field, what would be lost, and the ``--allow-loss`` name that accepts it."""


class ConversationError(EvalmarkError, ValueError):
    """A simulated conversation cannot go on: an empty user reply, a user or application that
    returned something unusable. The message names the conversation and the turn."""
