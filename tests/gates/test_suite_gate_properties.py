"""Properties of a suite run's gate over generated thresholds (the bundled support suite, both
builds, a noisy judge): each figure is the one k-of-n rule over the cases (every case, or those
of a tag), a higher threshold never turns a failing gate into a passing one, and a tag no
case has fails its gate."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.gates._rules import check_cases
from evalmark.models import NoisyJudge, RuleJudge
from evalmark.noise._gates import passes
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

SUPPORT = Path(__file__).resolve().parents[2] / "golden" / "support"
RUNS = st.tuples(st.sampled_from(["healthy", "regressed"]), st.sampled_from([0.0, 0.3]))
RATES = st.floats(0, 1) | st.sampled_from([0.0, 0.5, 0.8, 0.9, 1.0, 1 / 3, 2 / 3])


@cache
def reports(build: str, flip: float) -> tuple[Any, ...]:
    suite = load_suite(SUPPORT)
    run = run_suite(suite, build=build, judge=NoisyJudge(RuleJudge(min_overlap=0.6), flip, 7))
    return tuple(run.reports)


def tags_of(runs: tuple[Any, ...]) -> list[str]:
    return sorted({t for r in runs for row in r.rows() for t in row.tags})


@settings(max_examples=examples(60), deadline=None)
@given(RUNS, RATES, st.data())
def test_every_gate_figure_is_the_k_of_n_rule_over_its_cases(
    run: tuple[str, float], rate: float, data: st.DataObject
) -> None:
    found = reports(*run)
    tags = data.draw(st.dictionaries(st.sampled_from(tags_of(found)), RATES, max_size=2))
    gates = check_cases(found, pass_rate=rate, tags=tags)
    rows = [row for r in found for row in r.rows()]
    assert not any(row.verdict == "error" for row in rows)
    overall, *per_tag = gates
    assert overall.passed == passes(sum(row.verdict == "pass" for row in rows), len(rows), rate)
    for gate, (tag, required) in zip(per_tag, tags.items(), strict=True):
        tagged = [row for row in rows if tag in row.tags]
        assert gate.passed == passes(
            sum(row.verdict == "pass" for row in tagged), len(tagged), required
        )


@settings(max_examples=examples(60), deadline=None)
@given(RUNS, RATES, RATES, st.data())
def test_a_higher_threshold_never_turns_a_failing_gate_into_a_passing_one(
    run: tuple[str, float], a: float, b: float, data: st.DataObject
) -> None:
    found = reports(*run)
    low, high = sorted((a, b))
    tag = data.draw(st.sampled_from(tags_of(found)))
    lenient = check_cases(found, pass_rate=low, tags={tag: low})
    strict = check_cases(found, pass_rate=high, tags={tag: high})
    for easy, hard in zip(lenient, strict, strict=True):
        assert easy.passed or not hard.passed


@settings(max_examples=examples(40), deadline=None)
@given(RUNS, RATES, st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8))
def test_a_tag_gate_over_a_tag_no_case_has_fails_saying_so(
    run: tuple[str, float], rate: float, tag: str
) -> None:
    found = reports(*run)
    if tag in tags_of(found):
        return
    overall, gate = check_cases(found, pass_rate=rate, tags={tag: rate})
    assert not gate.passed and "no case has this tag" in gate.detail
    rows = [row for r in found for row in r.rows()]
    assert overall.passed == passes(sum(row.verdict == "pass" for row in rows), len(rows), rate)
