"""Progress shown as one line on stderr, with no dependency: every command draws it the same way.

A progress line is shown on a terminal by default and never when stderr is a file or a pipe
(``--progress`` / ``--no-progress`` force either). It writes only to its stream, redraws at
most ten times a second, and a line of text (``note``) can be printed above it at any time.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Protocol, TextIO

ERASE = "\r\x1b[2K"


class Progress(Protocol):
    """Told how far the work got; shows it, or not."""

    def update(self, position: int, rows: int) -> None:
        """Report progress: ``position`` in the work's unit, ``rows`` done so far."""

    def close(self) -> None:
        """Finish the display."""

    def note(self, message: str) -> None:
        """Show a line of text above the progress line."""

    def describe(self, extra: str) -> None:
        """Show ``extra`` after the label ("": the label alone)."""


class NoProgress:
    """Shows nothing."""

    def update(self, position: int, rows: int) -> None:
        """Ignore the report."""

    def close(self) -> None:
        """Nothing to close."""

    def note(self, message: str) -> None:
        """Ignore the note."""

    def describe(self, extra: str) -> None:
        """Ignore the text."""

    def advance(self, count: int, total: int | None = None) -> None:
        """Ignore the count."""


class LineProgress:
    """One line on ``stream``: label, percent of ``total`` (when known, in ``unit``), the count
    of ``noun`` done, their rate and the time so far. Nothing is drawn before ``delay`` seconds
    have passed, so a quick command prints nothing; ``transient`` erases the line when done."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str,
        stream: TextIO,
        *,
        noun: str = "rows",
        delay: float = 0.0,
        transient: bool = False,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._label = label
        self._total = total
        self._unit = unit
        self._noun = noun
        self._stream = stream
        self._delay = delay
        self._transient = transient
        self._interval = interval
        self._clock = clock
        self._started = clock()
        self._last_draw: float | None = None
        self._position = 0
        self._rows = 0
        self._extra = ""
        self._shown = False
        self._lock = threading.Lock()  # workers of a pool report from their own threads

    def update(self, position: int, rows: int) -> None:
        """Move to ``position`` with ``rows`` done."""
        with self._lock:
            self._position, self._rows = position, rows
            self._draw(force=False)

    def advance(self, count: int, total: int | None = None) -> None:
        """Count ``count`` more done, of ``total`` when given."""
        with self._lock:
            if total is not None:
                self._total = total
            self._position += count
            self._rows += count
            self._draw(force=False)

    def note(self, message: str) -> None:
        """Print ``message`` on its own line above the progress line."""
        with self._lock:
            self._stream.write((ERASE if self._shown else "") + message + "\n")
            self._shown = False
            self._draw(force=True)

    def describe(self, extra: str) -> None:
        """Show ``extra`` after the label."""
        with self._lock:
            self._extra = extra
            self._draw(force=True)

    def close(self) -> None:
        """Draw the final state (kept, or erased when transient) and end the line."""
        with self._lock:
            self._finish()

    def _finish(self) -> None:
        if self._transient:
            if self._shown:
                self._stream.write(ERASE)
                self._stream.flush()
            self._shown = False
            return
        self._draw(force=True)
        if self._shown:
            self._stream.write("\n")
            self._stream.flush()
        self._shown = False

    def text(self) -> str:
        """The progress line as it would be drawn now."""
        elapsed = max(self._clock() - self._started, 0.0)
        parts = [f"{self._label} {self._extra}".rstrip()]
        noun = self._noun
        if self._total:
            parts.append(f"{min(self._position / self._total, 1.0):4.0%}")
        if self._total and self._unit == noun:
            parts.append(f"{self._rows:,}/{self._total:,} {noun}")
        else:
            parts.append(f"{self._rows:,} {noun}")
        if elapsed > 0:
            parts.append(f"{self._rows / elapsed:,.0f} {noun}/s")
        minutes, seconds = divmod(int(elapsed), 60)
        parts.append(f"{minutes}:{seconds:02d}")
        return "  ".join(parts)

    def _draw(self, *, force: bool) -> None:
        now = self._clock()
        if now - self._started < self._delay:
            return
        if not force and self._last_draw is not None and now - self._last_draw < self._interval:
            return
        self._last_draw = now
        self._stream.write(ERASE + self.text())
        self._stream.flush()
        self._shown = True


def wanted(enabled: bool | None, stream: TextIO) -> bool:
    """Whether to show progress: as forced by ``enabled``, else when ``stream`` is a terminal."""
    if enabled is not None:
        return enabled
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


def make_progress(
    enabled: bool | None,
    label: str,
    total: int | None,
    unit: str,
    *,
    stream: TextIO | None = None,
    noun: str = "rows",
    delay: float = 0.0,
    transient: bool = False,
) -> LineProgress | NoProgress:
    """A progress line on ``stream`` (default stderr) when :func:`wanted`, else nothing."""
    out = sys.stderr if stream is None else stream
    if not wanted(enabled, out):
        return NoProgress()
    return LineProgress(label, total, unit, out, noun=noun, delay=delay, transient=transient)
