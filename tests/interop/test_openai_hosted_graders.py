"""The hosted OpenAI Evals model graders (``label_model``, ``score_model``) imported as judge
checks whose messages are kept as written, replayed offline from a recorded judge to the
grader results the run recorded. The fixtures are hand-built from the published API schema
(the hosted API cannot be called where the tests run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError, JudgeParseError
from evalmark.interop import read
from evalmark.models import ScriptedChat
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._openai_graders import OpenAIModelGrader, read_grade

HOSTED = Path(__file__).parent / "fixtures" / "openai_evals" / "hosted"
EVAL = HOSTED / "graded_eval.json"
ITEMS = HOSTED / "graded_items.jsonl"
# A judge answering each request with the reply the run's grader recorded for that item.
JUDGES = f"""\
import json
from pathlib import Path

from evalmark.models import ScriptedChat

ITEMS = {str(ITEMS)!r}


class RecordedGrader:
    model_id = "o3-mini"

    def __init__(self):
        self.replies = {{}}
        for line in Path(ITEMS).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for result in row["results"]:
                key = (row["datasource_item"]["answer"], result["name"])
                self.replies[key] = result["sample"]["output"][0]["content"]

    def chat(self, messages, **params):
        text = "\\n".join(m["content"] for m in messages)
        grader = "correctness" if "one of" in messages[-1]["content"] else "coverage"
        for (answer, name), reply in self.replies.items():
            if name == grader and answer in text:
                return reply
        raise AssertionError(text)


def recording():
    return RecordedGrader()


def offline():
    return ScriptedChat([], model_id="o3-mini")
