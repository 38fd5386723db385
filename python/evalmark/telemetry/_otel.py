"""Evaluation telemetry through OpenTelemetry (the optional extra ``evalmark[otel]``).

:class:`OpenTelemetryTracer` turns each :class:`~evalmark.telemetry.EvaluationRecord` into

* an observation of the histogram ``evalmark.evaluation.score`` (unit ``1``, buckets of 0.1 up
  to 1.0) and, when the duration is known, of ``evalmark.evaluation.duration`` (unit ``s``);
* a span ``evaluate <strategy>``, a child of the request's span when the record carries the
  context captured on the request path (:func:`evalmark.monitor` does).

Attributes follow the OpenTelemetry GenAI semantic conventions where one fits (the
``gen_ai.evaluation.result`` event's attributes, and ``error.type``), evalmark's own otherwise:

=================================  =========  =====  ============================================
attribute                          metrics    span   value
=================================  =========  =====  ============================================
``gen_ai.evaluation.name``         yes        yes    the strategy's name
``evalmark.suite``                 yes        yes    the suite (absent when there is none)
``evalmark.tag``                   yes        no     one observation per tag of the sample
``evalmark.passed``                yes        yes    the verdict, a bool
``error.type``                     yes        yes    the exception type, only when it errored
``gen_ai.evaluation.score.value``  no         yes    the score in [0, 1]
``gen_ai.evaluation.score.label``  no         yes    ``pass``, ``fail`` or ``error``
``gen_ai.evaluation.explanation``  no         yes    the explanation (cut to 500 characters)
``evalmark.sample``                no         yes    the sample's name
``evalmark.tags``                  no         yes    every tag of the sample
=================================  =========  =====  ============================================

With ``tags="joined"`` a sample is observed once, ``evalmark.tag`` holding its sorted tags
joined by commas (totals then add up; with the default ``"each"`` a sample with two tags is
counted under both). A sample without tags has no ``evalmark.tag``.

:func:`prometheus_tracer` wires the tracer to a Prometheus text exposition through the
OpenTelemetry Prometheus exporter. evalmark imports none of this until it is asked for, and
says which extra to install when it is missing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from evalmark._tracing._tracer import EvaluationRecord
from evalmark.errors import OptionalDependencyError

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = [
    "DURATION_BUCKETS",
    "DURATION_METRIC",
    "SCORE_BUCKETS",
    "SCORE_METRIC",
    "OpenTelemetryTracer",
    "prometheus_text",
    "prometheus_tracer",
]

SCORE_METRIC = "evalmark.evaluation.score"
DURATION_METRIC = "evalmark.evaluation.duration"
SCORE_BUCKETS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
# From a metric kernel's microseconds to a judge's minute.
DURATION_BUCKETS: tuple[float, ...] = (
    0.0001,
    0.0005,
    0.001,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)

ATTR_NAME = "gen_ai.evaluation.name"
ATTR_SCORE = "gen_ai.evaluation.score.value"
ATTR_LABEL = "gen_ai.evaluation.score.label"
ATTR_EXPLANATION = "gen_ai.evaluation.explanation"
ATTR_ERROR = "error.type"
ATTR_SUITE = "evalmark.suite"
ATTR_TAG = "evalmark.tag"
ATTR_TAGS = "evalmark.tags"
ATTR_PASSED = "evalmark.passed"
ATTR_SAMPLE = "evalmark.sample"

_EXPLANATION_LIMIT = 500
_PURPOSE = "OpenTelemetry telemetry"


def _need(module: str, purpose: str = _PURPOSE) -> OptionalDependencyError:
    return OptionalDependencyError(module, "otel", purpose)


_PACKAGES = (
    ("opentelemetry.exporter.prometheus", "opentelemetry-exporter-prometheus"),
    ("opentelemetry.sdk", "opentelemetry-sdk"),
    ("opentelemetry", "opentelemetry-api"),
    ("prometheus_client", "prometheus-client"),
)


def _package_of(module: str | None) -> str:
    """The distribution that provides ``module`` (the one an ImportError names)."""
    for prefix, package in _PACKAGES:
        if module is not None and (module == prefix or module.startswith(prefix + ".")):
            return package
    return "opentelemetry-exporter-prometheus"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("evalmark")
    except Exception:  # not installed as a distribution (a source checkout)
        return "0"


class OpenTelemetryTracer:
    """An :class:`~evalmark.telemetry.EvalTracer` that reports to OpenTelemetry.

    ``meter_provider`` / ``tracer_provider``: where the metrics and spans go (default: the
    global providers, a no-op until the application configures OpenTelemetry). ``spans=False``
    records metrics only. ``tags``: ``"each"`` (one observation per tag) or ``"joined"``.
    """

    def __init__(
        self,
        *,
        meter_provider: Any = None,
        tracer_provider: Any = None,
        spans: bool = True,
        metrics: bool = True,
        tags: Literal["each", "joined"] = "each",
    ) -> None:
        if tags not in ("each", "joined"):
            raise ValueError(f"tags must be 'each' or 'joined', got {tags!r}")
        try:
            from opentelemetry import context, trace
            from opentelemetry import metrics as otel_metrics
        except ImportError:
            raise _need("opentelemetry-api") from None
        self._context = context
        self._trace = trace
        self.tags: Literal["each", "joined"] = tags
        version = _version()
        self._score: Any = None
        self._duration: Any = None
        if metrics:
            meter = (meter_provider or otel_metrics.get_meter_provider()).get_meter(
                "evalmark", version
            )
            self._score = meter.create_histogram(
                SCORE_METRIC,
                unit="1",
                description="Scores of evaluations, in [0, 1]",
                explicit_bucket_boundaries_advisory=list(SCORE_BUCKETS),
            )
            self._duration = meter.create_histogram(
                DURATION_METRIC,
                unit="s",
                description="Time an evaluation took",
                explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
            )
        self._owned: list[Any] = []  # providers made for this tracer, shut down with it
        self._tracer: Any = None
        if spans:
            self._tracer = (tracer_provider or trace.get_tracer_provider()).get_tracer(
                "evalmark", version
            )

    def shutdown(self) -> None:
        """Flush and close the providers this tracer made (:func:`prometheus_tracer`'s meter
        provider, which also unregisters it from the Prometheus registry); twice is harmless.
        Providers passed in belong to the caller and are left alone."""
        owned, self._owned = self._owned, []
        for provider in owned:
            provider.shutdown()

    def capture(self) -> object:
        """The current OpenTelemetry context (the request's span), for ``record.context``."""
        return self._context.get_current()

    def record(self, record: EvaluationRecord) -> None:
        """Observe the score and duration, and emit the span."""
        common: dict[str, Any] = {ATTR_NAME: record.strategy, ATTR_PASSED: record.passed}
        if record.suite is not None:
            common[ATTR_SUITE] = record.suite
        if record.error is not None:
            common[ATTR_ERROR] = record.error
        if self._score is not None:
            for attributes in self._per_tag(common, record.tags):
                self._score.record(record.score, attributes)
                if record.duration is not None:
                    self._duration.record(record.duration, attributes)
        if self._tracer is not None:
            self._span(record, common)

    def _per_tag(self, common: dict[str, Any], tags: Sequence[str]) -> list[dict[str, Any]]:
        if not tags:
            return [common]
        if self.tags == "joined":
            return [{**common, ATTR_TAG: ",".join(sorted(tags))}]
        return [{**common, ATTR_TAG: tag} for tag in tags]

    def _span(self, record: EvaluationRecord, common: dict[str, Any]) -> None:
        attributes: dict[str, Any] = {
            **common,
            ATTR_SCORE: record.score,
            ATTR_LABEL: record.verdict,
        }
        if record.explanation:
            attributes[ATTR_EXPLANATION] = record.explanation[:_EXPLANATION_LIMIT]
        if record.sample is not None:
            attributes[ATTR_SAMPLE] = record.sample
        if record.tags:
            attributes[ATTR_TAGS] = list(record.tags)
        end = time.time_ns()
        start = end - int((record.duration or 0.0) * 1e9)
        parent = record.context if record.context is not None else None
        span = self._tracer.start_span(
            f"evaluate {record.strategy}",
            context=parent,
            attributes=attributes,
            start_time=start,
        )
        if record.error is not None:
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, record.error))
        span.end(end_time=end)


