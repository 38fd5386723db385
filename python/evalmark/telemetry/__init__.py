"""Evaluation telemetry: tracers, the ambient scope, OpenTelemetry, and production sampling.

* :class:`EvalTracer` (``record(EvaluationRecord)``), :func:`scope` and the hooks
  :func:`record_evaluation` / :func:`record_column` that the engine calls per result
  (:mod:`evalmark.telemetry._tracer`); :class:`RecordingTracer` keeps records in memory.
* :class:`OpenTelemetryTracer`: histograms ``evalmark.evaluation.score`` and
  ``evalmark.evaluation.duration`` and a span per evaluation; :func:`prometheus_tracer` and
  :func:`prometheus_text` for a Prometheus exposition (:mod:`evalmark.telemetry._otel`, the
  optional extra ``evalmark[otel]``).
* :func:`monitor` / :class:`Monitor`: score a seeded fraction of live calls on a background
  worker (:mod:`evalmark.telemetry._sampling`, loaded on first use: it needs the strategies).

The tracer module imports nothing of evalmark, so every layer may report into it; the monitor
sits at the engine's layer (it builds samples and runs strategies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalmark.telemetry._otel import (
    DURATION_METRIC,
    SCORE_METRIC,
    OpenTelemetryTracer,
    prometheus_text,
    prometheus_tracer,
)
from evalmark.telemetry._tracer import (
    ContextCapturingTracer,
    EvalTracer,
    EvaluationRecord,
    RecordingTracer,
    capture_context,
    current_tracer,
    record_column,
    record_evaluation,
    scope,
    tracer_for,
)

if TYPE_CHECKING:
    from evalmark.telemetry._sampling import Monitor, MonitorStats, monitor

__all__ = [
    "DURATION_METRIC",
    "SCORE_METRIC",
    "ContextCapturingTracer",
    "EvalTracer",
    "EvaluationRecord",
    "Monitor",
    "MonitorStats",
    "OpenTelemetryTracer",
    "RecordingTracer",
    "capture_context",
    "current_tracer",
    "monitor",
    "prometheus_text",
    "prometheus_tracer",
    "record_column",
    "record_evaluation",
    "scope",
    "tracer_for",
]

_MONITOR_NAMES = frozenset({"Monitor", "MonitorStats", "monitor"})


def __getattr__(name: str) -> Any:
    if name in _MONITOR_NAMES:
        from evalmark.telemetry import _sampling as module

        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'evalmark.telemetry' has no attribute {name!r}")
