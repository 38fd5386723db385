"""A suite's checks and gate applied to recorded test cases (``evalmark run SUITE
--test-cases FILE``): no application is called, the outputs are already in the file.

The file (JSON, JSON Lines or YAML, read by :func:`evalmark.load_test_cases`) holds
finished test cases. Each evaluation of the suite that names samples pairs them with its
samples by name (:func:`evalmark.engine._test_cases.pair_test_cases`): a sample's
expectations fill its test case, a sample without a test case is an error case, and test
cases no sample names are listed in the report's metadata. The suite's judge, checks and gate
apply as in a run with the application.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evalmark.engine._run import run_sync
from evalmark.engine._settings import RunSettings
from evalmark.engine._test_cases import run_test_cases
from evalmark.errors import SuiteError
from evalmark.models._modes import RecordMode
from evalmark.samples._load import load_test_cases
from evalmark.suite._identity import AnswerSource, file_sha256
from evalmark.suite._model import Suite
from evalmark.suite._runner import (
    SuiteRun,
    build_judge,
    build_strategy,
    check_gate,
    selected_samples,
)

__all__ = ["run_suite_on_test_cases"]


def run_suite_on_test_cases(
    suite: Suite,
    path: Path,
    *,
    mode: RecordMode | str | None = None,
    tags: Sequence[str] = (),
    concurrency: int | None = None,
) -> SuiteRun:
    """Apply ``suite``'s checks and gate to the test cases recorded in ``path``; see the
    module's text. SuiteError when the suite has no evaluation with samples to pair them
    with (conversation and trace evaluations are left out)."""
    cases = load_test_cases(path)
    selected = [
        (evaluation, samples)
        for evaluation, samples in selected_samples(suite, tags)
        if evaluation.conversations is None and evaluation.traces is None
    ]
    if not selected:
        raise SuiteError(
            f"{suite.path}: --test-cases needs an evaluation with samples to pair the test "
            "cases with by name; this suite has only conversation or trace evaluations"
        )
    judge = build_judge(suite.judge, mode) if suite.judged else None
    settings = RunSettings(concurrency if concurrency is not None else suite.concurrency)
    source = AnswerSource(None, file_sha256(path), None)
    reports: list[Any] = []
    for evaluation, samples in selected:
        strategies = [build_strategy(spec, judge) for spec in evaluation.strategies]
        reports.append(
            run_sync(
                run_test_cases(
                    cases,
                    strategies,
                    samples=samples,
                    settings=settings,
                    name=evaluation.name,
                    metadata={"suite": suite.name, "test-cases": path.name},
                )
            )
        )
    gates = check_gate(suite.gate, reports)
    gated = tuple(report.with_gates(gates) for report in reports)
    sources = tuple({row.name: source for row in report.rows()} for report in reports)
    return SuiteRun(suite, None, tuple(e for e, _ in selected), gated, gates, sources)
