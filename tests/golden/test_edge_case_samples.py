"""The edge-case samples (golden/edge-cases/): every deterministic check scores them, and every
report format renders them, with the markup in them kept as text."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import evalmark as em
from evalmark import strategies as s
from evalmark.report import render_report

ROOT = Path(__file__).resolve().parents[2]
EDGE = ROOT / "golden" / "edge-cases" / "samples.yaml"
KINDS = {"empty", "long", "special-characters", "multilingual", "injection", "structured"}


def echo_expected(question: str) -> str:
    """An application that answers each question with a fixed text taken from the question."""
    return question[::-1]


def checks() -> list[object]:
    return [
        s.ExactMatch(),
        s.Contains(),
        s.ContainsFacts(),
        s.TokenF1(threshold=0.5),
        s.RougeL(threshold=0.5),
        s.LevenshteinSimilarity(threshold=0.5),
        s.SemanticSimilarity(threshold=0.5),
    ]


def test_the_edge_cases_cover_every_kind() -> None:
    samples = em.load_samples(EDGE)
    assert len(samples) >= 15
    kinds = {tag for sample in samples for tag in sample.tags} - {"edge-case"}
    assert kinds == KINDS
    assert max(len(sample.parameters[0]) for sample in samples) > 5000


@pytest.mark.parametrize("answer", ["reversed", "expected", "empty"])
def test_every_deterministic_check_scores_every_edge_case(answer: str) -> None:
    samples = em.load_samples(EDGE)
    by_question = {sample.parameters[0]: sample.expected_output or "" for sample in samples}

    def app(question: str) -> str:
        if answer == "expected":
            return by_question[question]
        return "" if answer == "empty" else echo_expected(question)

    report = em.Scorer().evaluate(samples, app, *checks(), name=f"edge-{answer}")
    errors = 0
    for row in report.rows():
        for name, result in row.results.items():
            assert 0.0 <= result.score <= 1.0 and not math.isnan(result.score)
            if result.error is not None:
                # only a sample missing what the check needs, said so with the fix
                errors += 1
                assert result.error.type == "StrategyError", f"{row.name} / {name}: {result.error}"
                assert f"sample {row.name!r}" in result.error.message
                assert "add " in result.error.message
    assert errors <= 2, "only the samples without expected facts lack what a check needs"
    structured = samples.filter_by_tags("structured")
    json_report = em.Scorer().evaluate(structured, app, s.JsonMatch(), name="edge-json")
    for row in json_report.rows():
        (result,) = row.results.values()
        assert result.error is None and result.passed is (answer == "expected")


def test_every_report_format_keeps_markup_as_text(tmp_path: Path) -> None:
    samples = em.load_samples(EDGE)
    report = em.Scorer().evaluate(samples, lambda q: q, s.ContainsFacts(), name="edge")
    html = render_report(report, "html")
    assert "<script>alert('x')</script>" not in html
    assert "&lt;script&gt;" in html or "&lt;script>" in html
    assert "<img src=x onerror" not in html
    data = json.loads(render_report(report, "json"))
    assert json.dumps(data)  # round-trips as JSON
    assert "edge" in render_report(report, "markdown")
    assert "<script>alert" not in render_report(report, "junit")