"""


def _criteria() -> list[dict[str, object]]:
    return list(json.loads(EVAL.read_text(encoding="utf-8"))["testing_criteria"])


def _eval_with(tmp_path: Path, index: int, **changes: object) -> Path:
    doc = json.loads(EVAL.read_text(encoding="utf-8"))
    doc["testing_criteria"][index].update(changes)
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_the_graders_import_with_their_messages_as_written() -> None:
    imported = read("openai-evals", EVAL, log=str(ITEMS))
    label, score = _criteria()
    assert imported.checks == (
        {
            "openai-grader": {
                "grader": "label_model",
                "input": [
                    label["input"][0],  # type: ignore[index]
                    {"role": "user", "content": label["input"][1]["content"]["text"]},  # type: ignore[index]
                ],
                "labels": ["correct", "incorrect"],
                "passing-labels": ["correct"],
                "name": "openai-correctness",
            }
        },
        {
            "openai-grader": {
                "grader": "score_model",
                "input": score["input"],
                "range": [1, 5],
                "pass-threshold": 4,
                "name": "openai-coverage",
            }
        },
    )
    assert imported.lost == ()
    assert imported.samples[0].metadata["openai-item"]["question"] == "Where is the Eiffel Tower?"


def test_the_imported_suite_replays_the_judge_to_the_recorded_grader_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "judges.py").write_text(JUDGES, encoding="utf-8")
    base = ["import", "openai-evals", str(EVAL), "--log", str(ITEMS)]
    assert main([*base, "-o", "bare"]) == 0
    assert main(["run", "bare", "--no-history", "--no-report"]) == 2
    assert "a recorded judge needs 'model: package.module:factory'" in capsys.readouterr().err
    # record the judge once ...
    assert main([*base, "-o", "rec", "--judge-model", "judges.py:recording"]) == 0
    args = ["run", "rec", "--no-history", "--no-report", "--record-mode", "record-missing"]
    assert main(args) == 1
    cassette = tmp_path / "rec" / "judge.jsonl"
    assert "The reference answer is Water boils at 100" in cassette.read_text(encoding="utf-8")
    # ... then import again with that cassette: replayed with no model able to answer
    argv = [*base, "-o", "replay", "--judge-model", "judges.py:offline", "--name", "graded"]
    assert main([*argv, "--judge-cassette", str(cassette)]) == 0
    assert main(["run", "replay", "--no-history", "--report-dir", "reports"]) == 1
    report = json.loads((tmp_path / "reports" / "graded-gpt-4.1-mini-2025-04-14.json").read_text())
    got = {
        (s["name"], check): (r["passed"], r["metadata"].get("label", r["metadata"].get("result")))
        for s in report["samples"]
        for check, r in s["results"].items()
    }
    recorded = {}
    for line in ITEMS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for r in row["results"]:
            grade = json.loads(r["sample"]["output"][0]["content"])["result"]
            key = (f"facts-graded.{row['datasource_item_id']}", f"openai-{r['name']}")
            recorded[key] = (r["passed"], grade)
            if r["name"] == "coverage":
                assert r["score"] == grade  # a score_model's recorded score is its grade
    assert got == recorded
    capsys.readouterr()


def test_the_messages_are_sent_filled_then_evalmarks_request() -> None:
    label = _criteria()[0]
    messages = [
        {"role": "developer", "content": label["input"][0]["content"]},  # type: ignore[index]
        {"role": "user", "content": "Q: {{item.question}} A: {{ sample.output_text }}"},
    ]
    judge = ScriptedChat(['{"steps": [], "result": "incorrect"}'], model_id="grader")
    grader = OpenAIModelGrader(
        "label_model", messages, judge, labels=["correct", "incorrect"], passing_labels=["correct"]
    )
    item = {"question": "Capital of Peru?", "answer": "Lima"}
    sample = Sample(
        name="s",
        parameters=Parameters(["q"]),
        expected_output="Lima",
        metadata={"openai-item": item},
    )
    result = grader.evaluate(sample, "Cusco")
    assert (result.passed, result.score, result.metadata["label"]) == (False, 0.0, "incorrect")
    sent = judge.calls[0].messages
    assert sent[0]["content"].endswith("The reference answer is Lima.")
    assert sent[1] == {"role": "user", "content": "Q: Capital of Peru? A: Cusco"}
    assert '"result": one of "correct", "incorrect"' in sent[2]["content"]


@pytest.mark.parametrize(
    ("reply", "passed", "score"),
    [
        ('{"steps": [], "result": 4}', True, 0.75),
        ('I think {"result": 2.0}', False, 0.25),
        ('{"result": 5}', True, 1.0),
    ],
)
def test_a_score_model_grade_is_its_place_in_the_range(
    reply: str, passed: bool, score: float
) -> None:
    judge = ScriptedChat([reply], model_id="grader")
    grader = OpenAIModelGrader(
        "score_model",
        [{"role": "user", "content": "{{sample.output_text}}"}],
        judge,
        score_range=(1, 5),
        pass_threshold=4,
    )
    result = grader.evaluate(
        Sample(name="s", parameters=Parameters(["q"]), expected_output=""), "answer"
    )
    assert (result.passed, result.score) == (passed, score)


@pytest.mark.parametrize("reply", ['{"result": 7}', '{"result": "four"}', "no grade here"])
def test_a_reply_without_a_usable_grade_is_a_parse_error(reply: str) -> None:
    judge = ScriptedChat([reply], model_id="grader")
    grader = OpenAIModelGrader(
        "score_model", [{"role": "user", "content": "x"}], judge, score_range=(1, 5)
    )
    result = grader.evaluate(
        Sample(name="s", parameters=Parameters(["q"]), expected_output=""), "answer"
    )
    assert result.error is not None and result.error.kind == "parse"
    assert not result.passed


def test_read_grade_takes_the_first_object_with_a_result() -> None:
    assert read_grade('{"steps": 1} then {"result": "x"}') == "x"
    with pytest.raises(JudgeParseError):
        read_grade('{"steps": []}')


@pytest.mark.parametrize(
    ("index", "changes", "loss"),
    [
        (0, {"sampling_params": {"temperature": 0}}, "criterion.sampling_params"),
        (
            1,
            {"input": [{"role": "user", "content": "{{sample.output_json}}"}]},
            "criterion:coverage",
        ),
        (
            0,
            {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}]},
            "criterion:correctness",
        ),
    ],
)
def test_what_the_check_cannot_carry_is_refused_by_name(
    tmp_path: Path, index: int, changes: dict[str, object], loss: str
) -> None:
    path = _eval_with(tmp_path, index, **changes)
    with pytest.raises(ImportFormatError) as caught:
        read("openai-evals", path, log=str(ITEMS))
    assert f"--allow-loss {loss}" in str(caught.value)
    assert f"testing_criteria[{index}]" in str(caught.value)


def test_passing_labels_outside_the_labels_are_an_error(tmp_path: Path) -> None:
    path = _eval_with(tmp_path, 0, passing_labels=["right"])
    with pytest.raises(ImportFormatError, match="passing_labels must be among the labels"):
        read("openai-evals", path, log=str(ITEMS))


@pytest.mark.parametrize(
    ("index", "change", "found"),
    [
        (0, {"passed": False}, "passed=False for 'correctness'"),  # its reply says "correct"
        (1, {"passed": False}, "passed=False for 'coverage'"),  # 4 reaches the threshold 4
        (1, {"score": 3.0}, "score 3.0 for 'coverage'"),  # its reply's result is 4.0
    ],
)
def test_a_recorded_verdict_its_graders_reply_contradicts_is_refused(
    tmp_path: Path, index: int, change: dict[str, object], found: str
) -> None:
    lines = ITEMS.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["results"][index].update(change)
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"items.jsonl:1") as caught:
        read("openai-evals", EVAL, log=str(items))
    assert found in str(caught.value)
