"""Importing Ragas EvaluationDataset JSONL, single-turn and multi-turn (hand-built fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read

FIXTURES = Path(__file__).parent / "fixtures" / "ragas"


def test_single_turn_samples_with_their_responses_as_a_build() -> None:
    imported = read("ragas", FIXTURES / "single_turn.jsonl")
    france, japan = imported.samples
    assert france.parameters[0] == "What is the capital of France?"
    assert france.expected_output == "Paris"
    assert france.context == ("France's capital is Paris.",)
    assert japan.metadata["ragas-rubrics"]["score5_description"] == "Tokyo"
    assert imported.outputs == {"ragas": {"sample-1": "Paris.", "sample-2": "Kyoto"}}
    cases = imported.test_cases("ragas")
    assert cases[1].retrieval_context == ("Kyoto was the imperial capital until 1869.",)


def test_a_multi_turn_sample_keeps_the_conversation_and_tool_calls() -> None:
    imported = read("ragas", FIXTURES / "multi_turn.jsonl")
    (sample,) = imported.samples
    assert [m["type"] for m in sample.parameters[0]] == ["human", "ai", "human"]
    assert sample.metadata == {"ragas-reference-topics": ["restaurants"]}
    assert imported.outputs == {}
    assert imported.extra["sample-1"]["expected_tool_calls"][0].arguments["people"] == 2


def test_an_unknown_field_is_refused_with_its_line(tmp_path: Path) -> None:
    rows = (FIXTURES / "single_turn.jsonl").read_text().splitlines()
    second = json.loads(rows[1])
    second["multi_responses"] = ["Kyoto", "Tokyo"]
    path = tmp_path / "d.jsonl"
    path.write_text(rows[0] + "\n" + json.dumps(second) + "\n")
    with pytest.raises(ImportFormatError) as caught:
        read("ragas", path)
    assert caught.value.line == 2
    assert "--allow-loss multi_responses" in str(caught.value)


def test_the_suite_replays_with_a_named_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    source = str(FIXTURES / "single_turn.jsonl")
    assert main(["import", "ragas", source, "-o", "s", "--check", "exact-match"]) == 0
    assert main(["run", "s", "-q"]) == 1  # Kyoto is not Tokyo
