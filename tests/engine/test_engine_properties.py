"""Properties of the engine and the gates over generated samples and answers.

Any permutation of the samples gives the same report up to order; every concurrency from 1 to 8
gives the same bytes; pass@k and pass^k equal a direct count over the runs; every pass-rate gate
equals the k-of-n oracle for every n up to 50 and is monotone in its threshold.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import combinations
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from engine_cases import CASES, echo, samples_of
from evalmark import EvaluationResult, Sample, Samples, Scorer
from evalmark.gates import pass_rate_gate, require_suite_pass_rate
from evalmark.gates._rules import check_cases, check_repeats
from evalmark.models._context import current_call
from evalmark.noise._gates import min_passing, passes
from evalmark.report import Report, SuiteReport, render_report
from evalmark.results._results import ResultColumn
from evalmark.strategies import Contains, ExactMatch, TokenF1


def by_sample(report: Report) -> dict[str, Any]:
    document = json.loads(render_report(report, "json"))
    return {row["name"]: row for row in document["samples"]}


def figures(report: Report) -> dict[str, Any]:
    """The report's JSON without the per-sample list (sums and rates of every group)."""
    document = json.loads(render_report(report, "json"))
    document.pop("samples")
    return document


CHECKS = (ExactMatch(), TokenF1(0.5), Contains())


@settings(max_examples=examples(60), deadline=None)
@given(CASES, st.randoms())
def test_any_permutation_of_the_samples_gives_the_same_report_up_to_order(
    cases: list[tuple[str, str, list[str]]], random: Any
) -> None:
    items = list(samples_of(cases))
    shuffled = list(items)
    random.shuffle(shuffled)
    first = Scorer(concurrency=1).evaluate(Samples(tuple(items)), echo, *CHECKS)
    second = Scorer(concurrency=1).evaluate(Samples(tuple(shuffled)), echo, *CHECKS)
    assert by_sample(first) == by_sample(second)
    assert figures(first) == figures(second)


@example(scores=[0.1, 0.2, 0.3, 0.7])  # a float sum that depends on its order
@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_the_figures_of_a_report_do_not_depend_on_the_order_of_its_rows(
    scores: list[float],
) -> None:
    def report(order: list[int]) -> Report:
        results = [EvaluationResult(scores[i] >= 0.5, scores[i]) for i in order]
        return Report(
            name="r",
            sample_names=[f"s{i}" for i in order],
            sample_tags=[("t",) for _ in order],
            columns={"check": ResultColumn.from_results(results)},
            outputs=["" for _ in order],
        )

    forward = list(range(len(scores)))
    assert figures(report(forward)) == figures(report(forward[::-1]))


@settings(max_examples=examples(40), deadline=None)
@given(CASES)
def test_every_concurrency_from_one_to_eight_gives_the_same_bytes(
    cases: list[tuple[str, str, list[str]]],
) -> None:
    items = samples_of(cases)

    async def answer(text: str) -> str:
        return text

    for function in (answer, echo):  # on the event loop, and on threads
        texts = {
            render_report(Scorer(concurrency=c).evaluate(items, function, *CHECKS), "json")
            for c in range(1, 9)
        }
        assert len(texts) == 1


