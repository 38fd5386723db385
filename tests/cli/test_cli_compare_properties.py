"""Properties of ``evalmark compare A B --format json`` over generated pairs of reports: the
paired counts add up to the shared cases, the means are the reports' pass rates, swapping A and
B swaps better and worse and negates the difference, a run compared with itself shows no
difference, the interval holds its estimate, cases in one report only are listed, a build that
only improves never fails ``--fail-if-worse``, and the output is the same for the same files.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from cli_runs import in_folder
from evalmark import EvaluationResult
from evalmark.cli import main
from evalmark.report import Report, write_report
from evalmark.results._results import ResultColumn

NAMES = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=1, max_size=12)


folder = in_folder


def report(names: list[str], verdicts: list[bool]) -> Report:
    results = [EvaluationResult(v, 1.0 if v else 0.0, "") for v in verdicts]
    return Report(
        name="r",
        sample_names=names,
        sample_tags=[() for _ in names],
        columns={"check": ResultColumn.from_results(results)},
    )


def compare(a: Report, b: Report, *options: str) -> tuple[int, dict[str, Any]]:
    """The exit code and JSON document of ``evalmark compare`` on the two reports."""
    with folder() as here:
        write_report(a, here / "a.json")
        write_report(b, here / "b.json")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["compare", "a.json", "b.json", "--format", "json", *options])
    assert code in (0, 1), err.getvalue()
    document: dict[str, Any] = json.loads(out.getvalue())
    return code, document


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Report, Report, list[bool], list[bool]]:
    # two cases at least: with one there is no interval (the pass-rate figures are null)
    names = draw(NAMES.map(lambda n: sorted(set(n))).filter(lambda n: len(n) >= 2))
    a = [draw(st.booleans()) for _ in names]
    b = [draw(st.booleans()) for _ in names]
    return report(names, a), report(names, b), a, b


@settings(max_examples=examples(12), deadline=None)
@given(pairs())
def test_the_paired_counts_add_up_to_the_shared_cases(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, b, va, vb = pair
    _, doc = compare(a, b)
    counts = doc["mcnemar"]
    assert counts["both_passed"] == sum(x and y for x, y in zip(va, vb, strict=True))
    assert counts["both_failed"] == sum(not x and not y for x, y in zip(va, vb, strict=True))
    assert counts["worse"] == sum(x and not y for x, y in zip(va, vb, strict=True))
    assert counts["better"] == sum(not x and y for x, y in zip(va, vb, strict=True))
    assert sum(counts[k] for k in ("both_passed", "both_failed", "worse", "better")) == len(va)


@settings(max_examples=examples(12), deadline=None)
@given(pairs())
def test_the_means_are_the_pass_rates_and_the_interval_holds_the_difference(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, b, _, _ = pair
    _, doc = compare(a, b)
    rate = doc["pass_rate"]
    assert rate["mean_a"] == pytest.approx(a.pass_rate)
    assert rate["mean_b"] == pytest.approx(b.pass_rate)
    assert rate["difference"] == pytest.approx(b.pass_rate - a.pass_rate)
    assert rate["low"] - 1e-12 <= rate["difference"] <= rate["high"] + 1e-12


@settings(max_examples=examples(12), deadline=None)
@given(pairs())
def test_swapping_the_runs_swaps_better_and_worse(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, b, _, _ = pair
    _, forward = compare(a, b)
    _, backward = compare(b, a)
    assert forward["mcnemar"]["worse"] == backward["mcnemar"]["better"]
    assert forward["mcnemar"]["better"] == backward["mcnemar"]["worse"]
    assert forward["mcnemar"]["p_value"] == pytest.approx(backward["mcnemar"]["p_value"])
    assert forward["pass_rate"]["difference"] == pytest.approx(-backward["pass_rate"]["difference"])


@settings(max_examples=examples(12), deadline=None)
@given(pairs())
def test_a_run_compared_with_itself_shows_no_difference(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, _, _, _ = pair
    code, doc = compare(a, a, "--fail-if-worse")
    assert code == 0
    assert doc["mcnemar"]["worse"] == doc["mcnemar"]["better"] == 0
    assert doc["pass_rate"]["difference"] == 0.0
    assert doc["verdict"] == "no difference"


@settings(max_examples=examples(12), deadline=None)
@given(pairs())
def test_a_build_that_only_improves_never_fails_fail_if_worse(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, _, va, vb = pair
    improved = [x or y for x, y in zip(va, vb, strict=True)]
    code, doc = compare(a, report(list(a.sample_names), improved), "--fail-if-worse")
    assert code == 0, doc["verdict"]
    assert doc["mcnemar"]["worse"] == 0


@settings(max_examples=examples(12), deadline=None)
@given(NAMES, NAMES, st.booleans())
def test_cases_in_one_run_only_are_listed(a_names: list[str], b_names: list[str], v: bool) -> None:
    a_set, b_set = sorted({*a_names, "zz"}), sorted({*b_names, "zz"})  # one case in common
    _, doc = compare(report(a_set, [v] * len(a_set)), report(b_set, [v] * len(b_set)))
    assert sorted(doc["only_in_a"]) == sorted(set(a_set) - set(b_set))
    assert sorted(doc["only_in_b"]) == sorted(set(b_set) - set(a_set))


@settings(max_examples=examples(10), deadline=None)
@given(pairs())
def test_the_same_files_give_the_same_document(
    pair: tuple[Report, Report, list[bool], list[bool]],
) -> None:
    a, b, _, _ = pair
    assert compare(a, b) == compare(a, b)
