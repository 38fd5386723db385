"""promptfoo's llm-rubric imported with the rubric as written and graded by the suite's judge
with promptfoo's semantics (the grader's JSON {reason, pass, score}; a threshold needs both
pass and the score), replayed offline from a recorded judge. The results fixture is hand-built
from promptfoo's published results format: promptfoo is a Node program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import JudgeParseError, StrategyError
from evalmark.interop import read
from evalmark.models import ScriptedChat
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._promptfoo import PromptfooAsserts
from evalmark.strategies._promptfoo_rubric import read_rubric_reply, rubric_messages

RESULTS = Path(__file__).parent / "fixtures" / "promptfoo" / "rubric_results.json"

# The grades promptfoo's grader gave (the fixture's componentResults, before not- inverts).
GRADES = [
    {"reason": "One sentence; it says plants use sunlight.", "pass": True, "score": 0.9},
    {"reason": "It names the plates but not the mantle.", "pass": True, "score": 0.6},
    {"reason": "It answers plainly, with no apology.", "pass": False, "score": 0.1},
]
JUDGES = f"""\
from evalmark.models import ScriptedChat


def recording():
    return ScriptedChat({[json.dumps(g) for g in GRADES]!r}, model_id="grader")


def offline():
    return ScriptedChat([], model_id="grader")
"""


@pytest.mark.parametrize(
    ("reply", "threshold", "inverse", "expected"),
    [
        ('{"reason": "ok", "pass": true, "score": 0.9}', None, False, (True, 0.9, "ok")),
        (
            'Here: {"pass": false, "score": 0.2, "reason": "no"} done',
            None,
            False,
            (False, 0.2, "no"),
        ),
        ('{"reason": "no pass given", "score": 0}', None, False, (True, 0.0, "no pass given")),
        ('{"pass": "Yes", "score": "0.7"}', None, False, (True, 0.7, "")),
        ('{"pass": "nope"}', None, False, (False, 0.0, "")),
        ('{"pass": true}', None, False, (True, 1.0, "")),
        ('{"pass": true, "score": null}', None, False, (True, 0.0, "")),
        ('{"pass": true, "score": "high"}', None, False, (True, 1.0, "")),
        ('{"pass": true, "score": 0.6}', 0.8, False, (False, 0.6, "")),
        ('{"pass": false, "score": 0.9}', 0.8, False, (False, 0.9, "")),
        ('{"pass": true, "score": 0.8}', 0.8, False, (True, 0.8, "")),
        ('{"pass": false, "score": 0.1}', None, True, (True, 0.9, "")),
        ('{"pass": true, "score": 1.7}', None, True, (False, 0.0, "")),
        ('{not json} then {"pass": false}', None, False, (False, 0.0, "")),
    ],
)
def test_a_grade_is_read_as_promptfoo_reads_it(
    reply: str,
    threshold: float | None,
    inverse: bool,
    expected: tuple[bool, float, str],
) -> None:
    assert read_rubric_reply(reply, threshold=threshold, inverse=inverse) == expected


def test_a_reply_without_a_grade_is_a_parse_error() -> None:
    with pytest.raises(JudgeParseError, match="no JSON object"):
        read_rubric_reply("The output passes.")


def test_the_rubric_is_imported_as_written_and_the_check_asks_the_judge() -> None:
    imported = read("promptfoo", RESULTS)
    assert imported.checks == ({"promptfoo-asserts": {"llm-rubric": "judge"}},)
    first, second, third = imported.samples
    assert first.metadata["promptfoo-assert"][0] == {
        "type": "llm-rubric",
        "value": "Is one sentence that says photosynthesis needs sunlight",
    }
    assert second.metadata["promptfoo-assert"][0]["threshold"] == 0.8
    assert third.metadata["promptfoo-assert"][0]["type"] == "not-llm-rubric"
    sent = rubric_messages("An answer.", "Mentions the mantle")
    assert sent[1]["content"].endswith("<rubric>\nMentions the mantle\n</rubric>")
    assert '"pass"' in sent[0]["content"] and '"score"' in sent[0]["content"]


def test_without_a_judge_a_rubric_is_an_error_naming_the_option() -> None:
    sample = Sample(
        name="s",
        parameters=Parameters(["q"]),
        expected_output="",
        metadata={"promptfoo-assert": [{"type": "llm-rubric", "value": "Is polite"}]},
    )
    with pytest.raises(StrategyError, match="llm-rubric: judge"):
        PromptfooAsserts().evaluate(sample, "Hello")
    judged = PromptfooAsserts(judge=ScriptedChat(["I cannot tell."], model_id="grader"))
    result = judged.evaluate(sample, "Hello")
    assert result.error is not None and result.error.kind == "parse"


def test_the_imported_suite_replays_the_judge_and_reproduces_promptfoos_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "judges.py").write_text(JUDGES, encoding="utf-8")
    base = ["import", "promptfoo", str(RESULTS)]
    assert main([*base, "-o", "bare"]) == 0
    assert main(["run", "bare", "--no-history", "--no-report"]) == 2
    assert "a recorded judge needs 'model: package.module:factory'" in capsys.readouterr().err
    # record the judge once (the scripted grader answers in the samples' order) ...
    assert main([*base, "-o", "rec", "--judge-model", "judges.py:recording"]) == 0
    args = ["run", "rec", "--no-history", "--no-report", "--record-mode", "record-missing"]
    assert main([*args, "--concurrency", "1"]) == 1
    cassette = tmp_path / "rec" / "judge.jsonl"
    assert "Names both the plates and the mantle" in cassette.read_text(encoding="utf-8")
    # ... then import again with that cassette: replayed with no model able to answer
    argv = [*base, "-o", "replay", "--judge-model", "judges.py:offline", "--name", "rubric"]
    assert main([*argv, "--judge-cassette", str(cassette)]) == 0
    assert main(["run", "replay", "--no-history", "--report-dir", "reports"]) == 1
    report = json.loads((tmp_path / "reports" / "rubric-openai-gpt-4o-mini.json").read_text())
    recorded = json.loads(RESULTS.read_text(encoding="utf-8"))["results"]["results"]
    for row, sample in zip(recorded, report["samples"], strict=True):
        result = sample["results"]["promptfoo-asserts"]
        assert (result["passed"], result["score"]) == (row["success"], pytest.approx(row["score"]))
        grades = result["metadata"]["llm-rubric"]
        expected = [
            c
            for c in row["gradingResult"]["componentResults"]
            if "rubric" in c["assertion"]["type"]
        ]
        assert [(g["pass"], g["reason"]) for g in grades] == [
            (c["pass"], c["reason"]) for c in expected
        ]
    capsys.readouterr()


def test_a_csv_grade_column_is_an_llm_rubric(tmp_path: Path) -> None:
    (tmp_path / "tests.csv").write_text(
        "topic,__expected1,__expected2\nrain,grade: Mentions clouds,contains: rain\n",
        encoding="utf-8",
    )
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['Explain {{topic}}.']\nproviders: [echo]\ntests: file://tests.csv\n",
        encoding="utf-8",
    )
    imported = read("promptfoo", config)
    (sample,) = imported.samples
    assert sample.metadata["promptfoo-assert"] == [
        {"type": "llm-rubric", "value": "Mentions clouds"},
        {"type": "contains", "value": "rain"},
    ]
    assert imported.checks == ({"promptfoo-asserts": {"llm-rubric": "judge"}},)
