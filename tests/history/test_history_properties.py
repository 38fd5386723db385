"""A state machine appends generated runs to a history database and asks it for runs, results,
trends, diffs and flaky cases, comparing each answer with one computed in memory from the runs
appended; reading never changes the database's bytes."""

from __future__ import annotations

import math
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from budget import examples
from evalmark.cli import main
from evalmark.history import CaseResult, RunRecord, open_history
from evalmark.history._queries import (
    case_verdicts,
    diff_runs,
    flaky_cases,
    list_runs,
    trend,
)
from evalmark.history._record import AnswerIdentity

SUITES = st.sampled_from(["support", "billing"])
CASES = ["refund", "login", "invoice"]
CHECKS = ["exact", "f1"]
IDENTITIES = st.sampled_from(
    [AnswerIdentity(), AnswerIdentity("m1", None, "healthy"), AnswerIdentity("m2", "ab12", None)]
)


@st.composite
def runs(draw: st.DrawFn) -> RunRecord:
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(CASES), st.sampled_from(CHECKS)),
            min_size=1,
            max_size=6,
            unique=True,
        )
    )
    identity = draw(IDENTITIES)
    results = tuple(
        CaseResult(
            case=case,
            strategy=check,
            passed=draw(st.booleans()),
            score=draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])),
            error=draw(st.sampled_from([None, None, None, "RuntimeError: down"])),
            tags=("vip",) if case == "refund" else (),
            identity=identity,
        )
        for case, check in pairs
    )
    return RunRecord(
        suite=draw(SUITES),
        source="suite.yaml",
        started_at="2026-01-01T00:00:00Z",
        duration_s=1.5,
        evalmark_version="0",
        results=results,
        files={"samples:s.yaml": draw(st.sampled_from(["a" * 64, "b" * 64]))},
    )


def case_ok(results: list[CaseResult]) -> dict[str, bool]:
    """Each case's verdict: every check passed and none errored, in first-seen order."""
    verdict: dict[str, bool] = {}
    for r in results:
        verdict[r.case] = verdict.get(r.case, True) and r.passed and r.error is None
    return verdict


