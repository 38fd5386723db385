"""The cases needed, searched from a given size up: the suite that misses the limits is told
how far to grow; checked against a rebuild of every scaled suite."""

from __future__ import annotations

import pytest

from evalmark.noise import builds_from_counts, gate_risk, tune
from evalmark.noise._tuning import cases_needed, scaled_kind_counts


def _meets(cases: int, judged: int, failing: int, n: int, p: float, limit: float) -> bool:
    _, f = scaled_kind_counts([cases - failing, failing], n)
    healthy, regressed = builds_from_counts(n, judged, failing=f)
    return any(
        h.fails <= limit and 1 - r.fails <= limit
        for h, r in zip(gate_risk(healthy, p), gate_risk(regressed, p), strict=True)
    )


@pytest.mark.parametrize(
    ("at_least", "p"), [(1, 0.01), (8, 0.01), (9, 0.01), (8, 0.05), (20, 0.03)]
)
def test_the_search_starts_where_it_is_told(at_least: int, p: float) -> None:
    healthy, regressed = builds_from_counts(8, 2, failing=2)
    found = cases_needed(healthy, regressed, p, 0.05, 0.05, max_cases=120, at_least=at_least)
    expected = next((n for n in range(at_least, 121) if _meets(8, 2, 2, n, p, 0.05)), None)
    assert found.cases == expected and found.searched_from == at_least


def test_tune_sizes_a_suite_that_meets_the_limits_from_one_and_else_from_its_size() -> None:
    healthy, regressed = builds_from_counts(8, 2, failing=2)
    met = tune(healthy, regressed, [0.01], runs=0).levels[0]
    assert met.recommendation.meets
    assert (met.cases_needed.cases, met.cases_needed.searched_from) == (7, 1)
    missed = tune(healthy, regressed, [0.01], runs=0, thresholds=[1.0]).levels[0]
    assert not missed.recommendation.meets
    assert (missed.cases_needed.cases, missed.cases_needed.searched_from) == (8, 8)


def test_at_least_is_checked() -> None:
    healthy, regressed = builds_from_counts(8, 2, failing=2)
    with pytest.raises(ValueError, match="at_least must be a whole number"):
        cases_needed(healthy, regressed, 0.01, 0.05, 0.05, at_least=0)
