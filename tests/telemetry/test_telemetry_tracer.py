"""The tracer protocol, the ambient scope and the engine's hooks."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from evalmark._tracing._tracer import tracer_for
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies import TokenF1
from evalmark.telemetry import (
    EvalTracer,
    EvaluationRecord,
    RecordingTracer,
    current_tracer,
    record_column,
    record_evaluation,
    scope,
)

PASS = EvaluationResult.passing(0.9, "close enough")


def test_nothing_is_recorded_without_a_tracer() -> None:
    assert current_tracer() is None
    record_evaluation(PASS, strategy="s")  # no tracer: returns quietly


def test_the_open_scope_receives_and_an_explicit_tracer_wins() -> None:
    ambient, explicit = RecordingTracer(), RecordingTracer()
    assert isinstance(ambient, EvalTracer)
    with scope(ambient):
        assert current_tracer() is ambient and tracer_for() is ambient
        assert tracer_for(explicit) is explicit
        record_evaluation(PASS, strategy="a", sample="s1", suite="support", tags=["x"])
        record_evaluation(PASS, strategy="b", tracer=explicit)
    assert current_tracer() is None
    assert [r.strategy for r in ambient.records] == ["a"]
    assert [r.strategy for r in explicit.records] == ["b"]
    record = ambient.records[0]
    assert record == EvaluationRecord(
        strategy="a",
        score=0.9,
        passed=True,
        explanation="close enough",
        sample="s1",
        suite="support",
        tags=("x",),
    )
    assert record.verdict == "pass"


def test_scopes_nest_and_the_innermost_wins() -> None:
    outer, inner = RecordingTracer(), RecordingTracer()
    with scope(outer):
        with scope(inner):
            record_evaluation(PASS, strategy="inner")
        record_evaluation(PASS, strategy="outer")
    assert [r.strategy for r in inner.records] == ["inner"]
    assert [r.strategy for r in outer.records] == ["outer"]


def test_the_scope_follows_tasks_and_copied_contexts_but_not_bare_threads() -> None:
    tracer = RecordingTracer()

    async def evaluate(name: str) -> None:
        await asyncio.sleep(0)
        record_evaluation(PASS, strategy=name)

    async def main() -> None:
        await asyncio.gather(evaluate("task-1"), evaluate("task-2"))

    with scope(tracer):
        asyncio.run(main())
        context = contextvars.copy_context()
        copied = threading.Thread(
            target=context.run, args=(record_evaluation, PASS), kwargs={"strategy": "copied"}
        )
        bare = threading.Thread(target=record_evaluation, args=(PASS,), kwargs={"strategy": "x"})
        for thread in (copied, bare):
            thread.start()
            thread.join(timeout=60)
    assert sorted(r.strategy for r in tracer.records) == ["copied", "task-1", "task-2"]


def test_concurrent_scopes_do_not_see_each_other() -> None:
    tracers = [RecordingTracer() for _ in range(4)]
    barrier = threading.Barrier(4)

    def run(index: int) -> None:
        with scope(tracers[index]):
            barrier.wait(timeout=60)
            for _ in range(50):
                record_evaluation(PASS, strategy=f"run-{index}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for index, tracer in enumerate(tracers):
        assert {r.strategy for r in tracer.records} == {f"run-{index}"}
        assert len(tracer) == 50


def test_an_error_result_is_recorded_with_its_type_and_kind() -> None:
    tracer = RecordingTracer()
    error = EvaluationResult.from_error("judge", TimeoutError("the judge did not answer"))
    record_evaluation(error, strategy="relevancy", tracer=tracer, duration=1.5)
    record = tracer.records[0]
    assert (record.error, record.error_kind, record.verdict) == ("TimeoutError", "judge", "error")
    assert record.duration == 1.5 and record.score == 0.0 and not record.passed


def test_a_batch_column_is_recorded_row_by_row() -> None:
    samples = [
        Sample(name="a", parameters=["q"], expected_output="the cat sat", tags=("t1",)),
        Sample(name="b", parameters=["q"], expected_output="a dog ran", tags=()),
        Sample(name="c", parameters=["q"], expected_output="blue sky", tags=("t1", "t2")),
    ]
    outputs = ["the cat sat", "a cat sat", "green grass"]
    column = TokenF1(0.5).evaluate_batch(samples, outputs)
    tracer = RecordingTracer()
    record_column(
        column,
        strategy="TokenF1",
        samples=[s.name for s in samples],
        tags=[s.tags for s in samples],
        suite="demo",
        duration=0.003,
        tracer=tracer,
    )
    records = tracer.records
    assert [r.sample for r in records] == ["a", "b", "c"]
    assert [r.passed for r in records] == [bool(p) for p in column.passed]
    assert [r.score for r in records] == [float(s) for s in column.scores]
    assert [r.tags for r in records] == [("t1",), (), ("t1", "t2")]
    assert all(r.duration == pytest.approx(0.001) for r in records)
    assert records[2].explanation == column[2].explanation != ""
    with pytest.raises(ValueError, match="3 results, 2 sample names"):
        record_column(column, strategy="TokenF1", samples=["a", "b"], tracer=tracer)
    with pytest.raises(ValueError, match="3 results but 1 durations"):
        record_column(column, strategy="T", samples=["a", "b", "c"], duration=[1.0], tracer=tracer)


def test_record_column_without_a_tracer_does_not_read_the_column() -> None:
    class Untouchable:
        def __len__(self) -> int:
            raise AssertionError("read without a tracer")

    record_column(Untouchable(), strategy="s", samples=[])  # type: ignore[arg-type]


def test_a_scope_needs_a_tracer() -> None:
    with pytest.raises(TypeError, match="record"), scope(object()):  # type: ignore[arg-type]
        pass
