"""OpenAI Evals' ModelBasedClassify imported as an llm-judge check whose template is the
modelgraded prompt as written, replayed from a judge cassette (fixtures hand-built in the
registry's layout)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.models import ScriptedChat
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._choice_judge import ChoiceJudge, read_choice

FIXTURES = Path(__file__).parent / "fixtures" / "openai_evals"
GRADED = FIXTURES / "evals" / "graded.yaml"
DATA = str(FIXTURES / "data")
PROMPT = (FIXTURES / "modelgraded" / "closedqa.yaml").read_text(encoding="utf-8")

JUDGES = """\
from evalmark.models import ScriptedChat


def recording():
    return ScriptedChat(
        ["Paris is the reference city.\\nY", "Amsterdam matches.\\nY", "Kyoto is not Tokyo.\\nN"],
        model_id="grader",
    )


def offline():
    return ScriptedChat([], model_id="grader")
"""


def _log(tmp_path: Path) -> Path:
    answers = ["paris.", "It is Amsterdam", "Kyoto"]
    rows = [{"spec": {"completion_fns": ["gpt-4o-mini"], "eval_name": "graded.dev.v0"}}]
    rows += [
        {"sample_id": f"graded.dev.v0.{i}", "type": "sampling", "data": {"sampled": [a]}}
        for i, a in enumerate(answers)
    ]
    path = tmp_path / "run.log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_modelgraded_prompt_is_the_checks_template_as_written() -> None:
    imported = read("openai-evals", GRADED, data_dir=DATA)
    (check,) = imported.checks
    options = check["llm-judge"]
    template = options["template"]
    assert "[Question]: {question}\n[Reference]: {expected_output}\n[Answer]: {response}" in (
        template
    )
    written = template.replace("{question}", "{input}").replace("{response}", "{completion}")
    assert written.replace("{expected_output}", "{ideal}") in PROMPT.replace("\n    ", "\n")
    assert options["choice-strings"] == ["Y", "N"]
    assert options["choice-scores"] == {"Y": 1.0, "N": 0.0}
    assert (options["choice-at"], options["threshold"]) == ("last", 1.0)
    assert [Path(f).name for f in imported.files] == [
        "graded.yaml",
        "samples.jsonl",
        "closedqa.yaml",
    ]


def test_a_placeholder_without_a_variable_is_refused(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "modelgraded").mkdir()
    spec = GRADED.read_text(encoding="utf-8").replace("samples_jsonl: capitals/", "samples_jsonl: ")
    (tmp_path / "evals" / "graded.yaml").write_text(spec, encoding="utf-8")
    (tmp_path / "evals" / "samples.jsonl").write_text('{"input": "q", "ideal": "a"}\n')
    (tmp_path / "modelgraded" / "closedqa.yaml").write_text(
        PROMPT.replace("{ideal}", "{criteria}"), encoding="utf-8"
    )
    with pytest.raises(ImportFormatError, match=r"\{criteria\}.*--allow-loss modelgraded.prompt"):
        read("openai-evals", tmp_path / "evals" / "graded.yaml")
    (tmp_path / "modelgraded" / "closedqa.yaml").unlink()
    with pytest.raises(ImportFormatError, match="modelgraded spec 'closedqa' not found"):
        read("openai-evals", tmp_path / "evals" / "graded.yaml")


@pytest.mark.parametrize(
    ("reply", "at", "choice"),
    [
        ("It names Paris.\nY", "last", "Y"),
        ("It names Paris.\nAnswer: N.", "last", "N"),
        ("Y\nbecause it names Paris", "first", "Y"),
        ("no choice here", "last", None),
    ],
)
def test_the_choice_is_read_from_the_replys_lines(reply: str, at: str, choice: str | None) -> None:
    assert read_choice(reply, ["Y", "N"], at) == choice


def test_the_choice_judge_scores_the_choice_and_sends_the_template() -> None:
    model = ScriptedChat(["Looks right.\nY", "gibberish"], model_id="grader")
    judge = ChoiceJudge(
        "Q: {question} A: {response}",
        model,
        choice_strings=["Y", "N"],
        choice_scores={"Y": 1.0, "N": 0.0},
        threshold=1.0,
        name="graded",
    )
    sample = Sample(
        name="s", parameters=Parameters(["Capital of France?"]), expected_output="Paris"
    )
    passed = judge.evaluate(sample, "Paris")
    assert passed.passed and passed.metadata["choice"] == "Y"
    assert judge.messages({"question": "q", "response": "a"})[0]["content"].startswith("Q: q A: a")
    broken = judge.evaluate(sample, "Paris")
    assert broken.error is not None and broken.error.kind == "parse"


def test_the_imported_suite_replays_the_judge_from_its_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "judges.py").write_text(JUDGES, encoding="utf-8")
    base = ["import", "openai-evals", str(GRADED), "--data-dir", DATA, "--log", str(_log(tmp_path))]
    # without a judge model the suite says the judge must be named and recorded
    assert main([*base, "-o", "bare"]) == 0
    assert main(["run", "bare", "--no-history", "--no-report"]) == 2
    assert "a recorded judge needs 'model: package.module:factory'" in capsys.readouterr().err
    # record the judge once, then import with the cassette: replayed offline
    assert main([*base, "-o", "rec", "--judge-model", "judges.py:recording"]) == 0
    args = ["run", "rec", "--no-history", "--no-report", "--record-mode", "record-missing"]
    args += ["--concurrency", "1"]  # the scripted judge answers in the samples' order
    assert main(args) == 1
    cassette = tmp_path / "rec" / "judge.jsonl"
    assert "[Reference]: Paris" in cassette.read_text(encoding="utf-8")
    argv = [*base, "-o", "replay", "--judge-model", "judges.py:offline"]
    assert main([*argv, "--judge-cassette", str(cassette), "--name", "graded"]) == 0
    assert main(["run", "replay", "--no-history", "--report-dir", "reports"]) == 1
    report = json.loads((tmp_path / "reports" / "graded-gpt-4o-mini.json").read_text())
    verdicts = [s["results"]["openai-closedqa"]["passed"] for s in report["samples"]]
    assert verdicts == [True, True, False]
    capsys.readouterr()
