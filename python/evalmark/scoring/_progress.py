"""The work ticker of `evalmark score`: how far a long row's quadratic kernel got.

The progress line itself is :mod:`evalmark._progress`, shared by every command."""

from __future__ import annotations

import threading
import time
from types import TracebackType

from evalmark._progress import Progress


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
        from evalmark.metrics._native import work_done

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
