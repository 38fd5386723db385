"""Run history in a local SQLite database: every run appends its results, and the queries
tell trends, run-to-run changes and flaky cases; ``dashboard`` renders them as one static page.

The database is ``.evalmark/history.sqlite`` in the project root by default (``EVALMARK_HISTORY``
moves it; ``EVALMARK_HISTORY=off`` turns it off). Writing history never changes a run's verdict:
a locked or corrupt database is reported as a :class:`~evalmark.errors.HistoryError` that the
command line prints as a warning.
"""

from evalmark.history._record import CaseResult, RunRecord
from evalmark.history._store import HistoryStore, default_history_path, open_history

__all__ = [
    "CaseResult",
    "HistoryStore",
    "RunRecord",
    "default_history_path",
    "open_history",
]
