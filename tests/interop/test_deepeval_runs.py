"""DeepEval's conversational goldens become evalmark conversations (a scripted user and a
recorded build replaying the assistant's turns), and its test-run files a recorded build with
the metric results DeepEval recorded kept in each sample's metadata. The fixtures are
hand-built from DeepEval's published goldens and test-run models (see the fixtures' README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read

FIXTURES = Path(__file__).parent / "fixtures" / "deepeval"
GOLDENS = FIXTURES / "conversational_goldens.json"
RUN = FIXTURES / "latest_test_run.json"
TALK_RUN = FIXTURES / "conversational_test_run.json"


def _write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_conversational_goldens_become_scripted_conversations_with_a_recorded_build() -> None:
    imported = read("deepeval", GOLDENS)
    assert imported.samples == ()
    first, second = imported.conversations
    assert first.name == "refund-annual" and second.name == "conversation-2"
    assert first.turns == (
        "Hi, we bought the annual Team plan three weeks ago.",
        "Can we get our money back?",
    )
    golden = json.loads(GOLDENS.read_text(encoding="utf-8"))[0]
    replies = tuple(t["content"] for t in golden["turns"] if t["role"] == "assistant")
    assert first.answers == {"deepeval": replies}
    kept = imported.kept["conversations"]
    assert kept["refund-annual"]["scenario"] == golden["scenario"]
    assert kept["refund-annual"]["expected_outcome"] == golden["expected_outcome"]
    assert kept["conversation-2"]["turns"] == [{"turn": 1, "metadata": {"channel": "chat"}}]


def test_an_imported_conversation_suite_replays_the_recorded_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["import", "deepeval", str(GOLDENS), "-o", "talks", "--check", "llm-judge"]
    assert main([*argv, "--name", "talks"]) == 0
    assert "imported 2 conversations" in capsys.readouterr().out
    suite_file = tmp_path / "talks" / "suite.yaml"
    suite = yaml.safe_load(suite_file.read_text(encoding="utf-8"))
    assert suite["conversations"][1] == {
        "id": "conversation-2",
        "turns": ["Does the Team plan include SAML single sign-on?"],
    }
    # a whole-conversation check that reads the transcript (the default judge: offline)
    suite["strategies"] = [{"llm-judge": {"prompt": "knowledge-retention", "name": "kept"}}]
    suite_file.write_text(yaml.safe_dump(suite), encoding="utf-8")
    assert main(["run", "talks", "--no-history", "--report-dir", "reports"]) == 0
    report = json.loads((tmp_path / "reports" / "talks-deepeval.json").read_text())
    goldens = json.loads(GOLDENS.read_text(encoding="utf-8"))
    for played, golden in zip(report["metadata"]["conversations"], goldens, strict=True):
        said = [t["content"] for t in golden["turns"] if t["role"] == "assistant"]
        assert [t["assistant"] for t in played["turns"]] == said
    capsys.readouterr()


def test_a_test_run_is_a_recorded_build_with_deepevals_metric_results_kept() -> None:
    imported = read("deepeval", RUN)
    run = json.loads(RUN.read_text(encoding="utf-8"))["testRunData"]
    assert imported.version == "test-run"
    assert [s.name for s in imported.samples] == ["test_case_0", "test_case_1"]
    assert imported.outputs == {"deepeval": {"test_case_0": "Paris.", "test_case_1": "Kyoto"}}
    for sample, case in zip(imported.samples, run["testCases"], strict=True):
        assert sample.metadata["deepeval-metrics"] == case["metricsData"]
        assert sample.metadata["deepeval-success"] is case["success"]
        assert sample.expected_output == case["expectedOutput"]
    assert imported.samples[1].tags == ("geography",)
    (case,) = imported.test_cases("deepeval")[:1]
    assert case.retrieval_context == ("Paris is the capital and largest city of France.",)
    assert imported.kept["metricsScores"] == run["metricsScores"]
    assert (imported.kept["testPassed"], imported.kept["testFailed"]) == (1, 1)


def test_a_conversational_test_run_orders_the_turns_by_their_order() -> None:
    imported = read("deepeval", TALK_RUN)
    (talk,) = imported.conversations
    assert talk.turns == (
        "Hi, we bought the annual Team plan three weeks ago.",
        "Can we get our money back?",
    )
    assert talk.answers["deepeval"][1] == "I can check our refund rules for you."
    kept = imported.kept["conversations"]["conversational_test_case_0"]
    assert [m["name"] for m in kept["metricsData"]] == [
        "Knowledge Retention",
        "Conversation Completeness",
    ]


def test_a_test_run_replays_and_rescores_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["import", "deepeval", str(RUN), "-o", "run", "--check", "exact-match"]
    assert main([*argv, "--name", "run"]) == 0
    assert main(["run", "run", "--no-history", "--report-dir", "reports"]) == 1
    report = json.loads((tmp_path / "reports" / "run-deepeval.json").read_text())
    verdicts = [s["results"]["exact-match"]["passed"] for s in report["samples"]]
    assert verdicts == [True, False]
    assert report["metadata"]["source"]["version"] == "test-run"
    capsys.readouterr()


def _talk(turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"scenario": "s", "turns": turns, "name": "t"}


def test_what_a_conversation_cannot_carry_is_refused(tmp_path: Path) -> None:
    user = {"role": "user", "content": "Hi"}
    reply = {"role": "assistant", "content": "Hello"}
    tool = {**reply, "tools_called": [{"name": "search"}]}
    path = _write(tmp_path / "tools.json", [_talk([user, tool])])
    with pytest.raises(ImportFormatError, match=r"--allow-loss turns\.tools_called"):
        read("deepeval", path)
    allowed = read("deepeval", path, allow_loss=["turns.tools_called"])
    assert allowed.lost == ("turns.tools_called",)
    first = _write(tmp_path / "first.json", [_talk([reply, user])])
    with pytest.raises(ImportFormatError, match="the user first"):
        read("deepeval", first)
    unanswered = _write(tmp_path / "open.json", [_talk([user, reply, user])])
    with pytest.raises(ImportFormatError, match="the last user turn has no reply"):
        read("deepeval", unanswered)
    bare = _write(tmp_path / "bare.json", [{"scenario": "only a scenario", "turns": None}])
    with pytest.raises(ImportFormatError, match="needs its turns"):
        read("deepeval", bare)


def test_what_a_test_run_cannot_carry_is_refused(tmp_path: Path) -> None:
    run = json.loads(RUN.read_text(encoding="utf-8"))
    run["testRunData"]["testCases"][0]["imagesMapping"] = {"img": {"url": "x.png"}}
    with pytest.raises(ImportFormatError, match="--allow-loss imagesMapping"):
        read("deepeval", _write(tmp_path / "images.json", run))
    both = json.loads(RUN.read_text(encoding="utf-8"))
    talks = json.loads(TALK_RUN.read_text(encoding="utf-8"))["testRunData"]
    both["testRunData"]["conversationalTestCases"] = talks["conversationalTestCases"]
    path = _write(tmp_path / "both.json", both)
    with pytest.raises(ImportFormatError, match="--allow-loss conversationalTestCases"):
        read("deepeval", path)
    kept = read("deepeval", path, allow_loss=["conversationalTestCases"])
    assert len(kept.samples) == 2 and kept.conversations == ()
    link = _write(tmp_path / "link.json", {"testRunLink": "https://app.example/run/1"})
    with pytest.raises(ImportFormatError, match="testRunLink"):
        read("deepeval", link)
