"""Laws of the history's pure parts and of run diffs, for generated input: check names are
fixed points of their own naming, Wilson intervals hold their proportion and mirror, and the
diff of two runs is the diff the other way round with before and after swapped."""

from __future__ import annotations

import tempfile
from pathlib import Path

from history_builders import make_run
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.history import open_history
from evalmark.history._flaky import wilson_interval
from evalmark.history._naming import check_name
from evalmark.history._queries import diff_runs
from evalmark.strategies._registry import STRATEGY_KINDS

names = (
    st.sampled_from(sorted(STRATEGY_KINDS))
    | st.sampled_from(
        ["TokenF1", "ExactMatch", "Judge(relevancy)", "Judge(x)", "JSONValid", "Rouge()"]
    )
    | st.text(max_size=15)
)


@settings(max_examples=examples(150))
@given(names)
def test_check_names_are_fixed_points(name: str) -> None:
    named = check_name(name)
    assert check_name(named) == named
    if name in STRATEGY_KINDS:
        assert named == name


@settings(max_examples=examples(150))
@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
@example((0, 643))  # the low bound was 4e-19, above the observed 0
def test_a_wilson_interval_holds_its_proportion_and_mirrors(hits_trials: tuple[int, int]) -> None:
    hits, trials = hits_trials
    low, high = wilson_interval(hits, trials)
    assert 0.0 <= low <= hits / trials <= high <= 1.0
    mirror_low, mirror_high = wilson_interval(trials - hits, trials)
    assert abs(low - (1 - mirror_high)) < 1e-12 and abs(high - (1 - mirror_low)) < 1e-12
    wide_low, wide_high = wilson_interval(hits * 4, trials * 4)  # more trials, same proportion
    assert wide_high - wide_low <= high - low + 1e-12


verdicts = st.lists(
    st.tuples(
        st.sampled_from(["refund", "login", "invoice", "é"]),
        st.sampled_from(["exact", "f1"]),
        st.booleans(),
        st.sampled_from([0.0, 0.5, 1.0]),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda v: (v[0], v[1]),
)


@settings(max_examples=examples(40))
@given(verdicts, verdicts)
def test_a_diff_backwards_is_the_diff_with_before_and_after_swapped(
    first: list[tuple[str, str, bool, float]], second: list[tuple[str, str, bool, float]]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_history(Path(folder) / "history.db")
        try:
            a = store.append(make_run(first))
            b = store.append(make_run(second))
            forward = diff_runs(store, a, b)
            backward = diff_runs(store, b, a)
            assert diff_runs(store, a, a) == []
        finally:
            store.close()
    old = {(c, k): (p, s) for c, k, p, s in first}
    new = {(c, k): (p, s) for c, k, p, s in second}
    expected = {
        key
        for key in old.keys() | new.keys()
        if key not in old or key not in new or old[key][0] != new[key][0]
    }
    assert {(c.case, c.strategy) for c in forward} == expected
    swapped = {
        (c.case, c.strategy, c.after, c.before, c.score_after, c.score_before) for c in backward
    }
    assert {
        (c.case, c.strategy, c.before, c.after, c.score_before, c.score_after) for c in forward
    } == swapped
    kinds = {"regression": "fix", "fix": "regression", "new": "removed", "removed": "new"}
    assert sorted(kinds[c.kind] for c in forward) == sorted(c.kind for c in backward)
