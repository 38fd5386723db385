"""Flaky cases, told apart from changed answers.

A (case, check) is flaky when its verdict changed across runs that read the same input files
and whose answer came from the same identity (model id, recordings, build): the answer was the
same, so the verdict's change is noise. When the verdict changed together with the identity (a
new model, re-recorded answers, another build), the answer changed: :func:`identity_changes`
lists those. Rows that do not say what produced their answer (written before evalmark
recorded it, or by a run that could not tell) are neither: :func:`unattributed_changes`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from evalmark.history._record import UNKNOWN, AnswerIdentity
from evalmark.history._store import HistoryStore

__all__ = [
    "FlakyCase",
    "IdentityChange",
    "flake_counts",
    "flaky_cases",
    "identity_changes",
    "unattributed_changes",
    "wilson_interval",
]

_KNOWN = "x.identity IS NOT NULL"
_IDENTITY = "i.model_id, i.recordings, i.build"
_FROM = "FROM results x JOIN runs r ON r.id = x.run_id LEFT JOIN identities i ON i.id = x.identity"


@dataclass(frozen=True, slots=True)
class FlakyCase:
    """A (case, check) whose verdict changed across runs with the same inputs and, unless
    ``identity`` is unknown, the same identity."""

    suite: str
    case: str
    strategy: str
    runs: int
    passes: int
    identity: AnswerIdentity = UNKNOWN

    @property
    def minority(self) -> int:
        """Runs that disagree with the majority verdict (ties count the fails)."""
        return min(self.passes, self.runs - self.passes)

    @property
    def flake_rate(self) -> float:
        """The share of runs that disagree with the majority verdict."""
        return self.minority / self.runs

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the flake rate."""
        return wilson_interval(self.minority, self.runs)


@dataclass(frozen=True, slots=True)
class IdentityChange:
    """A (case, check) whose verdict changed with what produced the answer: per identity, in
    the order of its first run, ``(identity, runs, passes)``."""

    suite: str
    case: str
    strategy: str
    verdicts: tuple[tuple[AnswerIdentity, int, int], ...]


def wilson_interval(
    successes: int, trials: int, z: float = 1.959963984540054
) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # at 0 or every success the bound is exact: rounding must not leave p outside the interval
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


def _changes(store: HistoryStore, suite: str | None, min_runs: int, known: bool) -> list[FlakyCase]:
    where = [_KNOWN if known else f"NOT {_KNOWN}"]
    if suite:
        where.append("r.suite = ?")
    sql = (
        f"SELECT r.suite, x.case_name, x.strategy, {_IDENTITY}, COUNT(*) AS runs,"
        f" SUM(x.passed) AS passes {_FROM} WHERE {' AND '.join(where)}"
        " GROUP BY r.suite, r.inputs_digest, x.case_name, x.strategy, x.identity"
        " HAVING runs >= ? AND passes > 0 AND passes < runs"
    )
    parameters: tuple[object, ...] = ((suite,) if suite else ()) + (min_runs,)
    merged: dict[tuple[str, str, str, AnswerIdentity], list[int]] = defaultdict(lambda: [0, 0])
    for row in store.query(sql, parameters):
        identity = AnswerIdentity(row["model_id"], row["recordings"], row["build"])
        counts = merged[(row["suite"], row["case_name"], row["strategy"], identity)]
        counts[0] += row["runs"]
        counts[1] += row["passes"]
    found = [FlakyCase(s, c, k, n, p, i) for (s, c, k, i), (n, p) in merged.items()]
    return sorted(found, key=lambda f: (-f.flake_rate, -f.runs, f.suite, f.case, f.strategy))


def flaky_cases(
    store: HistoryStore, *, suite: str | None = None, min_runs: int = 2
) -> list[FlakyCase]:
    """(case, check) pairs whose verdict changed across runs of one suite that read the same
    sample and cassette files (equal input digests) and got their answer from the same
    identity, most flaky first."""
    return _changes(store, suite, min_runs, known=True)


def unattributed_changes(
    store: HistoryStore, *, suite: str | None = None, min_runs: int = 2
) -> list[FlakyCase]:
    """(case, check) pairs whose verdict changed across same-input runs that did not record
    what produced the answer: flaky, or a changed answer; the history cannot tell."""
    return _changes(store, suite, min_runs, known=False)


def identity_changes(store: HistoryStore, *, suite: str | None = None) -> list[IdentityChange]:
    """(case, check) pairs whose verdict differs between identities (one passing under one
    model, recordings or build, failing under another), in suite, case and check order. A pair
    whose every identity gave the same mix of verdicts changed by noise, not by its identity,
    and is left to :func:`flaky_cases`."""
    sql = (
        f"SELECT r.suite, x.case_name, x.strategy, {_IDENTITY}, COUNT(*) AS runs,"
        f" SUM(x.passed) AS passes, MIN(r.id) AS first {_FROM} WHERE {_KNOWN}"
        + (" AND r.suite = ?" if suite else "")
        + " GROUP BY r.suite, x.case_name, x.strategy, x.identity"
        " ORDER BY r.suite, x.case_name, x.strategy, first"
    )
    grouped: dict[tuple[str, str, str], list[tuple[AnswerIdentity, int, int]]] = {}
    for row in store.query(sql, (suite,) if suite else ()):
        identity = AnswerIdentity(row["model_id"], row["recordings"], row["build"])
        key = (row["suite"], row["case_name"], row["strategy"])
        grouped.setdefault(key, []).append((identity, row["runs"], row["passes"]))
    found = []
    for (name, case, check), verdicts in grouped.items():
        states = {_state(runs, passes) for _, runs, passes in verdicts}
        if len(verdicts) > 1 and len(states) > 1:
            found.append(IdentityChange(name, case, check, tuple(verdicts)))
    return found


def _state(runs: int, passes: int) -> str:
    return "pass" if passes == runs else "fail" if passes == 0 else "mixed"


def flake_counts(store: HistoryStore, *, suite: str | None = None) -> dict[str, int]:
    """Verdict changes between runs with the same inputs and identity as judge errors, for
    ``evalmark tune``.

    The majority verdict of each (case, check) over such runs stands for the truth: in a truly
    passing one every fail is a false fail, in a truly failing one every pass is a false pass.
    Only groups of two runs or more count; rows of unknown identity do not count.
    """
    sql = (
        "SELECT SUM(x.passed) AS passes, COUNT(*) AS runs"
        f" FROM results x JOIN runs r ON r.id = x.run_id WHERE {_KNOWN}"
        + (" AND r.suite = ?" if suite else "")
        + " GROUP BY r.suite, r.inputs_digest, x.case_name, x.strategy, x.identity"
        " HAVING runs >= 2"
    )
    counts = {"false_pass": 0, "false_pass_trials": 0, "false_fail": 0, "false_fail_trials": 0}
    for row in store.query(sql, (suite,) if suite else ()):
        passes, runs = row["passes"], row["runs"]
        if passes * 2 >= runs:
            counts["false_fail"] += runs - passes
            counts["false_fail_trials"] += runs
        else:
            counts["false_pass"] += passes
            counts["false_pass_trials"] += runs
    return counts
