"""The checks that score a whole column as plain CPU work run side by side on the run's threads
(evalmark.engine._columns), and the report is the one they give in turn."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, Sample, Scorer
from evalmark.report import render_report
from evalmark.results._results import ResultColumn
from evalmark.strategies import Contains, ContainsFacts, ExactMatch, RougeL, TokenF1

WORDS = st.sampled_from(["Yes", "no", "Paris", "42", "the answer", "café", "naïve!", "A-B", " "])
TEXT = st.lists(WORDS, max_size=6).map(" ".join)


class Meeting:
    """A column check that passes only when ``parties`` checks are inside evaluate_batch at
    once (it waits for them, at most ``timeout`` seconds), noting the threads it ran on."""

    _threaded_batch = True

    def __init__(self, name: str, barrier: threading.Barrier, threads: set[int]) -> None:
        self.name, self.barrier, self.threads = name, barrier, threads

    def evaluate_batch(self, samples: Sequence[Sample], outputs: Sequence[Any]) -> ResultColumn:
        """Pass every row if the other checks came while this one waited."""
        self.threads.add(threading.get_ident())
        self.barrier.wait()  # BrokenBarrierError when alone: the engine then goes row by row
        return ResultColumn.from_results([EvaluationResult.passing(1.0) for _ in samples])

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """One row: the check could not meet the others."""
        return EvaluationResult.failing("ran alone")


def samples_of(count: int) -> list[Sample]:
    return [Sample(name=f"s{i}", parameters=[i], expected_output="x") for i in range(count)]


def test_column_checks_run_at_the_same_time_on_the_runs_threads() -> None:
    barrier, threads = threading.Barrier(2, timeout=10), set[int]()
    checks = [Meeting("first", barrier, threads), Meeting("second", barrier, threads)]
    report = Scorer(2).evaluate_outputs(samples_of(3), ["x", "y", "z"], *checks)
    assert all(r.passed for name in ("first", "second") for r in report.column(name))
    assert len(threads) == 2
    assert threading.get_ident() not in threads


def test_with_concurrency_one_they_run_in_turn_on_the_calling_thread() -> None:
    barrier, threads = threading.Barrier(2, timeout=0.01), set[int]()
    checks = [Meeting("first", barrier, threads), Meeting("second", barrier, threads)]
    report = Scorer(1).evaluate_outputs(samples_of(2), ["x", "y"], *checks)
    assert [r.explanation for r in report.column("first")] == ["ran alone"] * 2
    assert threads == {threading.get_ident()}


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=12))
def test_the_report_has_the_bytes_of_the_checks_run_in_turn(
    rows: list[tuple[str, str, str]],
) -> None:
    samples = [
        Sample(
            name=f"s{i}",
            parameters=[i],
            expected_output=wanted,
            expected_facts=tuple(fact.split()[:2]) or ("fallback",),
        )
        for i, (wanted, fact, _) in enumerate(rows)
    ]
    outputs = [output for _, _, output in rows]
    checks = (ExactMatch(), Contains(), ContainsFacts(), TokenF1(0.5), RougeL(0.5))
    in_turn = Scorer(1).evaluate_outputs(samples, outputs, *checks, name="r")
    side_by_side = Scorer(4).evaluate_outputs(samples, outputs, *checks, name="r")
    assert render_report(side_by_side, "json") == render_report(in_turn, "json")
