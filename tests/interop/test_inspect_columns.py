"""The inspect importer re-scores ``match``/``includes`` over the whole column in one pass:
the same verdicts as scoring each pair, and the first faulty sample (in the log's order) is
the one refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.strategies._inspect import inspect_match, inspect_match_column
from oracles import inspect_match_verdict as verdict

_TEXT = st.text(alphabet="aAbB ,.!?\tßẞİi", max_size=8)
_OPTIONS = st.sampled_from(
    [("includes", "end")] + [("match", loc) for loc in ("begin", "end", "any", "exact")]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_TEXT, st.lists(_TEXT, max_size=3)), max_size=12),
    _OPTIONS,
    st.booleans(),
)
def test_the_column_rescore_equals_scoring_each_pair(
    rows: list[tuple[str, list[str]]], options: tuple[str, str], ignore_case: bool
) -> None:
    scorer, location = options
    answers = [answer for answer, _ in rows]
    targets = [wanted for _, wanted in rows]
    got = inspect_match_column(
        answers, targets, scorer=scorer, location=location, ignore_case=ignore_case
    )
    assert got == [
        any(verdict(a, t, scorer, location, ignore_case) for t in wanted) for a, wanted in rows
    ]
    for answer, wanted in rows:
        for target in wanted:
            assert inspect_match(
                answer, target, scorer=scorer, location=location, ignore_case=ignore_case
            ) == verdict(answer, target, scorer, location, ignore_case)


def test_columns_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="same length"):
        inspect_match_column(["a"], [])


def _sample(index: int, answer: Any, target: Any, verdict: str) -> dict[str, Any]:
    output = answer if not isinstance(answer, str) else {"completion": answer}
    return {
        "id": index,
        "epoch": 1,
        "input": f"Question {index}?",
        "target": target,
        "output": output,
        "scores": {"match": {"value": verdict, "answer": "x"}},
    }


def _log(tmp_path: Path, samples: list[dict[str, Any]]) -> Path:
    log = {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "results": {"scores": [{"name": "match", "scorer": "match", "params": {}}]},
        "samples": samples,
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _good(count: int) -> list[dict[str, Any]]:
    return [
        _sample(i, f"It is {i}.", str(i) if i % 2 else [str(i), "x"], "C")
        for i in range(1, count + 1)
    ]


def test_answers_read_over_the_column_keep_every_shape(tmp_path: Path) -> None:
    samples = _good(6)
    # no completion: the first choice's text parts are the answer
    samples[2]["output"] = {
        "completion": None,
        "choices": [{"message": {"content": [{"type": "text", "text": "It is 3."}]}}],
    }
    samples[4]["scores"]["match"]["value"] = "I"
    samples[4]["output"] = {"completion": "no idea"}
    imported = read("inspect", _log(tmp_path, samples))
    answers = imported.outputs["m"]
    assert answers["t-3"] == "It is 3."
    assert answers["t-5"] == "no idea"
    assert list(answers) == [f"t-{i}" for i in range(1, 7)]


def test_an_earlier_sample_without_an_answer_is_refused_before_a_later_parity_error(
    tmp_path: Path,
) -> None:
    samples = _good(5)
    samples[1]["output"] = "not an object"
    samples[3]["scores"]["match"]["value"] = "I"
    with pytest.raises(ImportFormatError, match="no output text") as error:
        read("inspect", _log(tmp_path, samples))
    assert error.value.problems[0].record == "output"


def test_an_earlier_parity_error_is_refused_before_a_later_bad_sample(tmp_path: Path) -> None:
    samples = _good(5)
    samples[1]["scores"]["match"]["value"] = "I"
    samples[3]["output"] = {"completion": None}
    with pytest.raises(ImportFormatError, match="t-2: the recorded match score 'I'"):
        read("inspect", _log(tmp_path, samples))
    samples[3] = {**samples[3], "input": 7}
    with pytest.raises(ImportFormatError, match="t-2: the recorded match score 'I'"):
        read("inspect", _log(tmp_path, samples))
    samples[3] = {**samples[0]}  # a repeated sample
    with pytest.raises(ImportFormatError, match="t-2: the recorded match score 'I'"):
        read("inspect", _log(tmp_path, samples))


def test_a_later_fault_is_still_refused_when_the_earlier_samples_are_sound(
    tmp_path: Path,
) -> None:
    samples = _good(5)
    samples[3]["input"] = 7
    with pytest.raises(ImportFormatError, match="'input' must be a text"):
        read("inspect", _log(tmp_path, samples))
    samples = _good(5)
    samples[4]["scores"]["match"]["value"] = "maybe"
    with pytest.raises(ImportFormatError, match="t-5: the recorded match score 'maybe'"):
        read("inspect", _log(tmp_path, samples))
