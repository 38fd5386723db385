"""A progress bar with rows per second, shown on a terminal only (rich is optional)."""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Any, Protocol


class Progress(Protocol):
    """Told after each chunk how far the reader got and how many rows were scored."""

    def update(self, position: int, rows: int) -> None:
        """Report progress: ``position`` in the reader's unit, ``rows`` scored so far."""

    def close(self) -> None:
        """Remove or finish the bar."""

    def note(self, message: str) -> None:
        """Show a line of text above the bar (a long row being scored)."""

    def describe(self, extra: str) -> None:
        """Show ``extra`` after the bar's label ("": the label alone)."""


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
        self._label = label
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

    def describe(self, extra: str) -> None:
        """Show ``extra`` after the label."""
        self._bar.update(self._task, description=f"{self._label} {extra}".rstrip())


class WorkTicker:
    """While a chunk with long rows is scored, shows on the bar how much of the quadratic
    kernels' work is done (``work_done()`` of the extension: word operations so far), how fast
    it goes and the most it can take (``expected``: Levenshtein's exact cost; ROUGE-L works on
    tokens, fewer than characters), every ``interval`` seconds, so that a row taking minutes
    visibly advances."""

    def __init__(self, progress: Progress, expected: float, interval: float = 0.5) -> None:
        self._progress = progress
        self._expected = expected
        self._interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="evalmark-progress", daemon=True)

    def _run(self) -> None:
        from evalmark.metrics import work_done

        start, began = work_done(), time.perf_counter()
        while not self._stopped.wait(self._interval):
            done = work_done() - start
            rate = done / max(time.perf_counter() - began, 1e-9)
            self._progress.describe(
                f"(long rows: {done:.3g} word operations done, {rate:.3g}/s, of at most "
                f"{self._expected:.3g})"
            )

    def __enter__(self) -> WorkTicker:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stopped.set()
        self._thread.join()
        self._progress.describe("")


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
