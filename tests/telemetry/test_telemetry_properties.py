"""Properties of telemetry over generated results and label text: a column is recorded as its
rows are, one by one; and the Prometheus text of any strategy, suite and tag names parses back
with every evaluation counted under its own labels."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.results._results import ResultColumn
from evalmark.telemetry import (
    RecordingTracer,
    prometheus_text,
    prometheus_tracer,
    record_column,
    record_evaluation,
)

pytest.importorskip("opentelemetry.exporter.prometheus")
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

# Label values a scraper must read back: quotes, backslashes, line breaks, braces, non-ASCII.
LABEL = st.lists(
    st.sampled_from(['"', "\\", "\n", "}", "{", "=", ",", " ", "é", "名", "a", "b", "\u202e"]),
    min_size=1,
    max_size=6,
).map("".join)
RESULTS = st.builds(
    lambda passed, score, explanation: EvaluationResult(passed, score, explanation),
    st.booleans(),
    st.floats(0.0, 1.0),
    st.text(max_size=5),
)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(RESULTS, min_size=1, max_size=8), LABEL, st.lists(LABEL, max_size=2))
def test_a_column_is_recorded_as_its_rows_are_one_by_one(
    results: list[EvaluationResult], strategy: str, tags: list[str]
) -> None:
    names = [f"s{i}" for i in range(len(results))]
    by_column, by_row = RecordingTracer(), RecordingTracer()
    record_column(
        ResultColumn.from_results(results),
        strategy=strategy,
        samples=names,
        tags=[tuple(tags)] * len(results),
        suite="suite",
        tracer=by_column,
    )
    for name, result in zip(names, results, strict=True):
        record_evaluation(
            result, strategy=strategy, sample=name, suite="suite", tags=tags, tracer=by_row
        )
    assert by_column.records == by_row.records


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(LABEL, st.booleans(), st.floats(0, 1)), min_size=1, max_size=6), LABEL)
def test_the_prometheus_text_of_any_names_parses_back_with_every_evaluation_counted(
    rows: list[tuple[str, bool, float]], suite: str
) -> None:
    registry = CollectorRegistry()
    tracer = prometheus_tracer(registry=registry)
    try:
        for strategy, passed, score in rows:
            record_evaluation(
                EvaluationResult(passed, score), strategy=strategy, suite=suite, tracer=tracer
            )
        text = prometheus_text(registry)
    finally:
        tracer.shutdown()
    counted: Counter[tuple[str, str]] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "evalmark_evaluation_score_count":
                assert sample.labels["evalmark_suite"] == suite
                key = (sample.labels["gen_ai_evaluation_name"], sample.labels["evalmark_passed"])
                counted[key] += int(sample.value)
    wanted = Counter((strategy, "true" if passed else "false") for strategy, passed, _ in rows)
    assert counted == wanted
