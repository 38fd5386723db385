"""Scorer and Evaluation: order, concurrency limit, error policies, usage, fluent reuse."""

from __future__ import annotations

import asyncio
import threading
import time
from decimal import Decimal

import pytest

from evalmark import Evaluation, EvaluationResult, Sample, Samples, Scorer, TestCase, TokenUsage
from evalmark.errors import SampleError
from evalmark.report import render_report
from evalmark.strategies import Contains, ExactMatch, TokenF1

SAMPLES = Samples(
    tuple(
        Sample(
            name=f"s{i}",
            parameters=[i],
            expected_output=f"answer {i}",
            tags=["even"] if i % 2 == 0 else ["odd"],
        )
        for i in range(12)
    )
)


class Gauge:
    """Counts calls running at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


@pytest.mark.parametrize("concurrency", [1, 3, 8])
def test_async_results_come_back_in_sample_order_within_the_limit(concurrency: int) -> None:
    gauge = Gauge()

    async def answer(i: int) -> str:
        with gauge:
            await asyncio.sleep(0.002 * ((i * 7) % 5))  # later samples often finish first
        return f"answer {i}"

    report = Scorer(concurrency=concurrency).evaluate(SAMPLES, answer, ExactMatch())
    assert report.sample_names == SAMPLES.names
    assert [report.output(i) for i in range(12)] == [f"answer {i}" for i in range(12)]
    assert report.passed == 12
    assert gauge.peak <= concurrency
    if concurrency > 1:
        assert gauge.peak > 1


def test_sync_functions_run_on_threads_within_the_limit() -> None:
    gauge = Gauge()

    def answer(i: int) -> str:
        with gauge:
            time.sleep(0.02)  # long enough for another thread to enter, even on a busy machine
        return f"answer {i}"

    report = Scorer(concurrency=4).evaluate(SAMPLES, answer, ExactMatch())
    assert report.passed == 12 and 1 < gauge.peak <= 4


def flaky(i: int) -> str:
    if i in (3, 7):
        raise RuntimeError(f"backend down for {i}")
    return f"answer {i}"


def test_errors_fail_by_default_and_are_counted_apart() -> None:
    report = Scorer().evaluate(SAMPLES, flaky, ExactMatch(), TokenF1())
    assert (report.passed, report.failed, report.errors) == (20, 0, 4)
    result = report.result("s3", "ExactMatch")
    assert result.error is not None and result.error.kind == "function"
    assert isinstance(result.error.exception, RuntimeError)
    assert "backend down for 3" in result.explanation
    assert report.output(3) is None


def test_errors_skip_leaves_the_sample_out() -> None:
    report = Scorer(errors="skip").evaluate(SAMPLES, flaky, ExactMatch())
    assert len(report) == 10 and "s3" not in report.sample_names
    assert [s.name for s in report.skipped] == ["s3", "s7"]
    assert "backend down for 3" in report.skipped[0].error
    assert report.pass_rate == 1.0


def test_errors_raise_stops_the_run_and_names_the_sample() -> None:
    with pytest.raises(RuntimeError, match="backend down") as info:
        Scorer(errors="raise").evaluate(SAMPLES, flaky, ExactMatch())
    assert any("sample 's3'" in note or "sample 's7'" in note for note in info.value.__notes__)
    with pytest.raises(RuntimeError):
        Scorer(concurrency=4, errors="raise").evaluate(SAMPLES, flaky, ExactMatch())


def test_a_raising_strategy_is_an_error_result_not_a_crash() -> None:
    def broken(sample: Sample, output: str) -> EvaluationResult:
        raise KeyError("no such field")

    report = Scorer().evaluate(SAMPLES, lambda i: f"answer {i}", broken, ExactMatch())
    assert report.errors == 12 and report.passed == 12
    assert report.result("s0", "broken").error is not None


def test_usage_is_recorded_from_test_cases() -> None:
    def answer(i: int) -> TestCase:
        return TestCase(
            str(i),
            f"answer {i}",
            latency_ms=10.0 * (i + 1),
            token_usage=TokenUsage(5, 5),
            cost="0.01",
        )

    report = Scorer().evaluate(SAMPLES, answer, ExactMatch())
    usage = report.usage(0)
    assert usage is not None and usage.latency_ms == 10.0 and usage.total_tokens == 10
    assert usage.cost == Decimal("0.01")
    means = report.metric_means()
    assert means["latency_ms"] == pytest.approx(65.0) and means["tokens"] == 10.0
    assert report.totals() == {"tokens": 120.0, "cost": "0.12"}


def test_async_strategies_are_awaited() -> None:
    async def slow_check(sample: Sample, output: str) -> bool:
        await asyncio.sleep(0)
        return output.endswith(sample.name[1:])

    report = Scorer(concurrency=3).evaluate(SAMPLES, lambda i: f"answer {i}", slow_check)
    assert report.passed == 12


def test_strategy_names_must_be_distinct() -> None:
    with pytest.raises(ValueError, match=r"TokenF1\(0\.5\) appears more than once.*name="):
        Scorer().evaluate(SAMPLES, str, TokenF1(0.5), TokenF1(0.5))
    with pytest.raises(ValueError, match="Mine appears more than once"):
        Scorer().evaluate(SAMPLES, str, TokenF1(0.5, name="Mine"), TokenF1(0.8, name="Mine"))
    with pytest.raises(ValueError, match="at least one strategy"):
        Scorer().evaluate(SAMPLES, str)


def test_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        Scorer(concurrency=0)
    with pytest.raises(ValueError, match="errors"):
        Scorer(errors="ignore")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"samples\[0\]"):
        Scorer().evaluate([42], str, ExactMatch())  # type: ignore[list-item]
    with pytest.raises(SampleError, match=r"not-a-file\.yaml: no such file"):
        Scorer().evaluate(["not-a-file.yaml"], str, ExactMatch())  # a list of str is paths


def test_precomputed_outputs() -> None:
    report = Scorer().evaluate_outputs(
        SAMPLES, [f"answer {i}" for i in range(12)], ExactMatch(), name="pre"
    )
    assert report.name == "pre" and report.passed == 12
    with pytest.raises(ValueError, match="11 outputs for 12 samples"):
        Scorer().evaluate_outputs(SAMPLES, ["x"] * 11, ExactMatch())


def test_evaluate_works_inside_a_running_event_loop() -> None:
    async def main() -> float:
        inside = Scorer().evaluate(SAMPLES, lambda i: f"answer {i}", ExactMatch())
        awaited = await Scorer().aevaluate(SAMPLES, lambda i: f"answer {i}", ExactMatch())
        assert render_report(inside, "json") == render_report(awaited, "json")
        return inside.pass_rate

    assert asyncio.run(main()) == 1.0


def test_evaluation_is_fluent_immutable_and_reusable() -> None:
    calls: list[int] = []

    def answer(i: int) -> str:
        calls.append(i)
        return f"answer {i}" if i < 6 else "wrong"

    base = Evaluation(SAMPLES).evaluate(answer).using(ExactMatch())
    even = base.tags("even").using(Contains()).concurrency(2).named("even run")
    assert len(base.samples()) == 12 and len(even.samples()) == 6
    first = even.run()
    second = even.run()
    assert render_report(first, "json") == render_report(second, "json")
    assert first.name == "even run" and first.strategies == ("ExactMatch", "Contains")
    assert first.passed == 6 and first.failed == 6
    assert base.run().strategies == ("ExactMatch",)
    assert len(calls) == 6 + 6 + 12
    with pytest.raises(ValueError, match=r"\.evaluate\(function\)"):
        Evaluation(SAMPLES).using(ExactMatch()).run()


def test_same_inputs_give_the_same_report_bytes_whatever_the_concurrency() -> None:
    async def answer(i: int) -> str:
        await asyncio.sleep(0.001 * (12 - i))
        return f"answer {i}" if i % 3 else "nope"

    reports = [
        Scorer(concurrency=c).evaluate(SAMPLES, answer, ExactMatch(), TokenF1()) for c in (1, 5)
    ]
    assert render_report(reports[0], "json") == render_report(reports[1], "json")
    assert render_report(reports[0], "markdown") == render_report(reports[1], "markdown")
