"""The engine's defaults, in one place for the entry points that run many samples (suite
files, ``evaluation_test``): kept free of imports so the pytest helpers read them cheaply.

``Scorer()`` still defaults to 1: at more, two samples that miss the same recording at once in
``record-missing`` mode both call the live model (the cassette does not yet share an
in-flight call), which a default must not do."""

from __future__ import annotations

__all__ = ["DEFAULT_CONCURRENCY"]

# Calls of the function under test (and of per-sample judges) in flight at once. Results do
# not depend on it: a run gives the same report at any concurrency.
DEFAULT_CONCURRENCY = 4
