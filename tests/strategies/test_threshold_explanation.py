"""ThresholdExplanation writes MetricStrategy._explain's text, one row or a column at once."""

from __future__ import annotations

import math
import random

import pytest

from evalmark import Sample
from evalmark.strategies import LevenshteinSimilarity, RougeL, TokenF1
from evalmark.strategies._explanation import ThresholdExplanation
from evalmark.strategies._metric import MetricStrategy


def _reference(label: str, threshold: float, score: float, passed: bool) -> str:
    relation = ">=" if passed else "<"
    return f"{label} {score:.3f} {relation} threshold {threshold:g}"


@pytest.mark.parametrize("label", ["token F1", "100% %s %%d", "a\0b", "é 🙂"])
@pytest.mark.parametrize("threshold", [0.5, 0.0, 1.0, 1e-7, 0.333333])
def test_one_row_and_many_rows_write_the_reference_text(label: str, threshold: float) -> None:
    rng = random.Random(f"{label}{threshold}")
    scores = [rng.random() for _ in range(300)]
    scores += [0.0, -0.0, 1.0, 0.0005, 0.0015, 0.9995, math.nan, math.inf, 2.5e-4]
    passed = [rng.random() < 0.5 for _ in scores]
    explain = ThresholdExplanation(label, threshold)
    want = [_reference(label, threshold, s, p) for s, p in zip(scores, passed, strict=True)]
    assert [explain(i, s, p) for i, (s, p) in enumerate(zip(scores, passed, strict=True))] == want
    assert explain.many(scores, passed) == want
    assert explain.many([], []) == []


def test_columns_export_the_same_explanations_as_their_rows() -> None:
    samples = [
        Sample(name=f"s{i}", parameters=(f"q{i}",), expected_output=f"the answer {i}")
        for i in range(40)
    ]
    outputs = [f"the answer {i % 7}" if i % 5 else None for i in range(40)]
    for strategy in (TokenF1(), RougeL(threshold=0.6), LevenshteinSimilarity(threshold=0.9)):
        column = strategy.evaluate_batch(samples, outputs)
        _, _, explanations, _ = column.export()
        fresh = strategy.evaluate_batch(samples, outputs)
        assert explanations == [fresh[i].explanation for i in range(len(samples))]
        for i in range(len(samples)):
            row = fresh[i]
            if row.error is None:
                assert row.explanation == MetricStrategy._explain(
                    strategy, i, row.score, row.passed
                )
