"""``evalmark tune --from-cassette`` reads the recordings of every judge check: the plain
``VERDICT:`` judges and the JSON replies of the catalog ``llm-judge`` checks."""

from __future__ import annotations

import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.cli._tune_cassette import read_verdict
from evalmark.models import ScriptedChat, call_context, record_replay
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"

# A judge whose verdicts flip: the offline rule judge behind a seeded NoisyJudge. Each repeat of
# an llm-judge check is its own call (check "grounded#r"), so the repeats disagree now and then.
JUDGE_FACTORY = """
from evalmark.models import NoisyJudge, RuleJudge

def make():
    return NoisyJudge(RuleJudge(min_overlap=0.6), flip_rate=0.15, seed=4)
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The support suite with one catalog llm-judge check asked 3 times, its judge recorded
    into a cassette by replaying both builds with the recorder on."""
    target = tmp_path_factory.mktemp("llm_judge") / "support"
    shutil.copytree(SUPPORT, target, ignore=shutil.ignore_patterns("make_builds.py"))
    (target / "judge_factory.py").write_text(JUDGE_FACTORY, encoding="utf-8")
    path = target / "suite.yaml"
    text = path.read_text(encoding="utf-8")
    start, end = text.index("strategies:"), text.index("\njudge:") + 1
    text = (
        text[:start]
        + "strategies:\n  - contains-facts\n"
        + "  - llm-judge: {prompt: rag-groundedness, name: grounded, repeats: 3}\n\n"
        + text[end:]
    )
    text = text.replace(
        "  kind: rule ",
        "  kind: recorded\n  cassette: judge.jsonl\n  model: judge_factory.py:make ",
    )
    path.write_text(text, encoding="utf-8")
    suite = load_suite(target)
    for build in ("healthy", "regressed"):
        run_suite(suite, build=build, mode="record-missing")
    return target, target / "judge.jsonl"


def _flip_by_hand(rows: list[list[object]]) -> float:
    pairs = sum(len(r) * (len(r) - 1) // 2 for r in rows)
    agree = sum(sum(c * (c - 1) // 2 for c in (r.count(v) for v in set(r))) for r in rows)
    d = (pairs - agree) / pairs
    return (1 - math.sqrt(1 - 2 * d)) / 2


def test_a_recorded_llm_judge_check_gives_the_flip_rate(
    capsys: pytest.CaptureFixture[str], recorded: tuple[Path, Path]
) -> None:
    suite, cassette = recorded
    lines = cassette.read_text(encoding="utf-8").splitlines()[1:]
    by_key: dict[str, list[object]] = defaultdict(list)
    for line in lines:
        entry = json.loads(line)
        by_key[entry["key"]].append(json.loads(entry["response"]["text"])["score"])
    rows = list(by_key.values())
    assert all(len(r) == 3 for r in rows) and any(len(set(r)) == 2 for r in rows)
    code = main(["tune", str(suite), "--from-cassette", str(cassette), "--runs", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    expected = _flip_by_hand(rows)
    assert f"judge flip rate from {cassette}: {expected:.3f} (95% interval " in out
    assert f"{len(rows)} prompts, {3 * len(rows)} pairs)" in out
    assert f"judge flip rate {expected:.4f}" in out  # the measured rate is studied


def _record(path: Path, judge: LLMJudge, replies_per_prompt: int, prompts: int) -> None:
    for number in range(prompts):
        for repeat in range(replies_per_prompt):
            with call_context(sample=f"s{number}", check=f"{judge.name}#{repeat}", repeat=repeat):
                judge.grade(inputs=f"question {number}?", outputs="an answer")


def test_an_llm_judge_with_choices_is_read_as_grades(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cassette = tmp_path / "choices.jsonl"
    # 10 prompts graded 3 times among the choices 0, 0.5, 1; one prompt splits 2-1
    scores = [[1, 1, 1]] * 9 + [[1, 0.5, 1]]
    replies = [json.dumps({"reasoning": "r", "score": s}) for row in scores for s in row]
    model = record_replay(ScriptedChat(replies), cassette, "rewrite", model_id="judge")
    judge = LLMJudge("answer-relevance", model, choices=[0, 0.5, 1], mode="native")
    _record(cassette, judge, 3, 10)
    code = main(["tune", "--cases", "10", "--from-cassette", str(cassette), "--runs", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    # D = 2/30; with G = 3 grades, a = 3/2 and ε = (1 - √(1 - aD)) / a
    d, a = 2 / 30, 1.5
    expected = (1 - math.sqrt(1 - a * d)) / a
    assert f": {expected:.3f} (95% interval" in out
    assert "10 prompts, 30 pairs; graded, 3 grades)" in out


def test_a_cassette_with_both_kinds_measures_the_yes_no_verdicts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cassette = tmp_path / "both.jsonl"
    bools = [json.dumps({"reasoning": "r", "score": s}) for s in (True, False, True, True)]
    grades = [json.dumps({"reasoning": "r", "score": s}) for s in (1, 1)]
    model = record_replay(ScriptedChat([*bools, *grades]), cassette, "rewrite", model_id="j")
    _record(cassette, LLMJudge("conciseness", model, name="short"), 2, 2)
    _record(cassette, LLMJudge("toxicity", model, choices=[0, 1], name="civil"), 2, 1)
    code = main(["tune", "--cases", "4", "--from-cassette", str(cassette), "--runs", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 prompts, 2 pairs; 1 graded prompts left out)" in out


@pytest.mark.parametrize(
    ("text", "request_", "value", "binary", "grades"),
    [
        ("Fine.\nVERDICT: no", {}, False, True, None),
        ("GRADE: 4", {}, 4, False, None),
        ('{"reasoning": "ok", "score": true}', {}, True, True, None),
        ('Here: {"score": 0.5}', {}, 0.5, False, None),
        (
            '{"score": 2}',
            {
                "params": {
                    "response_format": {
                        "json_schema": {"schema": {"properties": {"score": {"enum": [1, 2, 3, 4]}}}}
                    }
                }
            },
            2.0,
            False,
            4,
        ),
        ('{"reasoning": "x", "intent": "billing"}', {}, '{"intent": "billing"}', False, None),
    ],
)
def test_each_reply_shape_gives_its_verdict(
    text: str, request_: dict[str, object], value: object, binary: bool, grades: int | None
) -> None:
    verdict = read_verdict(text, request_)
    assert verdict is not None
    assert (verdict.value, verdict.binary, verdict.grades) == (value, binary, grades)


@pytest.mark.parametrize(
    "text", ["", "I cannot judge this.", '{"score": "high"}', '{"reasoning": "x"}']
)
def test_a_reply_without_a_verdict_is_none(text: str) -> None:
    assert read_verdict(text, {}) is None


def test_a_graded_recording_with_more_grades_than_given_is_an_input_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cassette = tmp_path / "many.jsonl"
    replies = [json.dumps({"reasoning": "r", "score": s}) for s in (0.1, 0.2, 0.3, 0.4)]
    model = record_replay(ScriptedChat(replies), cassette, "rewrite", model_id="j")
    _record(cassette, LLMJudge("conciseness", model, score="continuous", mode="prompted"), 2, 2)
    args = ["tune", "--cases", "4", "--from-cassette", str(cassette), "--grades", "3"]
    assert main(args) == 2
    assert "holds 4 different grades but the judge is taken to have 3" in capsys.readouterr().err
