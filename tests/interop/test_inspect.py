"""Importing inspect_ai eval logs, the ``.json`` log and the ``.eval`` zip (fixtures
hand-built from the published log schema by ``fixtures/inspect/make_fixtures.py``)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.strategies._inspect import InspectScorer, inspect_match
from inspect_logs import fixture_generator

FIXTURES = Path(__file__).parent / "fixtures" / "inspect"
JSON_LOG = FIXTURES / "capitals.json"
EVAL_LOG = FIXTURES / "capitals.eval"

make_fixtures = fixture_generator()


def _write(tmp_path: Path, log: dict[str, Any]) -> Path:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def test_the_fixtures_are_what_their_generator_writes(tmp_path: Path) -> None:
    assert json.loads(JSON_LOG.read_text()) == make_fixtures.json_log()
    with zipfile.ZipFile(EVAL_LOG) as archive:
        members = {n: json.loads(archive.read(n)) for n in archive.namelist()}
    assert members == make_fixtures.eval_members()


def test_a_json_log_gives_samples_answers_and_the_match_check() -> None:
    imported = read("inspect", JSON_LOG)
    assert (imported.format, imported.version) == ("inspect", "json log v2")
    assert [s.name for s in imported.samples] == ["capitals-1", "capitals-2", "capitals-3"]
    first, second, third = imported.samples
    assert first.parameters[0] == "What is the capital of France?"
    assert first.expected_output == "Paris"
    # a message list stays the parameter, its attachment resolved; several targets
    assert second.parameters[0][1]["content"] == "What is the capital of Germany?"
    assert second.expected_outputs == ("Berlin", "Berlin, Germany")
    assert second.metadata["inspect-metadata"] == {"continent": "Europe"}
    assert imported.outputs == {
        "mockllm-model": {
            "capitals-1": "It is Paris.",
            "capitals-2": "berlin",
            "capitals-3": "Lima, I think",
        }
    }
    recorded = third.metadata["inspect-results"]["mockllm-model"]
    assert recorded["scores"] == {"match": {"value": "I"}}
    assert recorded["model-usage"]["mockllm/model"]["total_tokens"] == 15
    assert imported.checks == (
        {
            "inspect-scorer": {
                "scorer": "match",
                "name": "inspect-match",
                "location": "end",
                "ignore-case": True,
            }
        },
    )
    (case,) = [c for c in imported.test_cases("mockllm-model") if c.tool_calls]
    assert case.tool_calls[0].name == "lookup"
    assert case.tool_calls[0].arguments == {"country": "Peru"}
    assert case.tool_calls[0].result == "Lima"
    assert imported.kept["results"]["scores"][0]["metrics"]["accuracy"]["value"] == 2 / 3


def test_each_epoch_of_an_eval_zip_is_a_build() -> None:
    imported = read("inspect", EVAL_LOG)
    assert imported.version == "eval log v2"
    assert [s.name for s in imported.samples] == ["capitals_eval-a", "capitals_eval-b"]
    assert imported.outputs == {
        "mockllm-model-epoch-1": {
            "capitals_eval-a": "rome",
            "capitals_eval-b": ("The capital is Madrid."),
        },
        "mockllm-model-epoch-2": {"capitals_eval-a": "Milan", "capitals_eval-b": "MADRID"},
    }
    assert imported.checks[0]["inspect-scorer"]["scorer"] == "includes"


@pytest.mark.parametrize("path", [JSON_LOG, EVAL_LOG], ids=["json", "eval"])
def test_rescoring_reproduces_every_recorded_score(path: Path) -> None:
    imported = read("inspect", path)
    (check,) = imported.checks
    options = check["inspect-scorer"]
    strategy = InspectScorer(
        options["scorer"],
        location=options.get("location", "end"),
        ignore_case=options["ignore-case"],
    )
    scorer = options["scorer"]
    compared = 0
    for sample in imported.samples:
        for build, answers in imported.outputs.items():
            recorded = sample.metadata["inspect-results"][build]["scores"][scorer]["value"]
            result = strategy.evaluate(sample, answers[sample.name])
            assert result.score == (1.0 if recorded == "C" else 0.0)
            compared += 1
    assert compared == (3 if path == JSON_LOG else 4)


def test_the_match_semantics() -> None:
    assert inspect_match("The answer is PARIS!", "paris")  # end, case-folded, edges stripped
    assert not inspect_match("The answer is PARIS!", "paris", ignore_case=False)
    assert inspect_match("Paris, France", "paris", location="begin")
    assert not inspect_match("Paris, France", "paris")
    assert inspect_match("  paris. ", "Paris", location="exact")
    assert inspect_match("in paris today", "Paris", location="any")
    assert inspect_match("xMADRIDx", "madrid", scorer="includes")
    assert not inspect_match("xMADRIDx", "madrid", scorer="includes", ignore_case=False)


def test_a_recorded_score_the_rescore_disagrees_with_is_refused(tmp_path: Path) -> None:
    log = make_fixtures.json_log()
    log["samples"][2]["scores"]["match"]["value"] = "C"
    with pytest.raises(ImportFormatError, match="capitals-3: the recorded match score 'C'"):
        read("inspect", _write(tmp_path, log))


def test_the_events_transcript_is_refused_unless_allowed(tmp_path: Path) -> None:
    log = make_fixtures.json_log()
    log["samples"][0]["events"] = [{"event": "model", "input": []}]
    path = _write(tmp_path, log)
    with pytest.raises(ImportFormatError, match="--allow-loss events"):
        read("inspect", path)
    assert read("inspect", path, allow_loss=["events"]).lost == ("events",)


def test_a_model_graded_or_numeric_scorer_is_refused(tmp_path: Path) -> None:
    log = make_fixtures.json_log()
    log["results"]["scores"][0]["scorer"] = "model_graded_qa"
    with pytest.raises(ImportFormatError, match="--allow-loss scorer:model_graded_qa"):
        read("inspect", _write(tmp_path, log))
    log = make_fixtures.json_log()
    log["results"]["scores"][0]["params"] = {"numeric": True}
    with pytest.raises(ImportFormatError, match="numeric"):
        read("inspect", _write(tmp_path, log))
    allowed = read("inspect", _write(tmp_path, log), allow_loss=["scorer:match"])
    assert allowed.checks == ()


def test_an_unfinished_eval_zip_is_refused_naming_the_member(tmp_path: Path) -> None:
    path = tmp_path / "unfinished.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_journal/start.json", "{}")
    with pytest.raises(ImportFormatError, match=r"no header\.json member"):
        read("inspect", path)


def test_the_suite_replays_the_logs_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import", "inspect", str(EVAL_LOG), "-o", "s"]) == 0
    assert "builds: mockllm-model-epoch-1, mockllm-model-epoch-2" in capsys.readouterr().out
    assert main(["run", "s", "-q"]) == 0  # epoch 1: both correct
    assert main(["run", "s", "-q", "--build", "mockllm-model-epoch-2"]) == 1  # Milan
