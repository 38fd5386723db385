"""Properties of the streaming scorer's bad-row policies for generated rows and chunk sizes:
rows keep their order, ``skip`` drops exactly the bad rows, ``null`` keeps them with null
scores, ``fail`` refuses a file with any bad row, and good rows score as the batch kernel does."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import EvalmarkError, ScoringInputError
from evalmark.metrics import json_match, token_f1_batch
from evalmark.scoring import ScoreOptions, parse_metrics, score_file

texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
# a good row (True) or a row whose actual text is missing or null (False)
rows = st.lists(
    st.tuples(st.booleans(), texts, texts, st.sampled_from(["missing", "null"])),
    min_size=1,
    max_size=25,
)


def _write(path: Path, generated: list[tuple[bool, str, str, str]]) -> None:
    lines = []
    for i, (good, expected, actual, how) in enumerate(generated):
        row: dict[str, Any] = {"id": f"r{i}", "expected": expected}
        if good:
            row["actual"] = actual
        elif how == "null":
            row["actual"] = None
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    path.write_text("".join(lines), encoding="utf-8")


@settings(max_examples=examples(60))
@given(rows, st.integers(1, 9), st.sampled_from(["skip", "null", "fail"]))
@example([(True, "a", "a", "null"), (False, "b", "", "null")], 1, "null")
def test_bad_row_policies_keep_order_and_drop_or_null_exactly_the_bad_rows(
    generated: list[tuple[bool, str, str, str]], chunk_size: int, policy: Any
) -> None:
    good = [(f"r{i}", e, a) for i, (ok, e, a, _) in enumerate(generated) if ok]
    scores = dict(
        zip(
            [i for i, _, _ in good],
            token_f1_batch([e for _, e, _ in good], [a for _, _, a in good]).tolist(),
            strict=True,
        )
    )
    options = ScoreOptions(parse_metrics("token_f1"), chunk_size=chunk_size, on_error=policy)
    with tempfile.TemporaryDirectory() as folder:
        src, out = Path(folder) / "rows.jsonl", Path(folder) / "scores.jsonl"
        _write(src, generated)
        if policy == "fail" and len(good) < len(generated):
            with pytest.raises(ScoringInputError):
                score_file(src, options, output=out)
            assert not out.exists()
            return
        summary = score_file(src, options, output=out)
        written = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    every = [f"r{i}" for i in range(len(generated))]
    if policy == "skip":
        assert [r["id"] for r in written] == [i for i, _, _ in good]
        assert summary.skipped == len(generated) - len(good)
    else:
        assert [r["id"] for r in written] == every
    for row in written:
        assert row["token_f1"] == scores.get(row["id"])


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=20), st.integers(1, 7))
def test_a_csv_and_a_jsonl_file_of_the_same_rows_score_the_same_bytes(
    pairs: list[tuple[str, str]], chunk_size: int
) -> None:
    options = ScoreOptions(parse_metrics("token_f1,levenshtein_distance"), chunk_size=chunk_size)
    with tempfile.TemporaryDirectory() as folder:
        jsonl, table = Path(folder) / "rows.jsonl", Path(folder) / "rows.csv"
        _write(jsonl, [(True, e, a, "") for e, a in pairs])
        with table.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "expected", "actual"])
            writer.writerows([f"r{i}", e, a] for i, (e, a) in enumerate(pairs))
        outputs = []
        for src in (jsonl, table):
            out = src.with_suffix(".out.jsonl")
            score_file(src, options, output=out)
            outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


documents = st.sampled_from(['{"a": 1}', '{"a": 1.0}', "[1, 2]", "[2, 1]", '"x"', "null"]) | texts


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(documents, documents), min_size=1, max_size=30), st.integers(1, 40))
def test_rows_a_kernel_rejects_get_nulls_and_every_other_row_its_own_score(
    pairs: list[tuple[str, str]], chunk_size: int
) -> None:
    expected_scores: list[Any] = []
    for e, a in pairs:
        try:
            expected_scores.append(json_match(e, a))
        except EvalmarkError:
            expected_scores.append(None)
    options = ScoreOptions(parse_metrics("json_match"), chunk_size=chunk_size)
    with tempfile.TemporaryDirectory() as folder:
        src, out = Path(folder) / "rows.jsonl", Path(folder) / "scores.jsonl"
        _write(src, [(True, e, a, "") for e, a in pairs])
        score_file(src, options, output=out)
        written = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["json_match"] for r in written] == expected_scores


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=20), st.integers(0, 12))
def test_a_length_cap_nulls_exactly_the_rows_over_it(
    pairs: list[tuple[str, str]], cap: int
) -> None:
    scores = token_f1_batch([e for e, _ in pairs], [a for _, a in pairs]).tolist()
    options = ScoreOptions(parse_metrics("token_f1"), max_chars=cap, chunk_size=7)
    with tempfile.TemporaryDirectory() as folder:
        src, out = Path(folder) / "rows.jsonl", Path(folder) / "scores.jsonl"
        _write(src, [(True, e, a, "") for e, a in pairs])
        score_file(src, options, output=out)
        written = [json.loads(line)["token_f1"] for line in out.read_text("utf-8").splitlines()]
    assert written == [
        None if max(len(e), len(a)) > cap else score
        for (e, a), score in zip(pairs, scores, strict=True)
    ]