def prometheus_tracer(
    *,
    registry: CollectorRegistry | None = None,
    tracer_provider: Any = None,
    spans: bool = False,
    tags: Literal["each", "joined"] = "each",
) -> OpenTelemetryTracer:
    """A tracer whose metrics are exposed in the Prometheus text format.

    The metrics go through an OpenTelemetry ``MeterProvider`` of the tracer's own with a
    ``PrometheusMetricReader`` registered in ``registry`` (default: prometheus_client's global
    one, which ``prometheus_client.start_http_server(port)`` serves at ``/metrics``). Spans
    are off unless asked for (``spans=True`` sends them to ``tracer_provider``, default the
    global one). ``tracer.shutdown()`` unregisters the reader."""
    try:
        from opentelemetry.exporter.prometheus import PrometheusMetricReader
        from opentelemetry.sdk.metrics import MeterProvider
        from prometheus_client import REGISTRY
    except ImportError as exc:
        raise _need(_package_of(exc.name), "Prometheus exposition") from None
    reader = PrometheusMetricReader(registry=registry if registry is not None else REGISTRY)
    provider = MeterProvider(metric_readers=[reader], shutdown_on_exit=False)
    tracer = OpenTelemetryTracer(
        meter_provider=provider, tracer_provider=tracer_provider, spans=spans, tags=tags
    )
    tracer._owned.append(provider)
    return tracer


def prometheus_text(registry: CollectorRegistry | None = None) -> str:
    """The Prometheus text exposition of ``registry`` (default: the global one), as served at
    ``/metrics``."""
    try:
        from prometheus_client import REGISTRY, generate_latest
    except ImportError:
        raise _need("prometheus-client", "Prometheus exposition") from None
    return generate_latest(registry if registry is not None else REGISTRY).decode("utf-8")
