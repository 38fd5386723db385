"""The reports a pytest session registered, and the names they have in its suite report.

Kept free of heavy imports: the plugin imports this module when pytest starts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalmark.report import Report

__all__ = [
    "REGISTRY",
    "REPORT_STEM",
    "RegisteredReport",
    "answer_sources",
    "register",
    "registered_reports",
]

# What answered a sample: (model id, digest of the recordings, build), any of them None.
Source = tuple[str | None, str | None, str | None]

REPORT_STEM = "evaluation-suite-report"  # the suite report's file name, before .md / .json


class RegisteredReport:
    """A report registered during the run, with the name it has in the suite report and, when
    known, what answered each of its samples (by sample name; for the run history), the
    samples it was scored on, and (from a pytest-xdist worker) its inspect log already
    rendered (for ``--evalmark-github``)."""

    __slots__ = ("inspect_log", "name", "report", "samples", "sources")

    def __init__(
        self,
        name: str,
        report: Report,
        sources: Mapping[str, Source] | None = None,
        samples: Any = None,
        inspect_log: str | None = None,
    ) -> None:
        self.name = name
        self.report = report
        self.sources = sources
        self.samples = samples
        self.inspect_log = inspect_log

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

    def add(
        self,
        report: Report,
        name: str | None = None,
        sources: Mapping[str, Source] | None = None,
        samples: Any = None,
    ) -> RegisteredReport:
        """Add ``report`` to the innermost session under a name not used there yet, with what
        answered its samples and the samples themselves when known."""
        frame = self.top
        base = name or frame.current_test or "evalmark"
        with self._lock:
            taken = {entry.name for entry in frame.entries}
            unique, number = base, 2
            while unique in taken:
                unique, number = f"{base} #{number}", number + 1
            entry = RegisteredReport(unique, report, sources, samples)
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


def answer_sources(function: object, samples: Iterable[Any]) -> dict[str, Source] | None:
    """What answered each sample (by name) when ``function`` is a recorded build made by
    ``evalmark.suite.load_application`` (it keeps an ``answer_log``); None for any other."""
    log = getattr(function, "answer_log", None)
    if log is None:
        return None
    from evalmark.suite._application import question_of

    found: dict[str, Source] = {}
    for sample in samples:
        try:
            source = log.source(question_of(sample))
        except (ValueError, AttributeError):
            continue
        found[sample.name] = (source.model_id, source.recordings, source.build)
    return found


def registered_reports() -> tuple[RegisteredReport, ...]:
    """The reports registered so far in this process, in registration order."""
    return REGISTRY.entries()
