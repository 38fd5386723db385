"""Properties of judge agreement figures and of the labels file, for generated labels."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.calibration import agreement, load_labels
from evalmark.calibration._agreement import rate

pairs = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=1, max_size=60)


def oracle(
    truth: list[str], predicted: list[str], labels: list[str]
) -> tuple[list[list[int]], float, float | None]:
    """Confusion matrix, accuracy and kappa counted directly from the pairs."""
    n = len(truth)
    matrix = [
        [sum(t == a and p == b for t, p in zip(truth, predicted, strict=True)) for b in labels]
        for a in labels
    ]
    accuracy = sum(t == p for t, p in zip(truth, predicted, strict=True)) / n
    chance = sum(truth.count(c) * predicted.count(c) for c in labels) / (n * n)
    kappa = None if chance >= 1 else (accuracy - chance) / (1 - chance)
    return matrix, accuracy, kappa


@settings(max_examples=examples(150))
@given(pairs)
def test_agreement_equals_direct_counting(items: list[tuple[str, str]]) -> None:
    truth, predicted = [t for t, _ in items], [p for _, p in items]
    labels = ["a", "b", "c"]
    measured = agreement(truth, predicted, labels)
    matrix, accuracy, kappa = oracle(truth, predicted, labels)
    assert [list(row) for row in measured.matrix] == matrix
    assert measured.total == len(items)
    assert math.isclose(measured.accuracy, accuracy)
    if kappa is None:
        assert measured.kappa is None
    else:
        assert measured.kappa is not None and math.isclose(measured.kappa, kappa, abs_tol=1e-12)
        assert -1.0 - 1e-12 <= measured.kappa <= 1.0 + 1e-12


@settings(max_examples=examples(100))
@given(pairs, st.permutations(range(60)), st.permutations("abc"))
def test_agreement_is_symmetric_and_independent_of_item_and_label_order(
    items: list[tuple[str, str]], order: list[int], labels: list[str]
) -> None:
    truth, predicted = [t for t, _ in items], [p for _, p in items]
    base = agreement(truth, predicted, ["a", "b", "c"])
    swapped = agreement(predicted, truth, ["a", "b", "c"])
    assert swapped.matrix == tuple(zip(*base.matrix, strict=True))
    assert swapped.kappa == base.kappa or math.isclose(swapped.kappa, base.kappa, abs_tol=1e-12)  # type: ignore[arg-type]
    kept = [i for i in order if i < len(items)]
    shuffled = agreement([truth[i] for i in kept], [predicted[i] for i in kept], ["a", "b", "c"])
    assert shuffled.matrix == base.matrix
    relabelled = agreement(truth, predicted, labels)
    position = {c: labels.index(c) for c in "abc"}
    for i, a in enumerate("abc"):
        for j, b in enumerate("abc"):
            assert relabelled.matrix[position[a]][position[b]] == base.matrix[i][j]


@settings(max_examples=examples(150))
@given(st.integers(0, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_a_rate_interval_holds_its_value(hits_trials: tuple[int, int]) -> None:
    hits, trials = hits_trials
    measured = rate(hits, trials)
    if trials == 0:
        assert measured.value is None and measured.low is None
        return
    assert measured.low is not None and measured.high is not None
    assert 0.0 <= measured.low <= measured.value <= measured.high <= 1.0  # type: ignore[operator]


_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_items = st.lists(
    st.fixed_dictionaries(
        {
            "id": _text.filter(str.strip),
            "label": st.sampled_from(["pass", "fail", "PASS", " Failed ", True, False]),
            "inputs": _text,
            "outputs": _text,
            "reference_outputs": _text,
            "note": _text,
        }
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda item: item["id"],
)


def _write(path: Path, items: list[dict[str, object]]) -> None:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(items), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(items), encoding="utf-8")  # escapes \x85 (NEL)


@settings(max_examples=examples(40))
@given(_items, st.sampled_from([".jsonl", ".json", ".yaml"]))
def test_a_labels_file_round_trips(items: list[dict[str, object]], suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"labels{suffix}"
        _write(path, items)
        loaded = load_labels(path, prompt="correctness")
    assert [i.id for i in loaded] == [i["id"] for i in items]
    for item, original in zip(loaded, items, strict=True):
        label = original["label"]
        expected = label if isinstance(label, bool) else label.strip().casefold().startswith("pass")  # type: ignore[attr-defined]
        assert item.label is expected
        assert item.note == original["note"]
        assert item.prompt == "correctness"
        assert dict(item.values) == {
            k: original[k] for k in ("inputs", "outputs", "reference_outputs")
        }
