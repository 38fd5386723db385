"""OpenTelemetry metrics and spans, read back from the SDK's in-memory reader and exporter, and
the Prometheus text exposition."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.prometheus")

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from prometheus_client import CollectorRegistry, start_http_server

from evalmark.results._results import EvaluationResult
from evalmark.telemetry import (
    OpenTelemetryTracer,
    prometheus_text,
    prometheus_tracer,
    record_evaluation,
)
from evalmark.telemetry._otel import DURATION_BUCKETS, DURATION_METRIC, SCORE_BUCKETS, SCORE_METRIC


class Sdk:
    """An OpenTelemetry SDK of the test's own: in-memory metrics and spans."""

    def __init__(self) -> None:
        self.reader = InMemoryMetricReader()
        self.meters = MeterProvider(metric_readers=[self.reader], shutdown_on_exit=False)
        self.exporter = InMemorySpanExporter()
        self.tracers = TracerProvider(shutdown_on_exit=False)
        self.tracers.add_span_processor(SimpleSpanProcessor(self.exporter))

    def tracer(self, **options: Any) -> OpenTelemetryTracer:
        return OpenTelemetryTracer(
            meter_provider=self.meters, tracer_provider=self.tracers, **options
        )

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        assert data is not None
        found = [
            metric
            for resource in data.resource_metrics
            for scoped in resource.scope_metrics
            for metric in scoped.metrics
            if metric.name == name
        ]
        assert len(found) == 1, name
        return list(found[0].data.data_points)

    def unit(self, name: str) -> str:
        data = self.reader.get_metrics_data()
        assert data is not None
        (metric,) = [
            m
            for r in data.resource_metrics
            for s in r.scope_metrics
            for m in s.metrics
            if m.name == name
        ]
        return str(metric.unit)

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    made = Sdk()
    yield made
    made.meters.shutdown()
    made.tracers.shutdown()


def by_attributes(points: list[Any]) -> dict[tuple[tuple[str, Any], ...], Any]:
    return {tuple(sorted(dict(p.attributes).items())): p for p in points}


def test_scores_and_durations_are_histograms_with_the_documented_names(sdk: Sdk) -> None:
    tracer = sdk.tracer()
    record_evaluation(
        EvaluationResult.passing(0.82, "ok"),
        strategy="TokenF1",
        sample="s1",
        suite="support",
        tags=("billing", "critical"),
        duration=0.004,
        tracer=tracer,
    )
    record_evaluation(
        EvaluationResult.failing(0.31, "too far"),
        strategy="TokenF1",
        sample="s2",
        suite="support",
        tags=("billing",),
        duration=0.002,
        tracer=tracer,
    )
    assert (SCORE_METRIC, DURATION_METRIC) == (
        "evalmark.evaluation.score",
        "evalmark.evaluation.duration",
    )
    assert (sdk.unit(SCORE_METRIC), sdk.unit(DURATION_METRIC)) == ("1", "s")
    scores = by_attributes(sdk.points(SCORE_METRIC))
    base = {"gen_ai.evaluation.name": "TokenF1", "evalmark.suite": "support"}

    def key(tag: str, passed: bool) -> tuple[tuple[str, Any], ...]:
        return tuple(sorted({**base, "evalmark.tag": tag, "evalmark.passed": passed}.items()))

    assert set(scores) == {key("billing", True), key("critical", True), key("billing", False)}
    point = scores[key("billing", True)]
    assert (point.count, point.sum) == (1, pytest.approx(0.82))
    assert list(point.explicit_bounds) == list(SCORE_BUCKETS)
    assert point.bucket_counts[SCORE_BUCKETS.index(0.9)] == 1  # 0.8 < 0.82 <= 0.9
    durations = by_attributes(sdk.points(DURATION_METRIC))
    assert durations[key("billing", False)].sum == pytest.approx(0.002)
    assert list(durations[key("billing", False)].explicit_bounds) == list(DURATION_BUCKETS)


def test_joined_tags_count_each_sample_once(sdk: Sdk) -> None:
    tracer = sdk.tracer(tags="joined", spans=False)
    record_evaluation(EvaluationResult.passing(1.0), strategy="s", tags=("b", "a"), tracer=tracer)
    record_evaluation(EvaluationResult.passing(1.0), strategy="s", tracer=tracer)
    points = sdk.points(SCORE_METRIC)
    assert sorted(dict(p.attributes).get("evalmark.tag", "-") for p in points) == ["-", "a,b"]
    assert sum(p.count for p in points) == 2
    assert sdk.spans() == []
    with pytest.raises(ValueError, match="'each' or 'joined'"):
        sdk.tracer(tags="some")  # type: ignore[arg-type]


