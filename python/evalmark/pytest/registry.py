"""The reports a pytest session registered, and the names they have in its suite report.

Kept free of heavy imports: the plugin imports this module when pytest starts.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalmark.report import Report

__all__ = ["REGISTRY", "REPORT_STEM", "RegisteredReport", "register", "registered_reports"]

REPORT_STEM = "evaluation-suite-report"  # the suite report's file name, before .md / .json


class RegisteredReport:
    """A report registered during the run, with the name it has in the suite report."""

    __slots__ = ("name", "report")

    def __init__(self, name: str, report: Report) -> None:
        self.name = name
        self.report = report

    def __repr__(self) -> str:
        return f"RegisteredReport({self.name!r})"


class _Frame:
    """The reports of one pytest session, and the test currently running (set by the plugin)."""

    def __init__(self) -> None:
        self.entries: list[RegisteredReport] = []
        self.current_test: str | None = None


class _Registry:
    """The reports of this process, per pytest session. Sessions nest (pytester runs one inside
    another in the same process), so each gets its own frame on a stack."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frames: list[_Frame] = [_Frame()]

    def push(self) -> _Frame:
        """Start the frame of a new session."""
        frame = _Frame()
        with self._lock:
            self._frames.append(frame)
        return frame

    def pop(self, frame: _Frame) -> None:
        """End a session's frame."""
        with self._lock:
            if frame in self._frames and len(self._frames) > 1:
                self._frames.remove(frame)

    @property
    def top(self) -> _Frame:
        """The frame of the innermost session."""
        with self._lock:
            return self._frames[-1]

    @property
    def current_test(self) -> str | None:
        """The id of the test running in the innermost session."""
        return self.top.current_test

    @current_test.setter
    def current_test(self, nodeid: str | None) -> None:
        self.top.current_test = nodeid

    def add(self, report: Report, name: str | None = None) -> RegisteredReport:
        """Add ``report`` to the innermost session under a name not used there yet."""
        frame = self.top
        base = name or frame.current_test or "evalmark"
        with self._lock:
            taken = {entry.name for entry in frame.entries}
            unique, number = base, 2
            while unique in taken:
                unique, number = f"{base} #{number}", number + 1
            entry = RegisteredReport(unique, report)
            frame.entries.append(entry)
            return entry

    def entries(self) -> tuple[RegisteredReport, ...]:
        """The reports of the innermost session, in registration order."""
        frame = self.top
        with self._lock:
            return tuple(frame.entries)


REGISTRY = _Registry()


def register(report: Report, name: str | None = None) -> Report:
    """Add ``report`` to the suite report of this pytest run; returns it unchanged.

    ``name`` defaults to the id of the running test (a second report from the same test gets
    ``#2``). Reports from the ``scorer`` fixture and :func:`~evalmark.pytest.evaluation_test`
    are registered already; call this for reports made another way.
    """
    REGISTRY.add(report, name)
    return report


def registered_reports() -> tuple[RegisteredReport, ...]:
    """The reports registered so far in this process, in registration order."""
    return REGISTRY.entries()
