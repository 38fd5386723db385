"""Properties of a ``SuiteRun`` of the bundled support suite over generated builds, judge noise,
tag selections and concurrency: it passes exactly when each of its gate conditions holds, its
case counts are those of its reports' rows, a tag selection keeps only the cases carrying one
of the tags, and the concurrency changes none of its reports."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.models import NoisyJudge, RuleJudge
from evalmark.report import render_report
from evalmark.suite import SuiteRun
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

SUPPORT = Path(__file__).resolve().parents[2] / "golden" / "support"
SUITE = load_suite(SUPPORT)
# tags the support suite's samples carry (golden/support/samples.yaml)
TAGS = ["billing", "compliance", "limits", "retention", "security", "smoke", "support"]


@settings(max_examples=examples(20), deadline=None)
@given(
    st.sampled_from(["healthy", "regressed"]),
    st.sampled_from([0.0, 0.3]),
    st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
    st.integers(2, 8),
)
def test_a_run_passes_when_its_gates_hold_and_counts_its_cases(
    build: str, flip: float, tags: list[str], concurrency: int
) -> None:
    def run(workers: int) -> SuiteRun:
        judge = NoisyJudge(RuleJudge(min_overlap=0.6), flip, 7)
        return run_suite(SUITE, build=build, tags=tags, concurrency=workers, judge=judge)

    done = run(1)
    assert isinstance(done, SuiteRun) and done.build == build
    assert done.passed is all(gate.passed for gate in done.gates)
    rows = [row for report in done.reports for row in report.rows()]
    assert done.cases == len(rows) and done.passed_cases == sum(row.passed for row in rows)
    assert len(done.evaluations) == len(done.reports)
    if tags:
        assert all(set(row.tags) & set(tags) for row in rows)
    again = run(concurrency)
    assert [render_report(r, "json") for r in again.reports] == [
        render_report(r, "json") for r in done.reports
    ]
