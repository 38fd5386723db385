"""Importing DeepEval goldens written by DeepEval's own ``save_as`` (JSON, JSONL, CSV)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read

FIXTURES = Path(__file__).parent / "fixtures" / "deepeval"


@pytest.mark.parametrize("name", ["goldens.json", "goldens.jsonl", "goldens.csv"])
def test_every_file_type_reads_the_same_goldens(name: str) -> None:
    imported = read("deepeval", FIXTURES / name)
    france, japan = imported.samples
    assert france.parameters[0] == "What is the capital of France?"
    assert france.expected_output == "Paris"
    assert france.context == ("France's capital is Paris.", "Paris is on the Seine.")
    assert france.metadata == {"deepeval-comments": "checked by hand"}
    assert japan.metadata == {"deepeval-additional-metadata": {"difficulty": "easy"}}
    assert imported.outputs == {"deepeval": {"golden-1": "Paris.", "golden-2": "Kyoto"}}
    case = imported.test_cases("deepeval")[0]
    assert case.retrieval_context == ("Paris is the capital and largest city of France.",)
    assert [(c.name, c.arguments) for c in case.tool_calls] == [
        ("search", {"q": "capital of France"})
    ]
    assert case.expected_tool_calls is not None
    assert [c.name for c in case.expected_tool_calls] == ["search"]
    assert imported.checks == ()


def test_a_field_it_does_not_carry_is_refused(tmp_path: Path) -> None:
    rows = json.loads((FIXTURES / "goldens.json").read_text())
    rows[1]["expectations"] = {"steps": ["look it up"]}
    path = tmp_path / "goldens.json"
    path.write_text(json.dumps(rows, indent=2))
    with pytest.raises(ImportFormatError) as caught:
        read("deepeval", path)
    assert "--allow-loss expectations" in str(caught.value)
    assert caught.value.line is not None and caught.value.line > 30  # the second golden
    assert read("deepeval", path, allow_loss=["expectations"]).lost == ("expectations",)


def test_a_partial_recorded_build_is_refused(tmp_path: Path) -> None:
    lines = (FIXTURES / "goldens.jsonl").read_text().splitlines()
    second = json.loads(lines[1])
    second["actual_output"] = None
    path = tmp_path / "goldens.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    with pytest.raises(ImportFormatError, match="every answer") as caught:
        read("deepeval", path)
    assert caught.value.line == 2


def test_the_suite_needs_a_named_check_and_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    source = str(FIXTURES / "goldens.csv")
    assert main(["import", "deepeval", source, "-o", "s"]) == 2
    assert "--check KIND" in capsys.readouterr().err
    assert not (tmp_path / "s" / "suite.yaml").exists()
    assert main(["import", "deepeval", source, "-o", "s", "--check", "exact-match"]) == 0
    cases = (tmp_path / "s" / "testcases" / "deepeval.jsonl").read_text().splitlines()
    assert json.loads(cases[0])["retrieval-context"] == [
        "Paris is the capital and largest city of France."
    ]
    assert main(["run", "s", "-q"]) == 1  # Kyoto is not Tokyo
    assert "golden-2" in capsys.readouterr().out
