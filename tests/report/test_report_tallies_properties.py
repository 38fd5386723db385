"""Properties of a report's counts, gates and comparisons against oracles computed from the
generated verdicts: every evaluation is counted once, the pass rates are the shares they claim
to be, tallies by tag and by strategy add up, gates are monotone in their threshold, a report
compared with itself changes nothing, and the JSON form reads back to the same counts.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult
from evalmark.errors import EvalmarkError
from evalmark.gates import pass_rate_gate
from evalmark.report import Report, compare, render_report, report_document, write_report
from evalmark.results._results import ResultColumn

VERDICTS = st.sampled_from(["pass", "fail", "error"])
NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
TAGS = st.lists(st.sampled_from(["t1", "t2", "t3"]), max_size=2, unique=True).map(tuple)


def result(verdict: str, score: float) -> EvaluationResult:
    if verdict == "error":
        return EvaluationResult.from_error("strategy", ValueError("boom"))
    return EvaluationResult(verdict == "pass", score, verdict)


@st.composite
def grids(draw: st.DrawFn) -> tuple[Report, dict[str, list[str]]]:
    """A report and its verdicts by check (``pass``/``fail``/``error`` per sample)."""
    names = draw(st.lists(NAMES, min_size=1, max_size=8, unique=True))
    checks = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    verdicts = {c: [draw(VERDICTS) for _ in names] for c in checks}
    columns = {
        c: ResultColumn.from_results([result(v, draw(st.floats(0, 1))) for v in vs])
        for c, vs in verdicts.items()
    }
    report = Report(
        name=draw(NAMES),
        sample_names=names,
        sample_tags=[draw(TAGS) for _ in names],
        columns=columns,
    )
    return report, verdicts


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_every_evaluation_is_counted_once(grid: tuple[Report, dict[str, list[str]]]) -> None:
    report, verdicts = grid
    every = [v for vs in verdicts.values() for v in vs]
    assert report.evaluations == len(every)
    assert report.passed == every.count("pass")
    assert report.failed == every.count("fail")
    assert report.errors == every.count("error")


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_the_pass_rate_is_the_share_of_samples_whose_every_check_passed(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, verdicts = grid
    n = len(report.sample_names)
    clean = sum(all(vs[i] == "pass" for vs in verdicts.values()) for i in range(n))
    assert report.pass_rate == pytest.approx(clean / n)


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_the_check_pass_rate_is_the_share_of_passing_evaluations(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, verdicts = grid
    every = [v for vs in verdicts.values() for v in vs]
    assert report.check_pass_rate == pytest.approx(every.count("pass") / len(every))
    assert report.pass_rate <= report.check_pass_rate + 1e-12


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_tallies_by_strategy_add_up_to_the_summary(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, _ = grid
    parts = report.by_strategy().values()
    whole = report.summary
    assert sum(t.evaluations for t in parts) == whole.evaluations
    assert sum(t.passed for t in parts) == whole.passed
    assert sum(t.failed for t in parts) == whole.failed
    assert sum(t.errors for t in parts) == whole.errors


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_a_tag_tally_counts_exactly_the_tagged_samples(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, verdicts = grid
    assert list(report.tags) == sorted({t for tags in report.sample_tags for t in tags})
    for tag, tally in report.by_tag().items():
        rows = [i for i, tags in enumerate(report.sample_tags) if tag in tags]
        assert tally == report.tally(tag=tag) == report.for_tag(tag)
        assert tally.evaluations == len(rows) * len(verdicts)
        assert tally.passed == sum(vs[i] == "pass" for vs in verdicts.values() for i in rows)
        assert list(report.tag_mask(tag)) == [tag in tags for tags in report.sample_tags]


@settings(max_examples=examples(40), deadline=None)
@given(grids(), st.text(alphabet="xyz", min_size=1, max_size=3))
def test_an_unknown_tag_is_refused_naming_the_known_ones(
    grid: tuple[Report, dict[str, list[str]]], tag: str
) -> None:
    report, _ = grid
    with pytest.raises(KeyError):
        report.for_tag(tag)


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_failing_rows_are_the_samples_with_a_fail_or_error_in_order(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, verdicts = grid
    names = list(report.sample_names)
    want = [n for i, n in enumerate(names) if any(vs[i] != "pass" for vs in verdicts.values())]
    assert [row.name for row in report.failing_rows()] == want


@settings(max_examples=examples(60), deadline=None)
@given(grids())
def test_each_result_is_found_under_its_sample_and_strategy(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, verdicts = grid
    for check, vs in verdicts.items():
        for name, verdict in zip(report.sample_names, vs, strict=True):
            got = report.result(name, check)
            assert (got.error is not None) == (verdict == "error")
            assert got.passed == (verdict == "pass")
    assert [r.name for r in report.rows()] == list(report.sample_names)


@settings(max_examples=examples(60), deadline=None)
@given(grids(), st.floats(0, 1), st.floats(0, 1))
def test_the_pass_rate_gate_is_monotone_and_agrees_with_the_pass_rate(
    grid: tuple[Report, dict[str, list[str]]], t1: float, t2: float
) -> None:
    report, _ = grid
    low, high = sorted((t1, t2))
    lenient, strict = pass_rate_gate(report, low), pass_rate_gate(report, high)
    assert lenient.passed or not strict.passed
    assert lenient.actual == pytest.approx(report.pass_rate)
    assert lenient.passed == (report.pass_rate >= low - 1e-12) or abs(report.pass_rate - low) < 1e-9


@settings(max_examples=examples(40), deadline=None)
@given(grids(), st.data())
def test_a_strategy_gate_reads_that_strategy_alone(
    grid: tuple[Report, dict[str, list[str]]], data: Any
) -> None:
    report, verdicts = grid
    check = data.draw(st.sampled_from(sorted(verdicts)))
    gate = pass_rate_gate(report, 0.5, strategy=check)
    share = verdicts[check].count("pass") / len(verdicts[check])
    assert gate.actual == pytest.approx(share)


@settings(max_examples=examples(40), deadline=None)
@given(grids(), NAMES)
def test_renaming_a_report_changes_its_name_only(
    grid: tuple[Report, dict[str, list[str]]], name: str
) -> None:
    report, _ = grid
    renamed = report.with_name(name)
    assert renamed.name == name
    a, b = report_document(report), report_document(renamed)
    a.pop("name"), b.pop("name")
    assert a == b


@settings(max_examples=examples(40), deadline=None)
@given(grids(), st.dictionaries(NAMES, st.integers() | NAMES, max_size=3))
def test_metadata_added_to_a_report_reads_back(
    grid: tuple[Report, dict[str, list[str]]], values: dict[str, Any]
) -> None:
    report, _ = grid
    tagged = report.with_metadata(**values)
    for key, value in values.items():
        assert tagged.metadata[key] == value
    again = Report.from_json(render_report(tagged, "json"))
    assert again == tagged
    for key, value in values.items():
        assert again.metadata[key] == value


@settings(max_examples=examples(40), deadline=None)
@given(grids())
def test_a_report_read_back_from_its_file_has_the_same_counts(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, _ = grid
    with tempfile.TemporaryDirectory() as folder:
        again = Report.read(write_report(report, Path(folder) / "r.json"))
    assert again == report
    assert again.by_tag() == report.by_tag()
    assert Report.from_dict(report_document(report)) == report


@settings(max_examples=examples(40), deadline=None)
@given(grids())
def test_a_report_compared_with_itself_has_no_regressions_or_fixes(
    grid: tuple[Report, dict[str, list[str]]],
) -> None:
    report, _ = grid
    comparison = compare(report, report)
    assert not comparison.regressions and not comparison.fixes
    assert not comparison.new and not comparison.vanished
    json.loads(comparison.to_json())


@settings(max_examples=examples(40), deadline=None)
@given(grids(), grids())
def test_regressions_and_fixes_swap_when_the_comparison_is_reversed(
    a: tuple[Report, dict[str, list[str]]], b: tuple[Report, dict[str, list[str]]]
) -> None:
    forward, backward = compare(a[0], b[0]), compare(b[0], a[0])
    assert len(forward.regressions) == len(backward.fixes)
    assert len(forward.fixes) == len(backward.regressions)
    assert len(forward.new) == len(backward.vanished)


@settings(max_examples=examples(60), deadline=None)
@given(st.text(max_size=40) | st.binary(max_size=40))
def test_text_that_is_not_a_report_is_a_typed_error(text: str | bytes) -> None:
    with contextlib.suppress(EvalmarkError):  # any other exception fails the test
        Report.from_json(text)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.recursive(
        st.none() | st.integers() | NAMES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
        max_leaves=6,
    )
)
def test_a_json_document_that_is_not_a_report_is_a_typed_error(value: Any) -> None:
    with contextlib.suppress(EvalmarkError):  # any other exception fails the test
        Report.from_dict(value)
