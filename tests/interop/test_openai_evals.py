"""Importing OpenAI Evals registry specs, their samples and a run's record log (hand-built
fixtures from the registry's published layout: the hosted API cannot be called here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._openai_evals import OpenAIEvalsMatch, openai_fuzzy_normalize

FIXTURES = Path(__file__).parent / "fixtures" / "openai_evals"
SPEC = FIXTURES / "evals" / "capitals.yaml"
DATA = str(FIXTURES / "data")
LOG = str(FIXTURES / "run.log.jsonl")


def test_a_spec_becomes_samples_with_its_class_as_the_check() -> None:
    imported = read("openai-evals", SPEC, data_dir=DATA, log=LOG)
    assert [s.name for s in imported.samples] == [f"capitals.dev.v0.{i}" for i in range(3)]
    france, netherlands, japan = imported.samples
    assert france.parameters[0] == [
        {"role": "system", "content": "Answer with the city only."},
        {"role": "user", "content": "What is the capital of France?"},
    ]
    assert netherlands.parameters[0] == "What is the capital of the Netherlands?"
    assert netherlands.expected_outputs == ("Amsterdam", "The Hague")
    assert japan.expected_output == "Tokyo"
    assert imported.checks == ({"openai-evals": {"class": "FuzzyMatch"}},)
    assert imported.outputs == {
        "gpt-4o-mini": {
            "capitals.dev.v0.0": "paris.",
            "capitals.dev.v0.1": "It is Amsterdam",
            "capitals.dev.v0.2": "Kyoto",
        }
    }
    assert imported.kept["class"] == "evals.elsuite.basic.fuzzy_match:FuzzyMatch"


def test_samples_jsonl_starts_from_the_specs_folder_by_default() -> None:
    with pytest.raises(ImportFormatError, match="pass --data-dir"):
        read("openai-evals", SPEC)


def test_fuzzy_match_follows_openai_evals_not_evalmarks_fuzzy() -> None:
    assert openai_fuzzy_normalize("The  Capital, of France!") == "capital of france"
    check = OpenAIEvalsMatch("FuzzyMatch")
    sample = Sample(name="s", parameters=Parameters(["q"]), expected_output="The Hague")
    assert check.evaluate(sample, "hague").passed  # the article goes, then containment
    assert check.evaluate(sample, "It is the Hague, of course").passed
    assert not check.evaluate(sample, "").passed  # one empty side never matches
    empty = Sample(name="e", parameters=Parameters(["q"]), expected_output="")
    assert check.evaluate(empty, "...").passed  # both empty after normalization


def test_match_includes_and_json_match_semantics() -> None:
    sample = Sample(name="s", parameters=Parameters(["q"]), expected_output="Paris")
    assert OpenAIEvalsMatch("Match").evaluate(sample, "Paris, France").passed
    assert not OpenAIEvalsMatch("Match").evaluate(sample, "It is Paris").passed
    assert OpenAIEvalsMatch("Includes").evaluate(sample, "It is Paris").passed
    assert not OpenAIEvalsMatch("Includes").evaluate(sample, "it is paris").passed
    assert OpenAIEvalsMatch("Includes", ignore_case=True).evaluate(sample, "paris").passed
    js = Sample(name="j", parameters=Parameters(["q"]), expected_output='{"a": [1, 2]}')
    assert OpenAIEvalsMatch("JsonMatch").evaluate(js, '{ "a":[1,2] }').passed
    assert not OpenAIEvalsMatch("JsonMatch").evaluate(js, '{"a": [2, 1]}').passed


def test_a_custom_class_is_refused_unless_allowed(tmp_path: Path) -> None:
    graded = FIXTURES / "evals" / "graded.yaml"
    custom = tmp_path / "custom.yaml"
    text = graded.read_text(encoding="utf-8").replace(
        "evals.elsuite.modelgraded.classify:ModelBasedClassify", "my_evals.scoring:Custom"
    )
    custom.write_text(text, encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        read("openai-evals", custom, data_dir=DATA)
    assert caught.value.line == 5
    assert "--allow-loss class:Custom" in str(caught.value)
    with pytest.raises(ImportFormatError, match=r"args\.eval_type"):
        read("openai-evals", custom, data_dir=DATA, allow_loss=["class:Custom"])
    losses = ["class:Custom", "args.eval_type", "args.modelgraded_spec"]
    imported = read("openai-evals", custom, data_dir=DATA, allow_loss=losses)
    assert imported.checks == ()
    assert imported.lost == tuple(losses)


def test_the_replayed_run_reproduces_the_logs_accuracy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["import", "openai-evals", str(SPEC), "--data-dir", DATA, "--log", LOG, "-o", "s"]
    assert main(argv) == 0
    assert main(["run", "s", "-q"]) == 1
    report = json.loads((tmp_path / "out" / "s" / "s-gpt-4o-mini.json").read_text())
    final = json.loads(Path(LOG).read_text().splitlines()[1])["final_report"]
    passed = [row["verdict"] == "pass" for row in report["samples"]]
    source = report["metadata"]["source"]
    assert (source["format"], source["version"]) == ("openai-evals", "registry")
    assert source["files"] == ["capitals.yaml", "samples.jsonl", "run.log.jsonl"]
    assert source["sha256"] == read("openai-evals", SPEC, data_dir=DATA, log=LOG).sha256
    assert sum(passed) / len(passed) == pytest.approx(final["accuracy"])


def test_a_conversation_becomes_the_test_cases_input_as_json() -> None:
    imported = read("openai-evals", SPEC, data_dir=DATA, log=LOG)
    case = imported.test_cases("gpt-4o-mini")[0]
    assert json.loads(case.input)[1] == {
        "role": "user",
        "content": "What is the capital of France?",
    }
    assert case.actual_output == "paris."
