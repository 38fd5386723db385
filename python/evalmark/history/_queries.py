"""Questions asked of the history: which runs, how a metric moves, what changed between two
runs, and (from :mod:`evalmark.history._flaky`) which cases flip their verdict although
nothing they read and nothing that answered them changed."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from evalmark.errors import HistoryError
from evalmark.history._flaky import (
    FlakyCase,
    IdentityChange,
    flake_counts,
    flaky_cases,
    identity_changes,
    unattributed_changes,
    wilson_interval,
)
from evalmark.history._store import HistoryStore
from evalmark.history._values import read_tags

__all__ = [
    "CaseChange",
    "FlakyCase",
    "IdentityChange",
    "RunSummary",
    "TrendPoint",
    "case_verdicts",
    "diff_runs",
    "flake_counts",
    "flaky_cases",
    "identity_changes",
    "list_runs",
    "run_summary",
    "tags_of",
    "trend",
    "unattributed_changes",
    "wilson_interval",
]


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run as ``history ls`` shows it."""

    id: int
    suite: str
    source: str
    build: str | None
    started_at: str
    duration_s: float
    git_commit: str | None
    git_dirty: bool | None
    gate_passed: bool | None
    cases: int
    cases_passed: int
    evaluations: int
    mean_score: float | None
    inputs_digest: str

    @property
    def pass_rate(self) -> float | None:
        """The share of cases that passed every check."""
        return self.cases_passed / self.cases if self.cases else None


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One run's figures for ``history trend``, over the selected results (one check, one tag,
    or all): how many results and cases, how many cases passed, and the mean score."""

    run_id: int
    started_at: str
    suite: str
    evaluations: int
    cases: int
    cases_passed: int
    mean_score: float | None

    @property
    def pass_rate(self) -> float | None:
        """The share of cases whose every selected check passed (an error never passes): the
        definition of ``evalmark.report._cases``, derived from the stored results."""
        return self.cases_passed / self.cases if self.cases else None


@dataclass(frozen=True, slots=True)
class CaseChange:
    """A (case, check) whose verdict differs between two runs."""

    case: str
    strategy: str
    before: bool | None  # None: not in the first run
    after: bool | None  # None: not in the second run
    score_before: float | None
    score_after: float | None

    @property
    def kind(self) -> str:
        """``regression``, ``fix``, ``new`` or ``removed``."""
        if self.before is None:
            return "new"
        if self.after is None:
            return "removed"
        return "regression" if self.before and not self.after else "fix"


def _bool(value: int | None) -> bool | None:
    return None if value is None else bool(value)


# A case passes when every one of its (selected) results passed without an error; old
# databases hold the same rows, so every history reads this way without a migration.
_CASE_PASSED = "MIN(CASE WHEN x.error IS NULL THEN x.passed ELSE 0 END)"

_RUNS = f"""
SELECT r.id, r.suite, r.source, r.build, r.started_at, r.duration_s, r.git_commit, r.git_dirty,
       r.gate_passed, r.inputs_digest,
       (SELECT COUNT(*) FROM results x WHERE x.run_id = r.id) AS evaluations,
       (SELECT AVG(score) FROM results x WHERE x.run_id = r.id) AS mean_score,
       (SELECT COUNT(DISTINCT case_name) FROM results x WHERE x.run_id = r.id) AS cases,
       (SELECT COUNT(*) FROM (SELECT case_name FROM results x WHERE x.run_id = r.id
                              GROUP BY case_name HAVING {_CASE_PASSED} = 1)) AS cases_passed
