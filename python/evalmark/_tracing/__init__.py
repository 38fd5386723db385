"""The ambient tracer and the recording of evaluations, low in the layers so that every check
and the engine can report to it: :mod:`~evalmark._tracing._tracer` (the tracer protocol, the
records, the context that holds the current tracer) and :mod:`~evalmark._tracing._direct`
(evaluations called directly, recorded once). Nothing of evalmark is imported at run time.

The public names are in :mod:`evalmark.telemetry`.
"""

__all__: list[str] = []
