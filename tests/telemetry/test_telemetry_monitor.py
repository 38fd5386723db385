"""Production sampling: which calls are scored, off the request path, with a bounded queue, a
drop counter and a clean shutdown."""

from __future__ import annotations

import asyncio
import math
import random
import threading
from typing import Any

import pytest

import evalmark
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies import Contains
from evalmark.strategies._base import FunctionStrategy
from evalmark.telemetry import RecordingTracer, scope
from evalmark.telemetry._sampling import Monitor, monitor

MASK = (1 << 64) - 1


def splitmix64(value: int) -> int:
    """The reference mixer (Steele, Lea and Flood), written out independently."""
    z = (value + 0x9E3779B97F4A7C15) % (1 << 64)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % (1 << 64)
    return z ^ (z >> 31)


def reference_picks(seed: int, rate: float, count: int) -> list[int]:
    """The documented rule: blocks of 4096 calls, each a Bernoulli process drawn by geometric
    gaps from random.Random(splitmix64(splitmix64(seed) ^ block))."""
    picks: list[int] = []
    for block in range((count + 4095) // 4096):
        rng = random.Random(splitmix64(splitmix64(seed % (1 << 64)) ^ block))
        at = block * 4096 - 1
        while True:
            at += 1 + math.floor(math.log(1.0 - rng.random()) / math.log(1.0 - rate))
            if at >= (block + 1) * 4096:
                break
            picks.append(at)
    return [i for i in picks if i < count]


def not_empty(sample: Sample, output: Any) -> bool:
    return bool(output)


def answer(question: str) -> str:
    return question.upper()


def picked(tracer: RecordingTracer) -> list[int]:
    return sorted(int(str(r.sample).removeprefix("call-")) for r in tracer.records)


def test_the_wrapped_function_behaves_as_before() -> None:
    tracer = RecordingTracer()
    with monitor([not_empty], sample_rate=1.0, tracer=tracer) as watch:
        wrapped = watch(answer)
        assert wrapped("hi") == "HI"
        assert wrapped.__name__ == "answer" and wrapped.monitor is watch  # type: ignore[attr-defined]

        @watch
        def fails(question: str) -> str:
            raise KeyError(question)

        with pytest.raises(KeyError):
            fails("boom")
    stats = watch.stats()
    assert (stats.calls, stats.sampled, stats.scored, stats.dropped) == (2, 1, 1, 0)
    (record,) = tracer.records
    assert (record.strategy, record.sample, record.passed) == ("not_empty", "call-0", True)


def test_rate_zero_scores_nothing_and_starts_no_thread() -> None:
    watch = monitor([not_empty], sample_rate=0.0, tracer=RecordingTracer())
    wrapped = watch(answer)
    for _ in range(1000):
        wrapped("q")
    assert watch.stats().calls == 1000 and watch.stats().sampled == 0
    assert watch._worker is None
    assert watch.close()


def test_the_picked_calls_follow_the_seeded_hash() -> None:
    for seed, rate in [(0, 0.01), (7, 0.25), (2**63 + 5, 0.5)]:
        tracer = RecordingTracer()
        options = {"seed": seed, "tracer": tracer, "queue_size": 9000}  # room for every call
        with monitor([not_empty], sample_rate=rate, **options) as watch:
            wrapped = watch(answer)
            for _ in range(9000):  # three blocks
                wrapped("q")
        expected = reference_picks(seed, rate, 9000)
        assert picked(tracer) == expected and watch.stats().dropped == 0
        assert abs(len(expected) - rate * 9000) < 6 * (rate * (1 - rate) * 9000) ** 0.5 + 1
        assert [watch.picks(i) for i in range(9000)] == [i in set(expected) for i in range(9000)]


def test_the_same_seed_picks_the_same_calls_whatever_the_threads() -> None:
    serial, threaded = RecordingTracer(), RecordingTracer()
    with monitor([not_empty], sample_rate=0.1, seed=3, tracer=serial) as watch:
        wrapped = watch(answer)
        for _ in range(2000):
            wrapped("q")
    with monitor([not_empty], sample_rate=0.1, seed=3, tracer=threaded) as watch:
        wrapped = watch(answer)
        threads = [
            threading.Thread(target=lambda: [wrapped("q") for _ in range(500)]) for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert picked(serial) == picked(threaded) != []
    other = RecordingTracer()
    with monitor([not_empty], sample_rate=0.1, seed=4, tracer=other) as watch:
        wrapped = watch(answer)
        for _ in range(2000):
            wrapped("q")
    assert picked(other) != picked(serial)


def test_a_request_key_decides_the_same_way_in_every_monitor() -> None:
    decisions = []
    for _ in range(2):
        tracer = RecordingTracer()
        with monitor(
            [not_empty], sample_rate=0.3, seed=11, tracer=tracer, key=lambda q: q
        ) as watch:
            wrapped = watch(answer)
            for number in range(300):
                wrapped(f"request-{number}")
        decisions.append(sorted(str(r.sample) for r in tracer.records))
    assert decisions[0] == decisions[1]
    assert 50 < len(decisions[0]) < 130


def test_a_full_queue_drops_and_counts_and_close_scores_what_is_queued() -> None:
    started, release = threading.Event(), threading.Event()

    def slow(sample: Sample, output: Any) -> bool:
        started.set()
        release.wait(timeout=60)
        return True

    tracer = RecordingTracer()
    watch = monitor([slow], sample_rate=1.0, queue_size=2, tracer=tracer)
    wrapped = watch(answer)
    wrapped("first")
    assert started.wait(timeout=60)  # the worker holds the first call
    for number in range(9):
        wrapped(f"more-{number}")
    stats = watch.stats()
    assert (stats.sampled, stats.dropped, stats.pending) == (10, 7, 2)
    release.set()
    assert watch.close(timeout=60)
    assert watch._worker is not None and not watch._worker.is_alive()
    stats = watch.stats()
    assert (stats.scored, stats.dropped, stats.pending) == (3, 7, 0)
    assert [r.sample for r in tracer.records] == ["call-0", "call-1", "call-2"]
    wrapped("after close")  # still answers; the call is counted as dropped
    assert watch.stats().dropped == 8 and watch.close()


def test_flush_waits_for_the_worker() -> None:
    tracer = RecordingTracer()
    watch = monitor([not_empty, Contains()], sample_rate=1.0, tracer=tracer)
    wrapped = watch(answer)
    for number in range(20):
        wrapped(f"q{number}")
    assert watch.flush(timeout=60)
    assert watch.stats().scored == 20 and len(tracer) == 40
    watch.close()


def test_failures_are_recorded_never_raised() -> None:
    class Broken:
        name = "broken"

        def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
            raise RuntimeError("strategy bug")

    class BadTracer:
        def record(self, record: Any) -> None:
            raise OSError("collector down")

    tracer = RecordingTracer()
    with monitor([Broken(), FunctionStrategy(lambda s, o: 3)], sample_rate=1, tracer=tracer) as w:
        w(answer)("q")
    first, second = tracer.records
    assert (first.strategy, first.error, first.error_kind) == ("broken", "RuntimeError", "strategy")
    assert second.error == "TypeError"
    with monitor([not_empty], sample_rate=1.0, tracer=BadTracer()) as watch:
        watch(answer)("q")
        watch(answer)("q")
    assert watch.stats().tracer_errors == 2 and watch.stats().scored == 2


def test_the_ambient_tracer_of_the_call_is_used_and_an_explicit_one_wins() -> None:
    ambient, explicit = RecordingTracer(), RecordingTracer()
    implicit = monitor([not_empty], sample_rate=1.0)
    wrapped = implicit(answer)
    with scope(ambient):
        wrapped("inside")
    wrapped("outside")  # no tracer at the call: scored, reported nowhere
    implicit.close()
    assert [r.sample for r in ambient.records] == ["call-0"]
    assert implicit.stats().scored == 2
    with scope(ambient), monitor([not_empty], sample_rate=1.0, tracer=explicit) as watch:
        watch(answer)("q")
    assert len(explicit) == 1 and len(ambient) == 1


def test_async_functions_and_observe() -> None:
    tracer = RecordingTracer()
    with monitor([not_empty], sample_rate=1.0, tracer=tracer, suite="prod", tags=["web"]) as w:

        @w
        async def aanswer(question: str) -> str:
            await asyncio.sleep(0)
            return question * 2

        assert asyncio.run(aanswer("ab")) == "abab"
        assert w.observe("an answer", "a question", user="u1")
    first, second = tracer.records
    assert (first.suite, first.tags) == ("prod", ("web",))
    assert second.sample == "call-1"


def test_a_custom_sample_carries_the_expected_answer() -> None:
    tracer = RecordingTracer()

    def with_expectation(index: int, args: tuple[Any, ...], kwargs: Any) -> Sample:
        return Sample(name=f"req-{index}", parameters=list(args), expected_output="HI")

    from evalmark.strategies import ExactMatch

    with monitor([ExactMatch()], sample_rate=1, tracer=tracer, sample=with_expectation) as w:
        w(answer)("hi")
        w(answer)("ho")
    assert [(r.sample, r.passed) for r in tracer.records] == [("req-0", True), ("req-1", False)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sample_rate": 1.5}, "between 0 and 1"),
        ({"sample_rate": 0.1, "queue_size": 0}, "queue_size"),
        ({"sample_rate": 0.1, "seed": "x"}, "seed must be an int"),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        monitor([not_empty], **options)


def test_no_strategy_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one strategy"):
        monitor([], sample_rate=0.1)


def test_the_monitor_wires_to_prometheus() -> None:
    pytest.importorskip("opentelemetry.exporter.prometheus")
    from prometheus_client import CollectorRegistry

    from evalmark.telemetry import prometheus_text, prometheus_tracer

    registry = CollectorRegistry()
    tracer = prometheus_tracer(registry=registry)
    with evalmark.monitor(
        [not_empty], sample_rate=0.5, seed=1, tracer=tracer, suite="prod"
    ) as watch:
        wrapped = watch(answer)
        for number in range(200):
            wrapped(f"q{number}")
    scored = watch.stats().scored
    count = [
        line
        for line in prometheus_text(registry).splitlines()
        if line.startswith("evalmark_evaluation_score_count{") and 'evalmark_suite="prod"' in line
    ]
    assert len(count) == 1 and count[0].endswith(f" {float(scored)}")
    assert 60 < scored < 140
    tracer.shutdown()


def test_repr_and_the_class() -> None:
    watch = monitor([not_empty], sample_rate=0.25, seed=2)
    assert isinstance(watch, Monitor)
    assert repr(watch) == "Monitor(strategies=['not_empty'], sample_rate=0.25, seed=2)"
    assert watch.close() and watch.closed
