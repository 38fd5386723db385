"""Properties of the plugin's end of session over generated registered reports: the summary line
counts the cases and checks the reports hold; the suite report written is the same bytes in any
registration order and reads back with every report; a run compared with its own suite report
never fails whatever the allowed drop; and a run that lost more than the allowed drop fails."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import Sample, Samples
from evalmark.engine._scorer import Scorer
from evalmark.gates._rules import drop_exceeds
from evalmark.pytest._registry import RegisteredReport
from evalmark.pytest._session import finish_session
from evalmark.report import SuiteReport
from evalmark.strategies import ExactMatch

GROUPS = st.lists(st.lists(st.booleans(), min_size=1, max_size=6), min_size=1, max_size=4)
DROPS = st.floats(0, 1)


def entries_of(groups: list[list[bool]]) -> list[RegisteredReport]:
    scorer = Scorer(concurrency=1)
    out = []
    for g, verdicts in enumerate(groups):
        samples = Samples(
            tuple(
                Sample(name=f"s{i}", parameters=["x" if ok else "y"], expected_output="x")
                for i, ok in enumerate(verdicts)
            )
        )
        report = scorer.evaluate(samples, lambda q: q, ExactMatch(), name=f"test_{g}")
        out.append(RegisteredReport(f"test_{g}", report))
    return out


@settings(max_examples=examples(30), deadline=None)
@given(GROUPS)
def test_the_summary_line_counts_the_cases_and_checks_of_the_reports(
    groups: list[list[bool]],
) -> None:
    outcome = finish_session(entries_of(groups), None, None, 0.0)
    cases = sum(len(g) for g in groups)
    passed = sum(sum(g) for g in groups)
    first = outcome.lines[0]
    assert first.startswith(f"{len(groups)} report")
    assert f"{cases} case" in first and f": {passed} passed, {cases - passed} failed" in first
    assert f"({passed} of {cases} check" in first
    assert outcome.failure is None


@settings(max_examples=examples(20), deadline=None)
@given(GROUPS, st.randoms(use_true_random=False))
def test_the_suite_report_is_the_same_bytes_in_any_order_and_reads_back(
    groups: list[list[bool]], random: Any
) -> None:
    entries = entries_of(groups)
    shuffled = list(entries)
    random.shuffle(shuffled)
    with tempfile.TemporaryDirectory() as folder:
        one, two = Path(folder) / "a", Path(folder) / "b"
        finish_session(entries, str(one), None, 0.0, formats=("json", "md"))
        finish_session(shuffled, str(two), None, 0.0, formats=("json", "md"))
        for name in sorted(p.name for p in one.iterdir()):
            assert (one / name).read_bytes() == (two / name).read_bytes(), name
        (written,) = [p for p in one.iterdir() if p.suffix == ".json"]
        back = SuiteReport.from_json(written.read_bytes())
    assert [r.name for r in back.reports] == sorted(e.name for e in entries)
    assert back.cases().passed == sum(sum(g) for g in groups)


@settings(max_examples=examples(20), deadline=None)
@given(GROUPS, DROPS)
def test_a_run_compared_with_its_own_suite_report_never_fails(
    groups: list[list[bool]], max_drop: float
) -> None:
    entries = entries_of(groups)
    with tempfile.TemporaryDirectory() as folder:
        finish_session(entries, folder, None, 0.0, formats=("json",))
        (baseline,) = Path(folder).glob("*.json")
        outcome = finish_session(entries, None, str(baseline), max_drop)
    assert outcome.failure is None
    assert any("+0.0 points" in line for line in outcome.lines)


@settings(max_examples=examples(20), deadline=None)
@given(GROUPS, GROUPS, DROPS)
def test_a_suite_pass_rate_that_fell_beyond_the_allowed_drop_fails_the_session(
    before: list[list[bool]], after: list[list[bool]], max_drop: float
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        finish_session(entries_of(before), folder, None, 0.0, formats=("json",))
        (baseline,) = Path(folder).glob("*.json")
        outcome = finish_session(entries_of(after), None, str(baseline), max_drop)
    rate = [sum(map(sum, g)) / sum(map(len, g)) for g in (before, after)]
    if drop_exceeds(rate[0], rate[1], max_drop):
        assert outcome.failure is not None and "dropped beyond" in outcome.failure
    if outcome.failure is None:
        assert not drop_exceeds(rate[0], rate[1], max_drop)
