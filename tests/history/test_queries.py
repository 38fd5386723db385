"""History queries: trends, run-to-run changes and flaky cases, with the Wilson interval."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from history_builders import make_run

from evalmark.errors import HistoryError
from evalmark.history import open_history
from evalmark.history._queries import (
    diff_runs,
    flake_counts,
    flaky_cases,
    list_runs,
    run_summary,
    trend,
    wilson_interval,
)


def test_list_and_summary(db: Path) -> None:
    with open_history(db) as store:
        store.append(
            make_run(
                [("a", "facts", True, 1.0), ("a", "f1", False, 0.2), ("b", "facts", True, 1.0)]
            )
        )
        store.append(make_run([("a", "facts", True, 1.0)], suite="other"))
        runs = list_runs(store)
        assert [r.id for r in runs] == [2, 1]
        first = run_summary(store, 1)
        assert (first.cases, first.cases_passed, first.evaluations) == (2, 1, 3)
        assert first.pass_rate == 0.5
        assert first.mean_score == pytest.approx((1.0 + 0.2 + 1.0) / 3)
        assert [r.id for r in list_runs(store, suite="other")] == [2]
        with pytest.raises(HistoryError, match="no run 9 in the history \\(runs 1 to 2\\)"):
            run_summary(store, 9)


def test_trend_by_metric_and_tag(db: Path) -> None:
    with open_history(db) as store:
        for score in (0.9, 0.8, 0.7):
            store.append(make_run([("a", "f1", score >= 0.8, score), ("a", "facts", True, 1.0)]))
        store.append(make_run([("a", "f1", True, 0.5)], tags=("refunds",)))
        points = trend(store, metric="f1", tag="billing")
        assert [p.run_id for p in points] == [1, 2, 3]
        assert [p.mean_score for p in points] == pytest.approx([0.9, 0.8, 0.7])
        assert [p.pass_rate for p in points] == [1.0, 1.0, 0.0]
        assert [p.run_id for p in trend(store, tag="refunds")] == [4]
        assert trend(store)[0].mean_score == pytest.approx(0.95)


def test_diff_names_regressions_fixes_and_new_checks(db: Path) -> None:
    with open_history(db) as store:
        store.append(
            make_run(
                [("a", "facts", True, 1.0), ("b", "facts", False, 0.0), ("c", "facts", True, 1.0)]
            )
        )
        store.append(
            make_run(
                [("a", "facts", False, 0.5), ("b", "facts", True, 1.0), ("d", "facts", True, 1.0)]
            )
        )
        changes = {(c.case, c.kind) for c in diff_runs(store, 1, 2)}
        assert changes == {("a", "regression"), ("b", "fix"), ("d", "new"), ("c", "removed")}
        assert diff_runs(store, 1, 1) == []


def test_flaky_needs_the_same_inputs(db: Path) -> None:
    with open_history(db) as store:
        for passed in (True, False, True, True):
            store.append(
                make_run([("a", "judge", passed, float(passed)), ("b", "judge", True, 1.0)])
            )
        # a changed sample file: a different verdict there is not flakiness
        store.append(make_run([("b", "judge", False, 0.0)], inputs="b"))
        found = flaky_cases(store)
        assert [(f.case, f.runs, f.passes) for f in found] == [("a", 4, 3)]
        assert found[0].flake_rate == 0.25
        assert found[0].interval == wilson_interval(1, 4)
        counts = flake_counts(store)
        # a: truly passing, 1 false fail of 4; b: 4 passes of 4 (same inputs), 0 errors
        assert counts == {
            "false_pass": 0,
            "false_pass_trials": 0,
            "false_fail": 1,
            "false_fail_trials": 8,
        }


def test_wilson_interval_against_the_closed_form() -> None:
    low, high = wilson_interval(1, 4)
    z = 1.959963984540054
    n, p = 4, 0.25
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    statsmodels = pytest.importorskip("statsmodels.stats.proportion")
    for k, n in [(0, 7), (3, 10), (17, 40), (99, 100)]:
        assert wilson_interval(k, n) == pytest.approx(
            statsmodels.proportion_confint(k, n, method="wilson")
        )
