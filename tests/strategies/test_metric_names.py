"""Every name of the metric table is one number: the function, the metric strategy, the suite
kind and `evalmark score` give the same value on the same pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import evalmark as em
from evalmark import metrics
from evalmark.cli import main
from evalmark.metrics import METRICS
from evalmark.metrics._table import Metric
from evalmark.strategies._metric_kinds import METRIC_CHECKS, kind_name, kind_option
from evalmark.strategies._registry import build_strategy, get_strategy_kind

TEXT_PAIRS = [
    ("The cats are running to the mat.", "The cat runs to the mat."),
    ("Refunds within 30 days.\nEmail billing.", "Annual plans: refunds within 30 days."),
    ("", ""),
    ("", "something"),
    ("Zürich cafés serve crème brûlée", "zurich CAFÉS serve crème brulee"),
    ("東京 は 大きい", "東京 は とても 大きい"),
    ("naïve résumé — ok", "naive resume - ok"),
]
JSON_PAIRS = [
    ('{"a": 1, "b": [1, 2]}', '{"b": [1, 2.0], "a": 1e0}'),
    ('{"a": 1}', '{"a": 1}'),
    ('{"name": "Zürich"}', '{"name": "Z\\u00fcrich"}'),
    ('""', ""),
    ("[]", "[1]"),
]
VECTORS = (
    np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.5, -1.0, 3.0]]),
    np.array([[1.0, 1.0, 2.0], [1.0, 2.0, 3.0], [-0.5, 1.0, -3.0]]),
)
# Metrics that have no threshold check, and why.
NO_CHECK = {
    "levenshtein_distance": "a count of edits, not a score in [0, 1]",
    "levenshtein_normalized_distance": "a distance: lower is better",
    "indel_distance": "a count of edits, not a score in [0, 1]",
    "indel_normalized_distance": "a distance: lower is better",
    "wer": "an error rate: lower is better, and it can pass 1",
    "cer": "an error rate: lower is better, and it can pass 1",
    "cosine": "compares vectors; its check, semantic-similarity, embeds the texts first",
}


def pairs_of(metric: Metric) -> list[tuple[str, str]]:
    return JSON_PAIRS if metric.function.name == "json_match" else TEXT_PAIRS


def function_values(metric: Metric, pairs: list[tuple[str, str]]) -> list[Any]:
    """The public scalar function on each pair, and the batch function on all of them."""
    scalar = getattr(metrics, metric.function.name)
    batch = getattr(metrics, f"{metric.function.name}_batch")
    one_by_one = [scalar(e, a, **metric.settings) for e, a in pairs]
    together = batch([e for e, _ in pairs], [a for _, a in pairs], **metric.settings).tolist()
    assert one_by_one == together, metric.name
    return one_by_one


def check_values(strategy: Any, pairs: list[tuple[str, str]]) -> list[float]:
    samples = [
        em.Sample(name=f"s{i}", parameters=("q",), expected_output=e)
        for i, (e, _) in enumerate(pairs)
    ]
    results = strategy.evaluate_batch(samples, [a for _, a in pairs])
    return [float(results[i].score) for i in range(len(pairs))]


def strategy_class(metric: Metric) -> type[Any] | None:
    found = [cls for cls in METRIC_CHECKS if cls.function is metric.function]
    assert len(found) <= 1
    return found[0] if found else None


def test_every_text_metric_has_a_strategy_and_a_kind() -> None:
    for metric in METRICS.values():
        cls = strategy_class(metric)
        if metric.name in NO_CHECK:
            assert cls is None, metric.name
            continue
        assert cls is not None, f"{metric.name} has no strategy"
        kind = get_strategy_kind(kind_name(metric.function))
        for option in metric.function.options:
            assert kind_option(option.name) in kind.accepted, (kind.name, option.name)


def test_function_strategy_suite_kind_and_score_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected: dict[str, list[Any]] = {}
    for metric in METRICS.values():
        if metric.function.inputs == "vector":
            continue
        pairs = pairs_of(metric)
        values = function_values(metric, pairs)
        expected[metric.name] = values
        cls = strategy_class(metric)
        if cls is None:
            continue
        as_floats = [float(v) for v in values]
        strategy = cls(name=metric.name, **metric.settings)
        assert check_values(strategy, pairs) == as_floats, f"strategy of {metric.name}"
        kind = get_strategy_kind(kind_name(metric.function))
        options = {kind_option(k): v for k, v in metric.settings.items()}
        for key, value in options.items():
            assert kind.accepted[key](value) is None, (metric.name, key, value)
        built = build_strategy(kind.name, {"name": metric.name, **options})
        assert check_values(built, pairs) == as_floats, f"suite kind of {metric.name}"

    for pairs in (TEXT_PAIRS, JSON_PAIRS):
        names = [name for name in expected if pairs_of(METRICS[name]) is pairs]
        source = tmp_path / f"pairs{len(pairs)}.jsonl"
        source.write_text(
            "".join(json.dumps({"expected": e, "actual": a}) + "\n" for e, a in pairs),
            encoding="utf-8",
        )
        out = tmp_path / f"scores{len(pairs)}.jsonl"
        assert main(["score", str(source), "--metrics", ",".join(names), "-o", str(out)]) == 0
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        for name in names:
            assert [row[name] for row in rows] == expected[name], f"evalmark score {name}"
    capsys.readouterr()


def test_cosine_function_and_score_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    left, right = VECTORS
    values = [metrics.cosine(e, a) for e, a in zip(left, right, strict=True)]
    assert metrics.cosine_batch(left, right).tolist() == values
    source = tmp_path / "vectors.jsonl"
    source.write_text(
        "".join(
            json.dumps({"expected": "", "actual": "", "expected_vector": e, "actual_vector": a})
            + "\n"
            for e, a in zip(left.tolist(), right.tolist(), strict=True)
        )
    )
    out = tmp_path / "scores.jsonl"
    assert main(["score", str(source), "--metrics", "cosine", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["cosine"] for row in rows] == values
    capsys.readouterr()


def test_a_stemmed_variant_says_so_in_its_name() -> None:
    for metric in METRICS.values():
        stemmed = metric.options.get("stemmer") == "porter"
        assert stemmed == metric.name.endswith("_stemmed"), metric.name
    assert metrics.rouge_n("running cats", "runs cat") == 0.0
    assert metrics.rouge_n("running cats", "runs cat", stemmer="porter") > 0.0
