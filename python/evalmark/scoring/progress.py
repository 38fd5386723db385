"""A progress bar with rows per second, shown on a terminal only (rich is optional)."""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol


class Progress(Protocol):
    """Told after each chunk how far the reader got and how many rows were scored."""

    def update(self, position: int, rows: int) -> None:
        """Report progress: ``position`` in the reader's unit, ``rows`` scored so far."""

    def close(self) -> None:
        """Remove or finish the bar."""

    def note(self, message: str) -> None:
        """Show a line of text above the bar (a long row being scored)."""


class NoProgress:
    """Shows nothing."""

    def update(self, position: int, rows: int) -> None:
        """Ignore the report."""

    def close(self) -> None:
        """Nothing to close."""

    def note(self, message: str) -> None:
        """Ignore the note."""


class RichProgress:
    """A rich bar on stderr: percent of the input, rows scored, rows per second, time left."""

    def __init__(self, label: str, total: int | None, unit: str) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self._bar: Any = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rows]:>12,} rows"),
            TextColumn("{task.fields[rate]:>10,.0f} rows/s"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._unit = unit
        self._started = time.perf_counter()
        self._bar.start()
        self._task = self._bar.add_task(label, total=total, rows=0, rate=0.0)

    def update(self, position: int, rows: int) -> None:
        """Move the bar."""
        elapsed = max(time.perf_counter() - self._started, 1e-9)
        self._bar.update(self._task, completed=position, rows=rows, rate=rows / elapsed)

    def close(self) -> None:
        """Stop redrawing; the last state stays on screen."""
        self._bar.stop()

    def note(self, message: str) -> None:
        """Print ``message`` on stderr above the bar."""
        self._bar.console.print(message, markup=False, highlight=False)


def make_progress(enabled: bool | None, label: str, total: int | None, unit: str) -> Progress:
    """A rich bar when ``enabled`` (None: when stderr is a terminal and rich is installed)."""
    show = sys.stderr.isatty() if enabled is None else enabled
    if not show:
        return NoProgress()
    try:
        return RichProgress(label, total, unit)
    except ImportError:
        if enabled:  # asked for explicitly
            print(
                "evalmark: no progress bar: install it with `pip install 'evalmark[progress]'`",
                file=sys.stderr,
            )
        return NoProgress()
