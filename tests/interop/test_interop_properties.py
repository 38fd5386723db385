"""Properties of the importers: generated Ragas datasets read back every field they hold or are
refused with the line and field named; the re-scoring checks of lm-eval and OpenAI Evals keep
their documented laws for any text."""

from __future__ import annotations

import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.errors import EvalmarkError, ImportFormatError
from evalmark.interop import FORMATS, read, write_suite
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._lm_eval import lm_eval_exact_match
from evalmark.strategies._openai_evals import OpenAIEvalsMatch, openai_fuzzy_normalize

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
TEXTS = st.lists(TEXT, max_size=3)
ROWS = st.fixed_dictionaries(
    {"user_input": TEXT},
    optional={
        "reference": TEXT,
        "reference_contexts": TEXTS,
        "retrieved_contexts": TEXTS,
        "rubrics": st.dictionaries(TEXT, TEXT, max_size=2),
        "reference_topics": TEXTS,
    },
)
UNKNOWN = st.sampled_from(["multi_responses", "score", "id", "trace", "Reference"])


def _read_rows(rows: list[dict[str, Any]], **options: Any) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return read("ragas", path, **options)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=5))
def test_every_ragas_field_read_is_carried_into_the_sample(rows: list[dict[str, Any]]) -> None:
    imported = _read_rows(rows)
    assert [s.name for s in imported.samples] == [f"sample-{i}" for i in range(1, len(rows) + 1)]
    for row, sample in zip(rows, imported.samples, strict=True):
        assert sample.parameters[0] == row["user_input"]
        assert sample.expected_output == row.get("reference", "")
        assert sample.context == tuple(row.get("reference_contexts", ()))
        for key in ("rubrics", "reference_topics"):
            assert sample.metadata.get(f"ragas-{key.replace('_', '-')}") == row.get(key)
        retrieved = imported.extra.get(sample.name, {}).get("retrieval_context")
        assert retrieved == (
            tuple(row["retrieved_contexts"]) if "retrieved_contexts" in row else None
        )


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=4), st.lists(TEXT, min_size=1, max_size=4))
def test_ragas_responses_become_one_build_answering_every_sample(
    rows: list[dict[str, Any]], answers: list[str]
) -> None:
    answered = [{**r, "response": answers[i % len(answers)]} for i, r in enumerate(rows)]
    imported = _read_rows(answered)
    assert imported.outputs == {
        "ragas": {f"sample-{i + 1}": r["response"] for i, r in enumerate(answered)}
    }
    cases = imported.test_cases("ragas")
    assert [c.actual_output for c in cases] == [r["response"] for r in answered]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ROWS, min_size=2, max_size=5), st.data())
def test_a_ragas_row_without_a_response_among_answered_rows_is_named_by_its_line(
    rows: list[dict[str, Any]], data: st.DataObject
) -> None:
    missing = data.draw(st.integers(0, len(rows) - 1))
    answered = [r if i == missing else {**r, "response": "a"} for i, r in enumerate(rows)]
    with pytest.raises(ImportFormatError) as caught:
        _read_rows(answered)
    assert caught.value.line == missing + 1
    assert "response" in str(caught.value)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=4), UNKNOWN, st.data())
def test_an_unknown_ragas_field_is_refused_with_its_line_unless_its_loss_is_allowed(
    rows: list[dict[str, Any]], key: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(rows) - 1))
    rows[at] = {**rows[at], key: "kept?"}
    with pytest.raises(ImportFormatError) as caught:
        _read_rows(rows)
    assert caught.value.line == at + 1
    assert f"--allow-loss {key}" in str(caught.value)
    imported = _read_rows(rows, allow_loss=[key])
    assert imported.lost == (key,)
    assert len(imported.samples) == len(rows)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(ROWS, min_size=1, max_size=4),
    st.sampled_from(["reference_contexts", "retrieved_contexts"]),
    st.one_of(st.integers(), TEXT, st.lists(st.integers(), min_size=1, max_size=2)),
    st.data(),
)
def test_a_ragas_context_that_is_not_a_list_of_texts_is_refused_by_field_and_line(
    rows: list[dict[str, Any]], key: str, bad: Any, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(rows) - 1))
    rows[at] = {**rows[at], key: bad}
    with pytest.raises(ImportFormatError) as caught:
        _read_rows(rows)
    assert caught.value.line == at + 1
    assert key in str(caught.value)


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=3), TEXT)
def test_an_imported_ragas_suite_folder_holds_the_samples_read(
    rows: list[dict[str, Any]], answer: str
) -> None:
    from evalmark import load_samples

    imported = _read_rows([{**r, "response": answer} for r in rows])
    with tempfile.TemporaryDirectory() as folder:
        write_suite(imported, folder, name="imported", checks=["exact-match"])
        assert tuple(load_samples(Path(folder) / "samples.yaml")) == imported.samples


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(FORMATS), st.binary(max_size=64) | TEXT.map(str.encode))
@example("deepeval", b"\x80")  # was a raw UnicodeDecodeError
@example("ragas", b"\x80")
@example("ragas", b"[" * 100_000)  # was a RecursionError (every format)
@example("inspect", b"[" * 100_000)
@example("lm-eval", b"[1]")  # was an AttributeError
@example("lm-eval", b'{"metrics": 5}')  # was a TypeError
@example(
    "lm-eval",
    b'{"arguments": [["p"]], "target": "t", "filtered_resps": "a", '
    b'"metrics": ["exact_match"], "exact_match": "x"}',
)  # was a ValueError
def test_any_bytes_in_any_format_give_an_import_or_a_typed_error(
    format: str, content: bytes
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "samples_task.jsonl"
        path.write_bytes(content)
        with contextlib.suppress(EvalmarkError):  # any other exception fails the property
            read(format, path)


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT, st.booleans(), st.booleans())
def test_lm_eval_exact_match_is_symmetric_and_reflexive(
    a: str, b: str, ignore_case: bool, ignore_punctuation: bool
) -> None:
    options = {"ignore_case": ignore_case, "ignore_punctuation": ignore_punctuation}
    assert lm_eval_exact_match(a, a, **options)
    assert lm_eval_exact_match(a, b, **options) == lm_eval_exact_match(b, a, **options)


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT)
def test_lm_eval_options_only_ever_turn_a_miss_into_a_match(a: str, b: str) -> None:
    strict = lm_eval_exact_match(a, b)
    assert not strict or lm_eval_exact_match(a, b, ignore_case=True)
    assert not strict or lm_eval_exact_match(a, b, ignore_punctuation=True)
    assert not strict or lm_eval_exact_match(a, b, regexes_to_ignore=[r"\s+"])
    assert lm_eval_exact_match(a, b, ignore_case=True) == (a.lower() == b.lower())


