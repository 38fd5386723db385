"""Properties of the history's values and statistics: the Wilson interval holds the observed rate,
stays in [0, 1], mirrors under swapping passes and fails and narrows with more runs; flaky
detection is symmetric in the verdicts and blind to the order runs were appended; any text is
stored and read back (lone surrogates escaped); a score that is not a finite number is refused
naming the case and check; and a check's history name is a fixed point."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import HistoryError
from evalmark.history import CaseResult, RunRecord, open_history
from evalmark.history._flaky import FlakyCase, flaky_cases, wilson_interval
from evalmark.history._naming import check_name
from evalmark.history._record import AnswerIdentity

TRIALS = st.integers(1, 10_000)


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    trials = draw(TRIALS)
    return draw(st.integers(0, trials)), trials


@settings(max_examples=examples(100), deadline=None)
@given(counts())
def test_the_wilson_interval_holds_the_observed_rate_inside_zero_and_one(
    drawn: tuple[int, int],
) -> None:
    successes, trials = drawn
    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


@settings(max_examples=examples(100), deadline=None)
@given(counts())
def test_the_wilson_interval_mirrors_when_passes_and_fails_swap(drawn: tuple[int, int]) -> None:
    successes, trials = drawn
    low, high = wilson_interval(successes, trials)
    mirror_low, mirror_high = wilson_interval(trials - successes, trials)
    assert mirror_low == pytest.approx(1 - high, abs=1e-12)
    assert mirror_high == pytest.approx(1 - low, abs=1e-12)


@settings(max_examples=examples(100), deadline=None)
@given(counts(), st.integers(2, 20))
def test_the_wilson_interval_narrows_with_more_runs_at_the_same_rate(
    drawn: tuple[int, int], factor: int
) -> None:
    successes, trials = drawn
    low, high = wilson_interval(successes, trials)
    more_low, more_high = wilson_interval(successes * factor, trials * factor)
    assert more_high - more_low <= high - low + 1e-12


@settings(max_examples=examples(100), deadline=None)
@given(counts())
def test_a_flaky_cases_rate_is_the_same_when_its_verdicts_are_swapped(
    drawn: tuple[int, int],
) -> None:
    passes, runs = drawn
    case = FlakyCase("s", "c", "k", runs, passes)
    swapped = FlakyCase("s", "c", "k", runs, runs - passes)
    assert case.minority == swapped.minority <= runs / 2
    assert case.flake_rate == swapped.flake_rate <= 0.5
    assert case.interval == swapped.interval


def run_of(verdicts: dict[tuple[str, str], bool], suite: str = "s") -> RunRecord:
    return RunRecord(
        suite=suite,
        source="suite.yaml",
        started_at="2026-01-01T00:00:00Z",
        duration_s=1.0,
        evalmark_version="0",
        results=tuple(
            CaseResult(case=c, strategy=k, passed=ok, score=float(ok), identity=IDENTITY)
            for (c, k), ok in verdicts.items()
        ),
        files={"samples:s.yaml": "a" * 64},
    )


IDENTITY = AnswerIdentity("m", None, "b")
PAIRS = st.lists(
    st.tuples(st.sampled_from(["refund", "login", "名"]), st.sampled_from(["exact", "f1"])),
    min_size=1,
    max_size=4,
    unique=True,
)


def flaky_of(runs: list[RunRecord]) -> list[tuple[Any, ...]]:
    with tempfile.TemporaryDirectory() as folder:
        store = open_history(Path(folder) / "h.sqlite")
        try:
            for run in runs:
                store.append(run)
            found = flaky_cases(store)
        finally:
            store.close()
    return sorted((f.case, f.strategy, f.runs, f.minority) for f in found)


@settings(max_examples=examples(30), deadline=None)
@given(
    PAIRS.flatmap(
        lambda p: st.tuples(
            st.just(p),
            st.lists(
                st.lists(st.booleans(), min_size=len(p), max_size=len(p)), min_size=1, max_size=5
            ),
        )
    ),
    st.randoms(use_true_random=False),
)
def test_flaky_detection_is_symmetric_in_verdicts_and_blind_to_append_order(
    drawn: tuple[list[tuple[str, str]], list[list[bool]]], random: Any
) -> None:
    pairs, rows = drawn
    runs = [run_of(dict(zip(pairs, row, strict=True))) for row in rows]
    flipped = [run_of({p: not ok for p, ok in zip(pairs, row, strict=True)}) for row in rows]
    shuffled = list(runs)
    random.shuffle(shuffled)
    found = flaky_of(runs)
    assert flaky_of(flipped) == found == flaky_of(shuffled)
    expected = []
    for i, (case, check) in enumerate(pairs):
        passes = sum(row[i] for row in rows)
        if 0 < passes < len(rows):
            expected.append((case, check, len(rows), min(passes, len(rows) - passes)))
    assert found == sorted(expected)


TEXT = st.text(max_size=8)  # lone surrogates included


@settings(max_examples=examples(40), deadline=None)
@given(TEXT.filter(str.strip), TEXT, TEXT, st.lists(TEXT, max_size=2), st.none() | TEXT)
def test_any_text_is_stored_and_read_back_with_lone_surrogates_escaped(
    suite: str, case: str, check: str, tags: list[str], error: str | None
) -> None:
    result = CaseResult(
        case=case, strategy=check, passed=True, score=0.5, error=error, tags=tuple(tags)
    )
    run = RunRecord(
        suite=suite,
        source="s.yaml",
        started_at="2026-01-01T00:00:00Z",
        duration_s=0.0,
        evalmark_version="0",
        results=(result,),
    )

    with tempfile.TemporaryDirectory() as folder:
        store = open_history(Path(folder) / "h.sqlite")
        try:
            run_id = store.append(run)
            (back,) = store.results_of(run_id)
        finally:
            store.close()
    clean = all(not 0xD800 <= ord(ch) <= 0xDFFF for ch in case + check + "".join(tags))
    if clean and (error is None or all(not 0xD800 <= ord(ch) <= 0xDFFF for ch in error)):
        assert back == result
    assert back.passed and back.score == 0.5
    back.case.encode("utf-8")  # always encodable: stored and shown as text
    back.strategy.encode("utf-8")


@settings(max_examples=examples(40), deadline=None)
@given(
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 10**400, True, "0.5", None]),
    st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=6),
)
def test_a_score_that_is_not_a_finite_number_is_refused_naming_the_case(
    score: Any, case: str
) -> None:
    run = RunRecord(
        suite="s",
        source="s.yaml",
        started_at="2026-01-01T00:00:00Z",
        duration_s=0.0,
        evalmark_version="0",
        results=(CaseResult(case=case, strategy="exact", passed=False, score=score),),
    )
    with tempfile.TemporaryDirectory() as folder:
        store = open_history(Path(folder) / "h.sqlite")
        try:
            with pytest.raises(HistoryError) as caught:
                store.append(run)
            assert store.query("SELECT COUNT(*) AS n FROM runs", ())[0]["n"] == 0
        finally:
            store.close()
    assert repr(case) in str(caught.value) and "'exact'" in str(caught.value)


@settings(max_examples=examples(100), deadline=None)
@given(
    st.one_of(
        st.text(max_size=12),
        st.from_regex(
            r"[A-Z][a-z]{1,6}([A-Z][a-z0-9]{0,5}){0,2}(\([a-z-]{1,10}\))?", fullmatch=True
        ),
        st.sampled_from(["TokenF1", "Judge(relevancy)", "ExactMatch", "Judge(x)", "BLEU"]),
    )
)
def test_a_checks_history_name_is_a_fixed_point(name: str) -> None:
    once = check_name(name)
    assert check_name(once) == once


@settings(max_examples=examples(30), deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["refund", "login", "名"]), st.booleans(), st.floats(0, 1)),
            min_size=1,
            max_size=3,
            unique_by=lambda t: t[0],
        ),
        min_size=1,
        max_size=4,
    )
)
def test_runs_appended_are_read_back_after_the_database_is_reopened(
    runs: list[list[tuple[str, bool, float]]],
) -> None:
    records = [
        RunRecord(
            suite="s",
            source="s.yaml",
            started_at="2026-01-01T00:00:00Z",
            duration_s=1.0,
            evalmark_version="0",
            results=tuple(
                CaseResult(case=c, strategy="exact", passed=ok, score=score, identity=IDENTITY)
                for c, ok, score in rows
            ),
        )
        for rows in runs
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.sqlite"
        store = open_history(path)
        try:
            ids = [store.append(r) for r in records]
        finally:
            store.close()
        again = open_history(path)
        try:
            back = [again.results_of(i) for i in ids]
        finally:
            again.close()
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert back == [list(r.results) for r in records]
