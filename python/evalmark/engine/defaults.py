"""The engine's defaults, in one place for every entry point (``Scorer``, suite files,
``evaluation_test``): kept free of imports so the pytest helpers can read them cheaply."""

from __future__ import annotations

__all__ = ["DEFAULT_CONCURRENCY"]

# Calls of the function under test (and of per-sample judges) in flight at once. Results do
# not depend on it: a run gives the same report at any concurrency.
DEFAULT_CONCURRENCY = 4
