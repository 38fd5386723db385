"""Whatever a sample's output and scores hold (another field, another type, no value), the
import keeps every field and value in the log's order and re-scores them as the JSON text
reads, in a ``.json`` log and a ``.eval`` zip alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from inspect_logs import json_log, write_log

BUILD = "mockllm-model"


def _recorded(path: Path) -> list[dict[str, Any]]:
    return [s.metadata["inspect-results"][BUILD] for s in read("inspect", path).samples]


CHANGES: list[tuple[str, Any]] = [
    ("output", {"model": "m", "completion": "It is Paris.", "new_field": [1, {"a": None}]}),
    ("output", {"choices": [{"message": {"role": "assistant", "content": "It is Paris."}}]}),
    ("output", {"completion": None, "choices": [{"message": {"content": "It is Paris."}}]}),
    ("output", {"completion": "It is Paris.", "usage": None, "error": "e", "time": 1.5}),
    ("scores", {"match": {"value": "C", "answer": "Paris", "new_field": {"x": 1}}}),
    ("scores", {"match": {"value": "C", "explanation": None, "history": []}, "other": 3}),
    ("scores", {"match": {"value": "C"}, "other": {"value": 0.5, "metadata": {"k": "v"}}}),
]


@pytest.mark.parametrize("suffix", [".json", ".eval"])
@pytest.mark.parametrize(("field", "value"), CHANGES)
def test_an_output_or_scores_of_any_shape_is_kept_verbatim(
    tmp_path: Path, suffix: str, field: str, value: Any
) -> None:
    log = json_log()
    log["samples"][0][field] = value
    recorded = _recorded(write_log(tmp_path / f"log{suffix}", log))
    assert recorded[0][field] == value
    assert list(recorded[0][field]) == list(value)  # every key, none added, in order
    for results, sample in zip(recorded[1:], log["samples"][1:], strict=True):
        assert results[field] == sample[field]
    imported = read("inspect", tmp_path / f"log{suffix}")
    assert imported.outputs[BUILD]["capitals-1"] == "It is Paris."


@pytest.mark.parametrize("suffix", [".json", ".eval"])
def test_a_score_without_a_value_is_refused_in_the_same_words(tmp_path: Path, suffix: str) -> None:
    log = json_log()
    log["samples"][1]["scores"] = {"match": {"answer": "berlin"}}
    with pytest.raises(ImportFormatError) as caught:
        read("inspect", write_log(tmp_path / f"log{suffix}", log))
    assert "the recorded match score None differs from the re-score C" in str(caught.value)


@pytest.mark.parametrize("suffix", [".json", ".eval"])
@pytest.mark.parametrize("output", ["It is Paris.", [], None])
def test_an_output_that_is_not_an_object_has_no_answer(
    tmp_path: Path, suffix: str, output: Any
) -> None:
    log = json_log()
    log["samples"][0]["output"] = output
    with pytest.raises(ImportFormatError) as caught:
        read("inspect", write_log(tmp_path / f"log{suffix}", log))
    assert "the sample has no output text" in str(caught.value)
