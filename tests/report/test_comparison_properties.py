"""Properties of comparing two reports, for generated reports: a report compared with itself
changes nothing; comparing the other way round swaps regressions with fixes, vanished cases with
new ones, and the before and after of every figure."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.report import Report, compare
from evalmark.results._results import ResultColumn

NAMES = st.sampled_from(["a", "b", "c", "d", "é"])
CHECKS = st.sampled_from(["exact", "f1", "judge"])


@st.composite
def reports(draw: st.DrawFn, name: str = "r") -> Report:
    """A report of some of the cases and checks above, each with a verdict and score."""
    cases = draw(st.lists(NAMES, min_size=1, max_size=5, unique=True))
    checks = draw(st.lists(CHECKS, min_size=1, max_size=3, unique=True))
    columns = {
        check: ResultColumn.from_results(
            [
                EvaluationResult(
                    draw(st.booleans()), draw(st.sampled_from([0.0, 0.5, 1.0])), "", {}
                )
                for _ in cases
            ]
        )
        for check in checks
    }
    tags = [
        tuple(draw(st.lists(st.sampled_from(["x", "y"]), max_size=2, unique=True))) for _ in cases
    ]
    return Report(name=name, sample_names=cases, sample_tags=tags, columns=columns)


def _swap(delta: object) -> tuple[object, object]:
    return (delta.after, delta.before)  # type: ignore[attr-defined]


@settings(max_examples=examples(100))
@given(reports())
def test_a_report_compared_with_itself_changes_nothing(report: Report) -> None:
    same = compare(report, report)
    assert same.regressions == () and same.fixes == ()
    assert same.vanished == () and same.new == ()
    assert same.pass_rate.change == 0.0
    assert all(d.change == 0.0 for d in same.strategies.values())


@settings(max_examples=examples(100))
@given(reports(), reports())
def test_comparing_the_other_way_round_swaps_everything(a: Report, b: Report) -> None:
    forward, backward = compare(b, a), compare(a, b)
    assert {(c.sample, c.strategy) for c in forward.regressions} == {
        (c.sample, c.strategy) for c in backward.fixes
    }
    assert {(c.sample, c.strategy) for c in forward.fixes} == {
        (c.sample, c.strategy) for c in backward.regressions
    }
    assert set(forward.vanished) == set(backward.new)
    assert set(forward.new) == set(backward.vanished)
    assert (forward.pass_rate.before, forward.pass_rate.after) == _swap(backward.pass_rate)
    assert forward.strategies.keys() == backward.strategies.keys()
    for key, delta in forward.strategies.items():
        assert (delta.before, delta.after) == _swap(backward.strategies[key])
    for key, delta in forward.tags.items():
        assert (delta.before, delta.after) == _swap(backward.tags[key])
