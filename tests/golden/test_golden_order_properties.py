"""Properties of the golden edge-case samples (golden/edge-cases/): a samples file holding them
in any order gives the same report up to order, and any concurrency gives the same bytes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import evalmark as em
from budget import examples
from evalmark import strategies as s
from evalmark.report import Report, render_report

ROOT = Path(__file__).resolve().parents[2]
EDGE = em.load_samples(ROOT / "golden" / "edge-cases" / "samples.yaml")


def app(question: str) -> str:
    """A deterministic application: the question backwards."""
    return question[::-1]


def checks() -> list[Any]:
    return [s.ExactMatch(), s.Contains(), s.TokenF1(threshold=0.5), s.RougeL(threshold=0.5)]


def by_sample(report: Report) -> tuple[dict[str, Any], dict[str, Any]]:
    document = json.loads(render_report(report, "json"))
    rows = {row["name"]: row for row in document.pop("samples")}
    return rows, document


@settings(max_examples=examples(10), deadline=None)
@given(st.permutations(list(EDGE)), st.sampled_from([".yaml", ".json", ".jsonl"]))
def test_a_samples_file_in_any_order_gives_the_same_report_up_to_order(
    order: list[em.Sample], suffix: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"samples{suffix}"
        em.write_samples(order, path)
        shuffled = em.load_samples(path)
    assert shuffled.names == tuple(sample.name for sample in order)
    original = em.Scorer(concurrency=1).evaluate(EDGE, app, *checks(), name="edge")
    permuted = em.Scorer(concurrency=1).evaluate(shuffled, app, *checks(), name="edge")
    assert by_sample(permuted) == by_sample(original)


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(1, 8), st.integers(1, 8))
def test_any_concurrency_gives_the_same_report_bytes(a: int, b: int) -> None:
    first = em.Scorer(concurrency=a).evaluate(EDGE, app, *checks(), name="edge")
    second = em.Scorer(concurrency=b).evaluate(EDGE, app, *checks(), name="edge")
    for fmt in ("json", "markdown", "html"):
        assert render_report(first, fmt) == render_report(second, fmt)