class HistoryMachine(RuleBasedStateMachine):
    """A history database and the runs appended to it, in memory."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.path = Path(self.folder.name) / "history.sqlite"
        self.store = open_history(self.path)
        self.runs: dict[int, RunRecord] = {}

    def teardown(self) -> None:
        self.store.close()
        self.folder.cleanup()

    def database_bytes(self) -> tuple[bytes, ...]:
        """The database file and its write-ahead log (the index file changes on reads)."""
        wal = self.path.with_name(self.path.name + "-wal")
        return (self.path.read_bytes(), wal.read_bytes() if wal.exists() else b"")

    @rule(run=runs())
    def append(self, run: RunRecord) -> None:
        run_id = self.store.append(run)
        assert run_id not in self.runs and all(run_id > known for known in self.runs)
        self.runs[run_id] = run

    @rule()
    def list_the_runs(self) -> None:
        before = self.database_bytes()
        listed = list_runs(self.store)
        assert [s.id for s in listed] == sorted(self.runs, reverse=True)
        for summary in listed:
            verdicts = case_ok(list(self.runs[summary.id].results))
            assert (summary.cases, summary.cases_passed) == (
                len(verdicts),
                sum(verdicts.values()),
            )
            assert summary.evaluations == len(self.runs[summary.id].results)
            assert summary.inputs_digest == self.runs[summary.id].inputs_digest
        assert self.database_bytes() == before

    @precondition(lambda self: bool(self.runs))
    @rule(data=st.data())
    def read_a_run(self, data: st.DataObject) -> None:
        run_id = data.draw(st.sampled_from(sorted(self.runs)), label="run")
        before = self.database_bytes()
        assert self.store.results_of(run_id) == list(self.runs[run_id].results)
        assert case_verdicts(self.store, run_id) == case_ok(list(self.runs[run_id].results))
        assert self.database_bytes() == before

    @rule(
        suite=st.none() | SUITES,
        metric=st.none() | st.sampled_from(CHECKS),
        tag=st.none() | st.just("vip"),
    )
    def read_the_trend(self, suite: str | None, metric: str | None, tag: str | None) -> None:
        before = self.database_bytes()
        points = trend(self.store, suite=suite, metric=metric, tag=tag)
        expected: list[tuple[int, int, int, int, float]] = []
        for run_id, run in sorted(self.runs.items()):
            if suite is not None and run.suite != suite:
                continue
            chosen = [
                r
                for r in run.results
                if (metric is None or r.strategy == metric) and (tag is None or tag in r.tags)
            ]
            if not chosen:
                continue
            verdicts = case_ok(chosen)
            mean = math.fsum(r.score for r in chosen) / len(chosen)
            expected.append((run_id, len(chosen), len(verdicts), sum(verdicts.values()), mean))
        got = [(p.run_id, p.evaluations, p.cases, p.cases_passed, p.mean_score) for p in points]
        assert [g[:4] for g in got] == [e[:4] for e in expected]
        for g, e in zip(got, expected, strict=True):
            assert g[4] is not None and math.isclose(g[4], e[4], abs_tol=1e-12)
        assert self.database_bytes() == before

    @precondition(lambda self: bool(self.runs))
    @rule(data=st.data())
    def diff_two_runs(self, data: st.DataObject) -> None:
        first = data.draw(st.sampled_from(sorted(self.runs)), label="before")
        second = data.draw(st.sampled_from(sorted(self.runs)), label="after")
        before = self.database_bytes()
        old = {(r.case, r.strategy): r.passed for r in self.runs[first].results}
        new = {(r.case, r.strategy): r.passed for r in self.runs[second].results}
        expected = {
            key: (old.get(key), new.get(key))
            for key in old.keys() | new.keys()
            if old.get(key) != new.get(key)
        }
        changes = diff_runs(self.store, first, second)
        assert {(c.case, c.strategy): (c.before, c.after) for c in changes} == expected
        assert len(changes) == len(expected)
        if first == second:
            assert changes == []
        assert self.database_bytes() == before

    @rule(suite=st.none() | SUITES, min_runs=st.integers(2, 3))
    def find_flaky_cases(self, suite: str | None, min_runs: int) -> None:
        before = self.database_bytes()
        groups: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
        for run in self.runs.values():
            if suite is not None and run.suite != suite:
                continue
            for r in run.results:
                if not r.identity.known:
                    continue
                counts = groups[(run.suite, run.inputs_digest, r.case, r.strategy, r.identity)]
                counts[0] += 1
                counts[1] += int(r.passed)
        merged: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
        for (name, _, case, check, identity), (n, passes) in groups.items():
            if n >= min_runs and 0 < passes < n:
                merged[(name, case, check, identity)][0] += n
                merged[(name, case, check, identity)][1] += passes
        found = flaky_cases(self.store, suite=suite, min_runs=min_runs)
        assert {(f.suite, f.case, f.strategy, f.identity): [f.runs, f.passes] for f in found} == (
            dict(merged)
        )
        rates = [f.flake_rate for f in found]
        assert rates == sorted(rates, reverse=True)
        assert self.database_bytes() == before

    @precondition(lambda self: bool(self.runs))
    @rule()
    def read_through_the_command_line(self) -> None:
        before = self.database_bytes()
        for args in (["ls"], ["trend"], ["flaky"]):
            assert main(["history", "--history", str(self.path), *args]) in (0, 1)
        assert self.database_bytes() == before

    @invariant()
    def holds_every_run_appended(self) -> None:
        assert len(list_runs(self.store)) == len(self.runs)


HistoryMachine.TestCase.settings = settings(
    max_examples=examples(20), stateful_step_count=15, deadline=None
)
TestHistory = HistoryMachine.TestCase
