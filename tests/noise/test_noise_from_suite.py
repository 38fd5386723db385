"""The two builds of a suite, from plain verdict rows."""

from __future__ import annotations

import pytest

from evalmark.noise._from_suite import builds_from_rows, pick_builds


def test_pick_builds_prefers_the_usual_names_then_the_order() -> None:
    assert pick_builds(("nightly", "healthy", "regressed")) == ("healthy", "regressed")
    assert pick_builds(("a", "b", "c")) == ("a", "b")
    assert pick_builds(("a", "b", "c"), "c", "a") == ("c", "a")
    with pytest.raises(ValueError, match="no build named 'x'; the suite records: a, b"):
        pick_builds(("a", "b"), "x")
    with pytest.raises(ValueError, match="needs two recorded builds"):
        pick_builds(("only",))
    with pytest.raises(ValueError, match="both 'a'"):
        pick_builds(("a", "b"), "a", "a")


def test_builds_from_rows_make_two_suites_and_the_gate() -> None:
    healthy = [
        ("q1", "facts", True, False),
        ("q1", "relevancy", True, True),
        ("q2", "facts", True, False),
    ]
    regressed = [
        ("q1", "facts", False, False),
        ("q1", "relevancy", True, True),
        ("q2", "facts", True, False),
    ]
    builds = builds_from_rows(healthy, regressed, gate=0.9)
    assert len(builds.healthy) == 2 and builds.regressed.truly_failing_cases == 1
    assert builds.healthy.judged_checks == 1
    assert builds.gate_min_passing == 2  # the one k-of-n rule: 0.9 of 2 cases needs 2
    t = 0.3333333333334
    rows = [(f"c{i}", "x", True, False) for i in range(3)]
    assert builds_from_rows(rows, rows, gate=t).gate_min_passing == 2


def test_builds_of_different_shapes_are_refused() -> None:
    a = [("q1", "facts", True, False), ("q2", "facts", True, False)]
    b = [("q1", "facts", True, False), ("q3", "facts", True, False)]
    with pytest.raises(
        ValueError, match=r"do not have the same cases and checks \(cases in only one: q2, q3\)"
    ):
        builds_from_rows(a, b)
    with pytest.raises(ValueError, match="has no cases"):
        builds_from_rows([], b)
