"""Properties of tracer scopes over generated runs: a run inside a scope reports one record per
sample and check, equal to the report's results, at any concurrency; scopes nest (the innermost
gets the records, an explicit tracer wins) and closing one restores the one outside; and a
result reported by hand reaches the tracer with every field it was given."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample, Samples, Scorer
from evalmark.strategies import Contains, ExactMatch
from evalmark.telemetry import RecordingTracer, current_tracer, record_evaluation, scope

ANSWERS = st.lists(st.sampled_from(["x", "xy", "y", ""]), min_size=1, max_size=8)
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)


def _samples(answers: list[str]) -> Samples:
    return Samples(
        tuple(
            Sample(name=f"s{i}", parameters=[i], expected_output="x", tags=("t",) if i % 2 else ())
            for i in range(len(answers))
        )
    )


@settings(max_examples=examples(40), deadline=None)
@given(ANSWERS, st.integers(1, 6))
def test_a_run_in_a_scope_reports_one_record_per_sample_and_check_as_the_report_says(
    answers: list[str], concurrency: int
) -> None:
    tracer = RecordingTracer()
    with scope(tracer):
        report = Scorer(concurrency=concurrency).evaluate(
            _samples(answers), lambda i: answers[i], ExactMatch(), Contains("x")
        )
    records = tracer.records
    assert len(records) == 2 * len(answers)
    expected = Counter(
        (row.name, check, result.passed, result.score)
        for row in report.rows()
        for check, result in row.results.items()
    )
    assert Counter((r.sample, r.strategy, r.passed, r.score) for r in records) == expected
    assert {r.sample: r.tags for r in records} == {
        f"s{i}": ("t",) if i % 2 else () for i in range(len(answers))
    }


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=5), st.booleans())
def test_scopes_nest_and_the_innermost_or_an_explicit_tracer_gets_the_record(
    nesting: list[bool], explicit: bool
) -> None:
    tracers = [RecordingTracer() for _ in nesting]
    given_tracer = RecordingTracer()
    result = EvaluationResult(score=1.0, passed=True)

    def enter(depth: int) -> None:
        if depth == len(tracers):
            record_evaluation(result, strategy="c", tracer=given_tracer if explicit else None)
            return
        before = current_tracer()
        with scope(tracers[depth]):
            assert current_tracer() is tracers[depth]
            enter(depth + 1)
        assert current_tracer() is before

    assert current_tracer() is None
    enter(0)
    counts = [len(t) for t in tracers]
    if explicit:
        assert counts == [0] * len(tracers) and len(given_tracer) == 1
    else:
        assert counts == [0] * (len(tracers) - 1) + [1]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.floats(0, 1),
    st.booleans(),
    TEXT,
    TEXT,
    st.none() | TEXT,
    st.none() | TEXT,
    st.lists(TEXT, max_size=3),
    st.none() | st.floats(0, 1e3),
)
def test_a_result_reported_by_hand_reaches_the_tracer_with_every_field(
    score: float,
    passed: bool,
    explanation: str,
    strategy: str,
    sample: str | None,
    suite: str | None,
    tags: list[str],
    duration: float | None,
) -> None:
    tracer = RecordingTracer()
    result = EvaluationResult(score=score, passed=passed, explanation=explanation)
    record_evaluation(
        result,
        strategy=strategy,
        sample=sample,
        suite=suite,
        tags=tags,
        duration=duration,
        tracer=tracer,
    )
    (record,) = tracer.records
    assert (record.score, record.passed, record.explanation) == (score, passed, explanation)
    assert (record.strategy, record.sample, record.suite) == (strategy, sample, suite)
    assert (record.tags, record.duration, record.error) == (tuple(tags), duration, None)
    record_evaluation(result, strategy=strategy)  # no scope, no tracer: nothing happens
    assert len(tracer) == 1