def test_one_span_per_evaluation_with_gen_ai_attributes(sdk: Sdk) -> None:
    tracer = sdk.tracer()
    record_evaluation(
        EvaluationResult.failing(0.25, "x" * 900),
        strategy="relevancy",
        sample="refund-window",
        suite="support",
        tags=("billing",),
        duration=0.5,
        tracer=tracer,
    )
    record_evaluation(
        EvaluationResult.from_error("judge", TimeoutError("no answer")),
        strategy="groundedness",
        sample="refund-window",
        tracer=tracer,
    )
    first, second = sdk.spans()
    assert first.name == "evaluate relevancy"
    assert dict(first.attributes or {}) == {
        "gen_ai.evaluation.name": "relevancy",
        "gen_ai.evaluation.score.value": 0.25,
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.explanation": "x" * 500,
        "evalmark.passed": False,
        "evalmark.suite": "support",
        "evalmark.sample": "refund-window",
        "evalmark.tags": ("billing",),
    }
    assert first.end_time is not None and first.start_time is not None
    assert first.end_time - first.start_time == 500_000_000
    assert first.status.status_code is trace.StatusCode.UNSET
    assert dict(second.attributes or {})["error.type"] == "TimeoutError"
    assert dict(second.attributes or {})["gen_ai.evaluation.score.label"] == "error"
    assert second.status.status_code is trace.StatusCode.ERROR
    assert "error.type" in dict(sdk.points(SCORE_METRIC)[-1].attributes)


def test_a_captured_context_makes_the_evaluation_a_child_of_the_request(sdk: Sdk) -> None:
    tracer = sdk.tracer(metrics=False)
    requests = sdk.tracers.get_tracer("app")
    with requests.start_as_current_span("handle request") as request:
        captured = tracer.capture()
    record_evaluation(
        PASS := EvaluationResult.passing(1.0), strategy="s", tracer=tracer, context=captured
    )
    record_evaluation(PASS, strategy="orphan", tracer=tracer)
    spans = {span.name: span for span in sdk.spans()}
    child = spans["evaluate s"]
    assert child.parent is not None
    assert child.parent.span_id == request.get_span_context().span_id
    assert child.context is not None
    assert child.context.trace_id == request.get_span_context().trace_id
    assert spans["evaluate orphan"].parent is None


def test_prometheus_text_exposition(sdk: Sdk) -> None:
    registry = CollectorRegistry()
    tracer = prometheus_tracer(registry=registry)
    try:
        for score in (0.05, 0.55, 0.95):
            record_evaluation(
                EvaluationResult(score >= 0.5, score),
                strategy="TokenF1",
                suite="support",
                tags=("billing",),
                duration=0.01,
                tracer=tracer,
            )
        text = prometheus_text(registry)
        lines = text.splitlines()
        assert "# TYPE evalmark_evaluation_score histogram" in lines
        assert "# TYPE evalmark_evaluation_duration_seconds histogram" in lines
        passed = [
            line
            for line in lines
            if line.startswith("evalmark_evaluation_score_count{")
            and 'evalmark_passed="true"' in line
        ]
        assert len(passed) == 1
        assert 'gen_ai_evaluation_name="TokenF1"' in passed[0]
        assert 'evalmark_suite="support"' in passed[0] and 'evalmark_tag="billing"' in passed[0]
        assert passed[0].endswith(" 2.0")
        (bucket,) = [
            line
            for line in lines
            if line.startswith("evalmark_evaluation_score_bucket{")
            and 'evalmark_passed="false"' in line
            and 'le="0.1"' in line
        ]
        assert bucket.endswith(" 1.0")
    finally:
        tracer.shutdown()
        tracer.shutdown()  # twice is harmless
        assert prometheus_text(registry) == ""  # unregistered


def test_prometheus_serves_the_metrics_over_http_on_loopback() -> None:
    registry = CollectorRegistry()
    tracer = prometheus_tracer(registry=registry)
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    try:
        record_evaluation(EvaluationResult.passing(0.7), strategy="ExactMatch", tracer=tracer)
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as response:
            body = response.read().decode()
        assert "evalmark_evaluation_score_count{" in body
        assert 'gen_ai_evaluation_name="ExactMatch"' in body
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        tracer.shutdown()
        tracer.shutdown()  # twice is harmless
        assert prometheus_text(registry) == ""  # unregistered
