"""The engine's defaults, in one place for every entry point that runs many samples
(``Scorer``, ``Evaluation``, suite files, ``evaluation_test``): kept free of imports so the
pytest helpers read them cheaply.

Concurrency is safe with cassettes: callers that miss the same recording at once make one
live call (models/inflight.py), so a run records and reports the same at any concurrency."""

from __future__ import annotations

__all__ = ["DEFAULT_CONCURRENCY"]

# Calls of the function under test (and of per-sample judges) in flight at once. Results do
# not depend on it: a run gives the same report at any concurrency.
DEFAULT_CONCURRENCY = 4
