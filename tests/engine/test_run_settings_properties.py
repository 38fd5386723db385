"""Properties of the engine's settings, pairing and error policies over generated values: run
settings accept exactly the documented values; test cases get unique names and pair with samples
by name whatever their order; precomputed outputs give the report a function giving them does;
and an application raising for some samples fails, skips or stops exactly those."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples, Scorer, TestCase
from evalmark.engine._settings import RunSettings
from evalmark.engine._test_cases import _named, pair_test_cases
from evalmark.report import render_report
from evalmark.strategies import Contains, ExactMatch

NUMBERS = st.one_of(
    st.integers(-2, 10), st.booleans(), st.floats(0, 5), st.none(), st.text(max_size=2)
)


def whole(value: object, least: int) -> bool:
    return type(value) is int and value >= least


@settings(max_examples=examples(100), deadline=None)
@given(NUMBERS, st.sampled_from(["fail", "skip", "raise", "ignore", ""]), NUMBERS, NUMBERS)
def test_run_settings_accept_exactly_the_documented_values(
    concurrency: Any, errors: Any, repeats: Any, k: Any
) -> None:
    good = (
        whole(concurrency, 1)
        and errors in ("fail", "skip", "raise")
        and whole(repeats, 1)
        and (k is None or (whole(k, 1) and k <= repeats))
    )
    if good:
        made = RunSettings(concurrency, errors, 0, repeats, k)
        assert (made.concurrency, made.repeats, made.k) == (concurrency, repeats, k)
    else:
        with pytest.raises(ValueError):
            RunSettings(concurrency, errors, 0, repeats, k)


NAMES = st.none() | st.sampled_from(["a", "b", "a #2", "case-1", "名"])


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(NAMES, max_size=8))
def test_every_test_case_gets_a_name_of_its_own(names: list[str | None]) -> None:
    cases = [TestCase(f"q{i}", f"a{i}", name=n) for i, n in enumerate(names)]
    named = _named(cases)
    assert len(named) == len(cases)
    assert list(named.values()) == cases
    for (given_name, case), base in zip(
        named.items(), [n or f"case-{i}" for i, n in enumerate(names, 1)], strict=True
    ):
        assert given_name == base or given_name.startswith(f"{base} #")
        assert case.name in (None, base)


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta"])


@st.composite
def pairing(draw: st.DrawFn) -> tuple[list[TestCase], list[Sample]]:
    case_names = draw(st.lists(WORDS, unique=True, max_size=4))
    sample_names = draw(st.lists(WORDS, unique=True, min_size=1, max_size=4))
    cases = [TestCase(f"q {n}", f"answer {n}", name=n) for n in case_names]
    samples = [Sample(name=n, parameters=[f"q {n}"], expected_output=n) for n in sample_names]
    return draw(st.permutations(cases)), samples


@settings(max_examples=examples(60), deadline=None)
@given(pairing())
def test_cases_pair_with_samples_by_name_in_any_order(
    drawn: tuple[list[TestCase], list[Sample]],
) -> None:
    cases, samples = drawn
    paired = pair_test_cases(cases, samples)
    by_name = {c.name: c for c in cases}
    assert paired.samples == tuple(samples)
    for i, sample in enumerate(samples):
        if sample.name in by_name:
            assert i not in paired.failed
            assert paired.outputs[i].actual_output == f"answer {sample.name}"
            assert paired.outputs[i].expected_output == sample.name  # filled from the sample
        else:
            assert sample.name in str(paired.failed[i]) and paired.outputs[i] is None
    assert paired.unmatched == tuple(sorted(set(by_name) - {s.name for s in samples}))
    report = Scorer(concurrency=1).evaluate_test_cases(cases, Contains("answer"), samples=samples)
    again = Scorer(concurrency=3).evaluate_test_cases(
        list(reversed(cases)), Contains("answer"), samples=samples
    )
    assert render_report(report, "json") == render_report(again, "json")


ANSWERS = st.lists(
    st.tuples(st.sampled_from(["x", "y", "xy", ""]), st.booleans()), min_size=1, max_size=8
)


def samples_of(rows: list[tuple[str, bool]]) -> Samples:
    return Samples(
        tuple(Sample(name=f"s{i}", parameters=[i], expected_output="x") for i in range(len(rows)))
    )


@settings(max_examples=examples(40), deadline=None)
@given(ANSWERS, st.integers(1, 5))
def test_precomputed_outputs_give_the_report_a_function_returning_them_gives(
    rows: list[tuple[str, bool]], concurrency: int
) -> None:
    items = samples_of(rows)
    outputs = [answer for answer, _ in rows]
    checks = (ExactMatch(), Contains("x"))
    scorer = Scorer(concurrency=concurrency)
    computed = scorer.evaluate(items, lambda i: outputs[i], *checks, name="r")
    given_outputs = scorer.evaluate_outputs(items, outputs, *checks, name="r")
    assert [(r.name, r.verdict, r.score) for r in computed.rows()] == [
        (r.name, r.verdict, r.score) for r in given_outputs.rows()
    ]


@settings(max_examples=examples(40), deadline=None)
@given(ANSWERS, st.integers(1, 5), st.sampled_from(["fail", "skip", "raise"]))
def test_an_application_error_fails_skips_or_stops_exactly_its_samples(
    rows: list[tuple[str, bool]], concurrency: int, policy: Any
) -> None:
    items = samples_of(rows)
    broken = {f"s{i}" for i, (_, fails) in enumerate(rows) if fails}

    def app(i: int) -> str:
        if rows[i][1]:
            raise RuntimeError(f"down {i}")
        return rows[i][0]

    scorer = Scorer(concurrency=concurrency, errors=policy)
    if policy == "raise":
        if broken:
            with pytest.raises(RuntimeError, match="down"):
                scorer.evaluate(items, app, ExactMatch())
        else:
            assert len(list(scorer.evaluate(items, app, ExactMatch()).rows())) == len(rows)
        return
    report = scorer.evaluate(items, app, ExactMatch())
    verdicts = {r.name: r.verdict for r in report.rows()}
    if policy == "skip":
        assert set(verdicts) == {f"s{i}" for i in range(len(rows))} - broken
        assert {s.name for s in report.skipped} == broken
    else:
        assert set(verdicts) == {f"s{i}" for i in range(len(rows))}
        assert {n for n, v in verdicts.items() if v == "error"} == broken
    for name, verdict in verdicts.items():
        if name not in broken:
            answer = rows[int(name[1:])][0]
            assert verdict == ("pass" if answer == "x" else "fail")
