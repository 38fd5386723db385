"""inspect_ai's model-graded scorers: with a template the log records (the user's), imported as
an ``llm-judge`` check whose template is that text with evalmark's variables and the user's
instructions written in, graded by the suite's judge; with inspect's built-in prompt (not in the
log; evalmark does not copy it), or options the check does not reproduce, refused with a
message that says what to do. The logs are built from the test fixtures' maker, after
inspect's published log schema."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read

_MAKER = Path(__file__).parent / "fixtures" / "inspect" / "make_fixtures.py"
_SPEC = importlib.util.spec_from_file_location("inspect_graded_fixtures", _MAKER)
assert _SPEC is not None and _SPEC.loader is not None
make_fixtures = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(make_fixtures)

TEMPLATE = "Question: {question}\nAnswer: {answer}\nReference: {criterion}\n{instructions}"
INSTRUCTIONS = "Reply GRADE: C if the answer names the reference {city}, else GRADE: I."

JUDGES = """\
from evalmark.models import ScriptedChat


def recording():
    replies = ["It names Paris.\\nGRADE: C", "Berlin it is.\\nGRADE: C", "Not sure.\\nGRADE: I"]
    return ScriptedChat(replies, model_id="grader")
"""


def _log(tmp_path: Path, scorer: str, params: dict[str, Any]) -> Path:
    log = make_fixtures.json_log()
    graded = {"name": scorer, "scorer": scorer, "params": params}
    log["results"]["scores"].append(graded)
    for sample, value in zip(log["samples"], "CCI", strict=True):
        sample["scores"][scorer] = {"value": value, "explanation": "graded"}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


def _refusal(tmp_path: Path, scorer: str, params: dict[str, Any]) -> str:
    with pytest.raises(ImportFormatError) as caught:
        read("inspect", _log(tmp_path, scorer, params))
    return str(caught.value)


@pytest.mark.parametrize(
    "params",
    [{}, {"partial_credit": True}, {"template": "Q {question} A {answer} {instructions}"}],
)
@pytest.mark.parametrize("scorer", ["model_graded_qa", "model_graded_fact"])
def test_the_built_in_prompt_is_named_as_inspects(
    tmp_path: Path, scorer: str, params: dict[str, Any]
) -> None:
    message = _refusal(tmp_path, scorer, params)
    assert "inspect's built-in prompt" in message and "does not copy" in message
    assert f"--allow-loss scorer:{scorer}" in message and "--check" in message


@pytest.mark.parametrize("scorer", ["model_graded_qa", "inspect_ai/model_graded_fact"])
def test_a_recorded_template_is_the_judge_checks_template_as_written(
    tmp_path: Path, scorer: str
) -> None:
    params = {"template": TEMPLATE, "instructions": INSTRUCTIONS, "model_role": "grader"}
    imported = read("inspect", _log(tmp_path, scorer, params))
    assert imported.checks[0] == {
        "inspect-scorer": {"scorer": "match", "name": "inspect-match", "location": "end"}
        | {"ignore-case": True}
    }
    (judged,) = [c["llm-judge"] for c in imported.checks if "llm-judge" in c]
    assert judged["template"] == (
        "Question: {question}\nAnswer: {response}\nReference: {expected_output}\n"
        "Reply GRADE: C if the answer names the reference {{city}}, else GRADE: I."
    )
    assert judged["template"].format(question="q", response="a", expected_output="e") == (
        TEMPLATE.format(question="q", answer="a", criterion="e", instructions=INSTRUCTIONS)
    )
    # instructions of the user's: inspect keeps every grade they match, P half a point
    assert judged["choice-scores"] == {"C": 1.0, "P": 0.5, "I": 0.0}
    assert (judged["choice-at"], judged["threshold"], judged["name"]) == (
        "last",
        1.0,
        f"inspect-{scorer}",
    )


@pytest.mark.parametrize(
    ("params", "grades"),
    [
        ({"template": "Q {question} A {answer}"}, ["C", "I"]),
        ({"template": "Q {question} A {answer}", "partial_credit": True}, ["C", "P", "I"]),
    ],
)
def test_the_default_instructions_offer_c_and_i_or_p_with_partial_credit(
    tmp_path: Path, params: dict[str, Any], grades: list[str]
) -> None:
    imported = read("inspect", _log(tmp_path, "model_graded_qa", params))
    (judged,) = [c["llm-judge"] for c in imported.checks if "llm-judge" in c]
    assert judged["choice-strings"] == grades
    assert judged["template"] == "Q {question} A {response}"


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"template": TEMPLATE, "instructions": "x", "grade_pattern": "G=(C|I)"}, "grade_pattern"),
        ({"template": TEMPLATE, "instructions": "x", "include_history": True}, "history"),
        ({"template": TEMPLATE, "instructions": "x", "model": ["a", "b"]}, "panel"),
        ({"template": TEMPLATE, "instructions": "x", "temperature": 0}, "temperature"),
        ({"template": "Q {question} about {continent}"}, "metadata"),
        ({"template": "Q {question!r}"}, "placeholder"),
        ({"template": "Q {question"}, "cannot fill"),
    ],
)
def test_what_the_judge_check_does_not_reproduce_is_refused(
    tmp_path: Path, params: dict[str, Any], words: str
) -> None:
    message = _refusal(tmp_path, "model_graded_qa", params)
    assert words in message and "--allow-loss scorer:model_graded_qa" in message
    path = _log(tmp_path, "model_graded_qa", params)
    allowed = read("inspect", path, allow_loss=["scorer:model_graded_qa"])
    assert allowed.lost == ("scorer:model_graded_qa",)
    assert [next(iter(c)) for c in allowed.checks] == ["inspect-scorer"]


def test_the_imported_suite_grades_with_its_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "judges.py").write_text(JUDGES, encoding="utf-8")
    params = {"template": TEMPLATE, "instructions": INSTRUCTIONS}
    log = _log(tmp_path, "model_graded_qa", params)
    argv = ["import", "inspect", str(log), "-o", "suite", "--judge-model", "judges.py:recording"]
    assert main(argv) == 0
    args = ["run", "suite", "--no-history", "--report-dir", "reports", "--concurrency", "1"]
    assert main([*args, "--record-mode", "record-missing"]) == 1  # the third sample fails
    cassette = (tmp_path / "suite" / "judge.jsonl").read_text(encoding="utf-8")
    assert "Reference: Paris" in cassette and "names the reference {city}" in cassette
    (report_path,) = (tmp_path / "reports").glob("*.json")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    verdicts = [s["results"]["inspect-model_graded_qa"]["passed"] for s in report["samples"]]
    assert verdicts == [True, True, False]
    capsys.readouterr()
