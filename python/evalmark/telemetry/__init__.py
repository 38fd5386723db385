"""Evaluation telemetry: tracers, the ambient scope, OpenTelemetry, and production sampling.

* :class:`EvalTracer` (``record(EvaluationRecord)``), :func:`scope` and the hooks
  :func:`record_evaluation` / :func:`record_column` that the engine calls per result
  (:mod:`evalmark._tracing._tracer`); :class:`RecordingTracer` keeps records in memory.
* :class:`OpenTelemetryTracer`: histograms ``evalmark.evaluation.score`` and
  ``evalmark.evaluation.duration`` and a span per evaluation; :func:`prometheus_tracer` and
  :func:`prometheus_text` for a Prometheus exposition (:mod:`evalmark.telemetry._otel`, the
  optional extra ``evalmark[otel]``).
* ``evalmark.monitor``: score a seeded fraction of live calls on a background worker
  (:mod:`evalmark.telemetry._sampling`; it needs the strategies, so this face does not load it).

The tracer module imports nothing of evalmark, so every layer may report into it; the monitor
sits at the engine's layer (it builds samples and runs strategies).
"""

from __future__ import annotations

from evalmark._tracing._tracer import (
    EvalTracer,
    EvaluationRecord,
    RecordingTracer,
    current_tracer,
    record_column,
    record_evaluation,
    scope,
)
from evalmark.telemetry._otel import OpenTelemetryTracer, prometheus_text, prometheus_tracer

__all__ = [
    "EvalTracer",
    "EvaluationRecord",
    "OpenTelemetryTracer",
    "RecordingTracer",
    "current_tracer",
    "prometheus_text",
    "prometheus_tracer",
    "record_column",
    "record_evaluation",
    "scope",
]