@settings(max_examples=examples(60), deadline=None)
@given(TEXT)
def test_openai_fuzzy_normalization_is_idempotent(text: str) -> None:
    once = openai_fuzzy_normalize(text)
    assert openai_fuzzy_normalize(once) == once
    assert once == once.strip()
    assert "  " not in once


def _passes(kind: str, answer: str, ideal: str, **options: Any) -> bool:
    sample = Sample(name="s", parameters=Parameters(["q"]), expected_output=ideal)
    return OpenAIEvalsMatch(kind, **options).evaluate(sample, answer).passed


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT)
def test_openai_match_implies_includes_and_fuzzy_is_symmetric(answer: str, ideal: str) -> None:
    if _passes("Match", answer, ideal):
        assert _passes("Includes", answer, ideal)
    assert _passes("FuzzyMatch", answer, ideal) == _passes("FuzzyMatch", ideal, answer)


@settings(max_examples=examples(60), deadline=None)
@given(TEXT, TEXT, TEXT)
def test_openai_match_and_includes_accept_any_answer_built_around_the_ideal(
    before: str, ideal: str, after: str
) -> None:
    assert _passes("Match", ideal + after, ideal)
    assert _passes("Includes", before + ideal + after, ideal)
    assert _passes("Includes", (before + ideal + after).upper(), ideal.upper(), ignore_case=True)


LM_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=8)
FILTERS = st.lists(
    st.sampled_from(["strict-match", "flexible-extract", "none"]),
    min_size=1,
    max_size=2,
    unique=True,
)


@st.composite
def lm_eval_logs(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows of an lm-eval samples log: each document once per filter, exact_match recorded."""
    docs = draw(st.lists(st.tuples(LM_TEXT, LM_TEXT), min_size=1, max_size=4))
    filters = draw(FILTERS)
    rows = []
    for doc_id, (prompt, target) in enumerate(docs):
        for name in filters:
            answer = draw(st.sampled_from([target, target + "!", "x"]))
            rows.append(
                {
                    "doc_id": doc_id,
                    "target": target,
                    "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["\n"]}}},
                    "filtered_resps": [answer],
                    "filter": name,
                    "metrics": ["exact_match"],
                    "exact_match": float(answer == target),
                }
            )
    return draw(st.permutations(rows)), filters


def _read_lm_eval(rows: list[dict[str, Any]]) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "samples_task_2024-05-01T12-00-00.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return read("lm-eval", path)


@settings(max_examples=examples(40), deadline=None)
@given(lm_eval_logs())
def test_an_lm_eval_log_gives_one_sample_per_document_and_one_build_per_filter(
    drawn: tuple[list[dict[str, Any]], list[str]],
) -> None:
    rows, filters = drawn
    imported = _read_lm_eval(rows)
    docs = {r["doc_id"]: r for r in rows}
    assert sorted(s.name for s in imported.samples) == sorted(f"task-{d}" for d in docs)
    for sample in imported.samples:
        row = docs[int(sample.name.split("-")[1])]
        assert sample.parameters[0] == row["arguments"]["gen_args_0"]["arg_0"]
        assert sample.expected_output == row["target"]
    assert sorted(imported.outputs) == sorted(filters)
    for row in rows:
        assert imported.outputs[row["filter"]][f"task-{row['doc_id']}"] == row["filtered_resps"][0]
    assert imported.kept == {"task": "task"}


@settings(max_examples=examples(40), deadline=None)
@given(lm_eval_logs(), st.data())
def test_an_lm_eval_row_whose_recorded_score_differs_from_the_rescore_is_named_by_line(
    drawn: tuple[list[dict[str, Any]], list[str]], data: st.DataObject
) -> None:
    rows, _ = drawn
    at = data.draw(st.integers(0, len(rows) - 1))
    rows[at] = {**rows[at], "exact_match": 1.0 - rows[at]["exact_match"]}
    with pytest.raises(ImportFormatError) as caught:
        _read_lm_eval(rows)
    assert caught.value.line == at + 1
    assert "exact_match" in str(caught.value)
