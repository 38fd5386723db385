"""Evaluations a test makes directly (``judge.evaluate(sample, output)``, ``judge.grade(...)``,
``strategy.evaluate(...)``) join the suite report: the plugin listens while each test runs and,
when the test evaluated anything, registers one report of those results under the test's id.
Reports of a plain ``Scorer()`` or ``Evaluation`` made inside the test join it too, under the
test's id, unless the test registered them already (the ``scorer`` fixture, the decorators).

The listener module of :mod:`evalmark._tracing._direct` imports nothing of evalmark's engine; the
report is built (and numpy imported) only for a test that evaluated something.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from evalmark._tracing._direct import listening, watching_reports
from evalmark._tracing._tracer import EvaluationRecord
from evalmark.pytest._registry import REGISTRY

__all__ = ["collecting", "report_of"]


@contextmanager
def collecting(test_id: str) -> Iterator[None]:
    """Collect the direct evaluations made inside the block and register them, when there
    are any, as one report named after ``test_id``."""
    seen: list[tuple[EvaluationRecord, Any]] = []
    made: list[Any] = []
    try:
        with (
            listening(lambda record, result: seen.append((record, result))),
            watching_reports(made.append),
        ):
            yield
    finally:  # a failed assertion on a result still reports the result
        if seen:
            REGISTRY.add(report_of(seen, test_id), test_id)
        registered = {id(entry.report) for entry in REGISTRY.entries()}
        for report in made:
            if id(report) not in registered:
                REGISTRY.add(report, test_id)
                registered.add(id(report))


def report_of(seen: list[tuple[EvaluationRecord, Any]], name: str) -> Any:
    """A report of direct evaluations: one case per sample (in first-seen order) with a check
    per strategy when every strategy judged every sample once; else one case per call."""
    from evalmark.report import Report
    from evalmark.results._results import EvaluationResult, ResultColumn

    def result_of(record: EvaluationRecord, result: Any) -> EvaluationResult:
        if isinstance(result, EvaluationResult):
            return result
        if record.passed:  # a judge's outcome (``grade``) carries score, verdict, reasoning
            return EvaluationResult.passing(record.score, record.explanation)
        return EvaluationResult.failing(record.score, record.explanation)

    strategies = list(dict.fromkeys(record.strategy for record, _ in seen))
    samples = list(dict.fromkeys(record.sample or "" for record, _ in seen))
    cells = {(record.sample or "", record.strategy): pair for pair in seen for record in [pair[0]]}
    if "" not in samples and len(cells) == len(seen) == len(strategies) * len(samples):
        tags = {record.sample: record.tags for record, _ in seen}
        columns = {
            strategy: ResultColumn.from_results(
                [result_of(*cells[(sample, strategy)]) for sample in samples]
            )
            for strategy in strategies
        }
        return Report(
            name=name,
            sample_names=samples,
            sample_tags=[tags[sample] for sample in samples],
            columns=columns,
        )
    rows = [
        f"{record.sample or 'call'} [{record.strategy}] #{index + 1}"
        for index, (record, _) in enumerate(seen)
    ]
    return Report(
        name=name,
        sample_names=rows,
        sample_tags=[record.tags for record, _ in seen],
        columns={"direct": ResultColumn.from_results([result_of(*pair) for pair in seen])},
    )
