"""The engine reports every evaluation into the open tracer scope, from sync and async code."""

from __future__ import annotations

import asyncio

import evalmark as em
from evalmark.strategies import Contains, ExactMatch
from evalmark.telemetry import RecordingTracer, scope


def samples() -> em.Samples:
    return em.Samples(
        [
            em.Sample(name="a", parameters=("x",), expected_output="x", tags=("billing",)),
            em.Sample(name="b", parameters=("y",), expected_output="z"),
        ]
    )


def test_an_evaluation_reports_each_result_into_the_scope() -> None:
    tracer = RecordingTracer()
    with scope(tracer):
        em.Scorer().evaluate(samples(), lambda q: q, ExactMatch(), Contains(), name="demo")
    records = tracer.records
    assert sorted((r.strategy, r.sample, r.passed) for r in records) == [
        ("Contains", "a", True),
        ("Contains", "b", False),
        ("ExactMatch", "a", True),
        ("ExactMatch", "b", False),
    ]
    assert em.Scorer().evaluate(samples(), lambda q: q, ExactMatch()) is not None
    assert len(tracer.records) == 4, "outside the scope nothing is reported"


def test_the_scope_reaches_a_run_started_inside_an_event_loop() -> None:
    tracer = RecordingTracer()

    async def main() -> None:
        with scope(tracer):
            em.Scorer().evaluate(samples(), lambda q: q, ExactMatch())

    asyncio.run(main())
    assert len(tracer.records) == 2