FROM runs r
"""


def _summary(row: sqlite3.Row) -> RunSummary:
    get = row.__getitem__
    return RunSummary(
        id=get("id"),
        suite=get("suite"),
        source=get("source"),
        build=get("build"),
        started_at=get("started_at"),
        duration_s=get("duration_s"),
        git_commit=get("git_commit"),
        git_dirty=_bool(get("git_dirty")),
        gate_passed=_bool(get("gate_passed")),
        cases=get("cases"),
        cases_passed=get("cases_passed"),
        evaluations=get("evaluations"),
        mean_score=get("mean_score"),
        inputs_digest=get("inputs_digest"),
    )


def list_runs(
    store: HistoryStore, *, suite: str | None = None, limit: int | None = None
) -> list[RunSummary]:
    """Runs, newest first (optionally of one suite, at most ``limit``)."""
    sql = _RUNS + (" WHERE r.suite = ?" if suite else "") + " ORDER BY r.id DESC"
    parameters: tuple[object, ...] = (suite,) if suite else ()
    if limit is not None:
        sql += " LIMIT ?"
        parameters += (limit,)
    return [_summary(row) for row in store.query(sql, parameters)]


def run_summary(store: HistoryStore, run_id: int) -> RunSummary:
    """One run; a :class:`HistoryError` naming the known range when there is no such run."""
    rows = store.query(_RUNS + " WHERE r.id = ?", (run_id,))
    if not rows:
        known = store.query("SELECT MIN(id) AS lo, MAX(id) AS hi FROM runs")[0]
        span = f"runs {known['lo']} to {known['hi']}" if known["lo"] is not None else "no runs"
        raise HistoryError(f"{store.path}: no run {run_id} in the history ({span})")
    return _summary(rows[0])


def trend(
    store: HistoryStore,
    *,
    suite: str | None = None,
    metric: str | None = None,
    tag: str | None = None,
    build: str | None = None,
) -> list[TrendPoint]:
    """Per run, oldest first: the mean score and the pass rate (cases) of the results of check
    ``metric`` (default: every check) on cases tagged ``tag`` (default: every case) answered
    by build ``build`` (default: any build)."""
    where = []
    parameters: list[object] = []
    if suite:
        where.append("r.suite = ?")
        parameters.append(suite)
    if build:
        where.append(
            "COALESCE((SELECT i.build FROM identities i WHERE i.id = x.identity), r.build) = ?"
        )
        parameters.append(build)
    if metric:
        where.append("x.strategy = ?")
        parameters.append(metric)
    if tag:
        where.append("EXISTS (SELECT 1 FROM json_each(x.tags) WHERE json_each.value = ?)")
        parameters.append(tag)
    per_case = (
        "SELECT r.id, r.started_at, r.suite, COUNT(x.seq) AS n, SUM(x.score) AS total,"
        f" {_CASE_PASSED} AS ok FROM runs r JOIN results x ON x.run_id = r.id"
        + (" WHERE " + " AND ".join(where) if where else "")
        + " GROUP BY r.id, x.case_name"
    )
    sql = (
        "SELECT id, started_at, suite, SUM(n) AS evaluations, COUNT(*) AS cases,"
        f" SUM(ok) AS cases_passed, SUM(total) / SUM(n) AS mean_score FROM ({per_case})"
        " GROUP BY id ORDER BY id"
    )
    return [
        TrendPoint(
            run_id=row["id"],
            started_at=row["started_at"],
            suite=row["suite"],
            evaluations=row["evaluations"],
            cases=row["cases"],
            cases_passed=row["cases_passed"],
            mean_score=row["mean_score"],
        )
        for row in store.query(sql, tuple(parameters))
    ]


def case_verdicts(store: HistoryStore, run_id: int) -> dict[str, bool]:
    """Each case of a run and whether it passed (every check passed, none errored), in the
    order the run recorded them."""
    sql = (
        f"SELECT x.case_name, {_CASE_PASSED} AS ok, MIN(x.seq) AS first FROM results x"
        " WHERE x.run_id = ? GROUP BY x.case_name ORDER BY first"
    )
    return {row["case_name"]: bool(row["ok"]) for row in store.query(sql, (run_id,))}


def diff_runs(store: HistoryStore, before: int, after: int) -> list[CaseChange]:
    """Every (case, check) whose verdict differs between two runs: regressions, fixes, and
    the checks only one of them has; in the second run's order, then the first's."""
    run_summary(store, before)
    run_summary(store, after)
    old = {(r.case, r.strategy): r for r in store.results_of(before)}
    new = {(r.case, r.strategy): r for r in store.results_of(after)}
    changes: list[CaseChange] = []
    for key, result in new.items():
        previous = old.get(key)
        if previous is None or previous.passed != result.passed:
            changes.append(
                CaseChange(
                    case=key[0],
                    strategy=key[1],
                    before=None if previous is None else previous.passed,
                    after=result.passed,
                    score_before=None if previous is None else previous.score,
                    score_after=result.score,
                )
            )
    for key, previous in old.items():
        if key not in new:
            changes.append(CaseChange(key[0], key[1], previous.passed, None, previous.score, None))
    return changes


def tags_of(store: HistoryStore) -> list[str]:
    """Every tag that appears in the history, sorted."""
    seen: set[str] = set()
    for row in store.query("SELECT DISTINCT tags FROM results"):
        seen.update(read_tags(store.path, row["tags"], "a result"))
    return sorted(seen)
