"""Evaluators called directly inside a tracer scope reach the tracer, once each; the engine's
own calls are recorded once per row, never twice (issue 29, item 11: evals4j's and OpenEvals'
examples call an evaluator inside a test, not through a runner)."""

from __future__ import annotations

import asyncio

import evalmark as em
from evalmark.models import ScriptedChat
from evalmark.strategies import Composite, Contains, ExactMatch, LLMJudge, TokenF1
from evalmark.telemetry import RecordingTracer, scope

SAMPLE = em.Sample(
    name="capital",
    parameters=("What is the capital of France?",),
    expected_output="Paris",
)


def test_a_strategy_called_directly_records_its_verdict() -> None:
    tracer = RecordingTracer()
    with scope(tracer):
        result = ExactMatch().evaluate(SAMPLE, "Paris")
        TokenF1(0.9).evaluate(SAMPLE, "It is Lyon")
    assert result.passed
    assert [(r.strategy, r.sample, r.verdict) for r in tracer.records] == [
        ("ExactMatch", "capital", "pass"),
        ("TokenF1", "capital", "fail"),
    ]
    ExactMatch().evaluate(SAMPLE, "Paris")
    assert len(tracer.records) == 2, "outside the scope nothing is recorded"


def test_a_judge_called_directly_records_once_with_its_reasoning() -> None:
    chat = ScriptedChat(["It matches.\nVERDICT: yes", "Wrong city.\nVERDICT: no"])
    judge = LLMJudge("correctness", chat, parse="verdict")
    tracer = RecordingTracer()
    with scope(tracer):
        judge.evaluate(SAMPLE, "Paris.")
        outcome = judge.grade(**judge.values(SAMPLE, "Lyon."))
    assert not outcome.passed
    assert [(r.strategy, r.verdict) for r in tracer.records] == [
        ("LLMJudge", "pass"),
        ("LLMJudge", "fail"),
    ] or [(r.verdict) for r in tracer.records] == ["pass", "fail"]
    assert "Wrong city" in tracer.records[1].explanation


def test_an_async_direct_call_records_once() -> None:
    chat = ScriptedChat(["It matches.\nVERDICT: yes"])
    judge = LLMJudge("correctness", chat, parse="verdict")
    tracer = RecordingTracer()
    with scope(tracer):
        asyncio.run(judge.aevaluate(SAMPLE, "Paris."))
    assert [r.verdict for r in tracer.records] == ["pass"]


def test_a_composite_is_one_verdict_not_one_per_member() -> None:
    tracer = RecordingTracer()
    with scope(tracer):
        Composite(ExactMatch(), Contains()).evaluate(SAMPLE, "Paris")
    assert [r.strategy for r in tracer.records] == ["Composite(ExactMatch, Contains)"]


def test_the_engine_records_each_row_once() -> None:
    samples = em.Samples([SAMPLE, em.Sample(name="b", parameters=("y",), expected_output="z")])
    chat = ScriptedChat(["VERDICT: yes", "VERDICT: no"])
    tracer = RecordingTracer()
    with scope(tracer):
        em.Scorer().evaluate(
            samples,
            lambda q: "Paris",
            ExactMatch(),
            Composite(ExactMatch(), Contains(), name="both"),
            LLMJudge("correctness", chat, parse="verdict", name="judge"),
        )
    assert sorted((r.strategy, r.sample) for r in tracer.records) == [
        ("ExactMatch", "b"),
        ("ExactMatch", "capital"),
        ("both", "b"),
        ("both", "capital"),
        ("judge", "b"),
        ("judge", "capital"),
    ]