def oracle_pass_at_k(outcomes: list[bool], k: int) -> float:
    """The share of k-subsets of the runs with at least one pass (by enumeration)."""
    subsets = list(combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


def oracle_pass_hat_k(outcomes: list[bool], k: int) -> float:
    """The share of k-subsets of the runs in which every run passes (by enumeration)."""
    subsets = list(combinations(outcomes, k))
    return sum(all(s) for s in subsets) / len(subsets)


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_pass_at_k_and_pass_hat_k_equal_a_count_over_the_runs(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 6), label="n")  # one run is no repeat: no figures
    k = data.draw(st.integers(1, n), label="k")
    plan = data.draw(
        st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=1, max_size=5),
        label="passes per run, per sample",
    )
    items = [Sample(name=f"s{i}", parameters=[i], expected_output="yes") for i in range(len(plan))]

    def flaky(i: int) -> str:
        context = current_call()
        assert context is not None and context.repeat is not None
        return "yes" if plan[i][context.repeat] else "no"

    report = Scorer(repeats=n, k=k).evaluate(items, flaky, ExactMatch())
    repeats = report.metadata["repeats"]
    for i, outcomes in enumerate(plan):
        case = repeats["cases"][f"s{i}"]
        assert case["passes"] == sum(outcomes)
        assert math.isclose(case["pass_at_k"], oracle_pass_at_k(outcomes, k), abs_tol=1e-12)
        assert math.isclose(case["pass_hat_k"], oracle_pass_hat_k(outcomes, k), abs_tol=1e-12)
    at_k = [oracle_pass_at_k(o, k) for o in plan]
    assert math.isclose(repeats["pass_at_k"], sum(at_k) / len(plan), abs_tol=1e-12)
    for required in (0.0, 0.5, 1.0):
        (gate,) = check_repeats([report], pass_at_k=required)
        assert gate.passed == (sum(at_k) / len(plan) >= required - 1e-12)


def oracle_passes(passed: int, total: int, threshold: float) -> bool:
    """k of n meets t when the float quotient k / n reaches t (and n > 0)."""
    return total > 0 and passed / total >= threshold


THRESHOLD = st.one_of(
    st.floats(0.0, 1.0),
    st.builds(lambda k, n: k / n, st.integers(0, 50), st.integers(1, 50)),
    st.builds(lambda k, n: math.nextafter(k / n, 2.0), st.integers(0, 49), st.integers(1, 50)),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(0, 50), THRESHOLD)
def test_the_k_of_n_rule_equals_its_oracle_for_every_n_up_to_50(total: int, t: float) -> None:
    t = min(t, 1.0)
    k = min_passing(t, total)
    for passed in range(total + 1):
        assert passes(passed, total, t) == oracle_passes(passed, total, t)
    if total:
        assert k / total >= t and (k == 0 or (k - 1) / total < t)
        assert Fraction(k, total) >= Fraction(t) or k / total >= t


def report_of(verdicts: list[bool], tags: list[list[str]]) -> Report:
    results = [EvaluationResult(v, 1.0 if v else 0.0) for v in verdicts]
    return Report(
        name="r",
        sample_names=[f"s{i}" for i in range(len(verdicts))],
        sample_tags=[tuple(t) for t in tags],
        columns={"check": ResultColumn.from_results(results)},
        outputs=["" for _ in verdicts],
    )


VERDICTS = st.lists(
    st.tuples(st.booleans(), st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True)),
    max_size=50,
)


@settings(max_examples=examples(150), deadline=None)
@given(VERDICTS, THRESHOLD, THRESHOLD)
def test_every_pass_rate_gate_equals_the_oracle_and_is_monotone(
    rows: list[tuple[bool, list[str]]], t1: float, t2: float
) -> None:
    verdicts = [v for v, _ in rows]
    tags = [t for _, t in rows]
    report = report_of(verdicts, tags)
    low, high = sorted((min(t1, 1.0), min(t2, 1.0)))
    passed, total = sum(verdicts), len(verdicts)
    tagged = [v for v, t in rows if "a" in t]
    for t in (low, high):
        want = oracle_passes(passed, total, t)
        assert pass_rate_gate(report, t).passed == want
        (whole,) = check_cases([report], pass_rate=t)
        assert whole.passed == want
        (tag_gate,) = check_cases([report], tags={"a": t})
        assert tag_gate.passed == oracle_passes(sum(tagged), len(tagged), t)
        if tagged:  # (a tag no case has is a KeyError here: a misspelt tag)
            assert pass_rate_gate(report, t, tag="a").passed == tag_gate.passed
        try:
            require_suite_pass_rate(SuiteReport([report]), t)
            assert want
        except AssertionError:
            assert not want
    # a higher threshold never turns a failing gate into a passing one
    assert pass_rate_gate(report, low).passed or not pass_rate_gate(report, high).passed
