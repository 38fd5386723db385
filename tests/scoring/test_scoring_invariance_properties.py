"""Invariances of ``score_file`` over generated rows: a row's score depends on that row only (not
on its neighbours, their order, or the number of workers), the summary counts every row and its
extremes are the extremes of the scores written, file formats are read from the extension in any
case, and a renamed metric is refused with its new name."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.scoring import ScoreOptions, parse_metrics, score_file
from evalmark.scoring._formats import INPUT_FORMATS, OUTPUT_FORMATS, input_format, output_format
from evalmark.scoring._registry import _RENAMED

TEXTS = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
WORDS = st.lists(st.sampled_from(["a", "b", "the", "cat", "名", "é"]), max_size=5).map(" ".join)
PAIRS = st.lists(st.tuples(TEXTS | WORDS, TEXTS | WORDS), min_size=1, max_size=20)
METRICS = st.lists(
    st.sampled_from(["token_f1", "levenshtein_distance", "squad_exact_match", "rouge_l"]),
    min_size=1,
    max_size=3,
    unique=True,
)


def _write(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    lines = (json.dumps({"id": i, "expected": e, "actual": a}) + "\n" for i, e, a in rows)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _scores(
    folder: Path, rows: list[tuple[str, str, str]], metrics: list[str], workers: int | None = None
) -> tuple[dict[str, dict[str, Any]], Any]:
    src = _write(folder / "in.jsonl", rows)
    out = folder / "out.jsonl"
    options = ScoreOptions(parse_metrics(metrics), chunk_size=4, workers=workers)
    summary = score_file(src, options, output=out)
    written = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [row["id"] for row in written] == [i for i, _, _ in rows]
    return {row["id"]: row for row in written}, summary


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, METRICS, st.randoms(use_true_random=False))
def test_a_rows_score_does_not_depend_on_the_order_of_the_rows(
    pairs: list[tuple[str, str]], metrics: list[str], rng: Any
) -> None:
    rows = [(f"r{i}", e, a) for i, (e, a) in enumerate(pairs)]
    shuffled = list(rows)
    rng.shuffle(shuffled)
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        first, summary = _scores(Path(one), rows, metrics)
        second, other = _scores(Path(two), shuffled, metrics)
    assert first == second
    for name in metrics:
        a, b = summary.metrics[name], other.metrics[name]
        assert (a.count, a.nulls, a.min, a.max, a.p50) == (b.count, b.nulls, b.min, b.max, b.p50)
        assert a.mean == pytest.approx(b.mean, abs=1e-12)


@settings(max_examples=examples(15), deadline=None)
@given(PAIRS, METRICS, st.data())
def test_a_row_scored_alone_scores_as_it_does_among_the_others(
    pairs: list[tuple[str, str]], metrics: list[str], data: st.DataObject
) -> None:
    rows = [(f"r{i}", e, a) for i, (e, a) in enumerate(pairs)]
    picked = data.draw(st.sampled_from(rows))
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        together, _ = _scores(Path(one), rows, metrics)
        alone, _ = _scores(Path(two), [picked], metrics)
    assert alone[picked[0]] == together[picked[0]]


@settings(max_examples=examples(15), deadline=None)
@given(PAIRS, METRICS)
def test_two_workers_write_what_one_writes(
    pairs: list[tuple[str, str]], metrics: list[str]
) -> None:
    rows = [(f"r{i}", e, a) for i, (e, a) in enumerate(pairs)]
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
        serial, summary = _scores(Path(one), rows, metrics, workers=1)
        parallel, other = _scores(Path(two), rows, metrics, workers=2)
    assert serial == parallel
    assert summary.as_dict() == other.as_dict()


@settings(max_examples=examples(20), deadline=None)
@given(PAIRS, METRICS)
def test_the_summary_counts_every_row_and_its_extremes_are_the_scores_extremes(
    pairs: list[tuple[str, str]], metrics: list[str]
) -> None:
    rows = [(f"r{i}", e, a) for i, (e, a) in enumerate(pairs)]
    with tempfile.TemporaryDirectory() as folder:
        written, summary = _scores(Path(folder), rows, metrics)
    assert summary.rows == len(rows) and summary.skipped == 0
    for name in metrics:
        values = [float(row[name]) for row in written.values() if row[name] is not None]
        stats = summary.metrics[name]
        assert stats.count == len(values) and stats.nulls == len(rows) - len(values)
        if values:
            assert stats.min == min(values) and stats.max == max(values)
            assert stats.mean is not None and stats.min <= stats.mean <= stats.max
            assert stats.p5 is not None and stats.p50 is not None and stats.p95 is not None
            assert stats.min <= stats.p5 <= stats.p50 <= stats.p95 <= stats.max


@settings(max_examples=examples(200))
@given(
    st.sampled_from(sorted(set(INPUT_FORMATS) | set(OUTPUT_FORMATS))),
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=8),
)
def test_the_format_is_read_from_the_extension_in_any_case(
    suffix: str, upper: list[bool], stem: str
) -> None:
    written = "".join(c.upper() if up else c for c, up in zip(suffix, upper, strict=False))
    path = Path(stem + written)
    for formats, read in ((INPUT_FORMATS, input_format), (OUTPUT_FORMATS, output_format)):
        if suffix in formats:
            assert read(path) == formats[suffix]
        else:
            with pytest.raises(ValueError, match="cannot tell"):
                read(path)


@settings(max_examples=examples(100))
@given(st.sampled_from(sorted(_RENAMED)), METRICS, st.integers(0, 3))
def test_a_renamed_metric_is_refused_with_its_new_name_wherever_it_stands(
    old: str, others: list[str], at: int
) -> None:
    names = list(others)
    names.insert(min(at, len(names)), old)
    with pytest.raises(ValueError, match=_RENAMED[old]):
        parse_metrics(",".join(names))
    assert [spec.name for spec in parse_metrics(others)] == others
