"""The row templates of the JSON column writer (report/render/json_rows.py, json_results.py):
threshold-metric explanations written around the score, texts whose quotes live in the
templates, and ``%`` in every fixed text, all against the reference path's bytes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from test_report_json_fast import TEXTS, plain_report, reports_agree

from evalmark import Sample, Scorer
from evalmark.report import Report, SuiteReport, render_report
from evalmark.report._document import dumps
from evalmark.report._render.json import reference_render, render
from evalmark.report._render.json_layout import three_decimals
from evalmark.report._values import SkippedSample
from evalmark.results._results import EvaluationFault, EvaluationResult, ResultColumn
from evalmark.strategies import LevenshteinSimilarity, TokenF1
from evalmark.strategies._explanation import ThresholdExplanation

LABELS = ["token F1", 'odd "label" 100% \\ 😀 ü \t', "%s %.3f %% %(x)s", ""]
SPECIAL_SCORES = [0.0, -0.0, 1.0, 0.0625, 0.9375, 0.0005, 0.9995, 1e-7, math.nan, math.inf]


def test_three_decimals_are_what_percent_f_writes() -> None:
    rng = np.random.default_rng(5)
    values = [*rng.random(20_000).tolist(), *SPECIAL_SCORES, -math.inf, 1.0005, -0.0004, 2.5]
    for m in range(1000):  # each rounding boundary, the floats either side, exact ties
        middle = (2 * m + 1) / 2000
        values += [middle, math.nextafter(middle, 0.0), math.nextafter(middle, 1.0), m / 1000]
    assert three_decimals(np.array(values)) == [b"%.3f" % v for v in values]


def metric_report(label: str, scores: list[float], name: str = "m%") -> Report:
    """A report of threshold-metric columns: special scores, overrides, a row already read."""
    count = len(scores)
    rng = np.random.default_rng(len(label))
    columns: dict[str, ResultColumn] = {}
    for j, key in enumerate([name, f"zwei ü {label}", 'q"k']):
        values = np.array(scores[j:] + scores[:j], dtype=np.float64)
        passed = rng.random(count) > 0.4
        overrides = {}
        if j == 1 and count > 6:
            error = EvaluationFault("strategy", "ValueError", 'bad "x" 50%')
            overrides = {
                2: EvaluationResult(False, 0.0, "boom %s", error=error),
                4: EvaluationResult(True, 0.25, "", {"why": "100% 😀"}),
                5: EvaluationResult(True, 0.5, ""),
                6: EvaluationResult(False, 0.125, 'own "text" %d'),
            }
        column = ResultColumn(values, passed, ThresholdExplanation(label, 0.5 + j / 10), overrides)
        if count > 3:
            _ = column[3]  # a row read before the report is written sits in the cache
        columns[key] = column
    return Report(
        name="metric 100%",
        sample_names=[f"{TEXTS[i % len(TEXTS)]}%{i}" for i in range(count)],
        sample_tags=[("t%", "ü")] * count,
        columns=columns,
        outputs=[None if i % 5 == 1 else f"{TEXTS[i % len(TEXTS)]} %s" for i in range(count)],
        skipped=[SkippedSample("gone %", "why 😀")],
    )


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("indent", [2, None, 0, 3])
def test_threshold_explanations_with_awkward_labels_and_scores(label: str, indent: Any) -> None:
    scores = SPECIAL_SCORES * 3
    reports_agree(lambda: metric_report(label, scores), indent=indent)


@pytest.mark.parametrize("count", [0, 1, 2, 7])
def test_small_metric_reports(count: int) -> None:
    scores = [0.5, 0.0625, 1.0, 0.3, 0.7, 0.2, 0.9][:count]
    for indent in (2, None):
        reports_agree(lambda: metric_report("f", scores), indent=indent)


def test_a_lone_surrogate_in_a_label_is_kept_as_the_reference_keeps_it() -> None:
    text = reference_render(metric_report("half \ud800", [0.5, 0.25]))
    assert "half \\\\ud800" in text  # written as the six characters \ud800
    assert render(metric_report("half \ud800", [0.5, 0.25])) == text


class _Stray:
    """An explainer whose ``around_score`` is not the threshold shape: not templated."""

    around_score = ("head", "not a pair")

    def __call__(self, index: int, score: float, passed: bool) -> str:
        return f"stray {index} {score:.2f}"


def test_an_explainer_without_the_threshold_shape_writes_its_own_texts() -> None:
    def factory() -> Report:
        column = ResultColumn(np.linspace(0, 1, 9), np.arange(9) % 2 == 0, _Stray())
        return Report(
            name="stray",
            sample_names=[f"s{i}" for i in range(9)],
            sample_tags=[()] * 9,
            columns={"s": column},
        )

    for indent in (2, None):
        reports_agree(factory, indent=indent)


class _OddF1(TokenF1):
    label = 'tök "F1" 100% \\'


def scorer_report() -> Report:
    """From the Scorer: metric strategies, an application that raises on some samples."""
    samples = [
        Sample(name=f"s{i} {TEXTS[i % len(TEXTS)]}", parameters=[i], expected_output=f"a {i}")
        for i in range(30)
    ]

    def app(index: int) -> str:
        if index % 7 == 3:
            raise RuntimeError(f"failed 100% 😀 {index}")
        return TEXTS[index % len(TEXTS)] + f" a {index % 4}"

    return Scorer().evaluate(samples, app, _OddF1(0.4), LevenshteinSimilarity(0.6), name="scored %")


@pytest.mark.parametrize("indent", [2, None, 1])
def test_scored_metric_reports_with_errored_rows(indent: Any) -> None:
    reports_agree(scorer_report, indent=indent)


def test_suites_of_metric_reports() -> None:
    def suite() -> SuiteReport:
        return SuiteReport(
            [metric_report(label, SPECIAL_SCORES * 2).with_name(label) for label in LABELS]
            + [scorer_report()],
            name="suite 100% ü",
        )

    expected = dumps(suite().to_dict())
    assert render_report(suite(), "json") == expected


def test_many_strategies_renumber_the_row_shapes() -> None:
    """Past about twenty strategies a row's shape code would overflow: it is renumbered."""
    for indent in (2, None):
        reports_agree(lambda: plain_report(40, 25), indent=indent)
