"""Conversation cases in suite files: the bundled support-chat demo through ``evalmark run``,
the loader's errors, live applications, and reports identical for any concurrency."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ConversationError, SuiteError
from evalmark.report import render_report
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "golden" / "support-chat"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_demo_passes_for_the_healthy_build(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(
        capsys,
        "run",
        str(DEMO),
        "--build",
        "healthy",
        "--offline",
        "--no-history",
        "--report-dir",
        str(tmp_path),
    )
    assert code == 0, out + err
    assert "3 of 3 cases pass every check" in out and "gate passed" in out


def test_the_demo_fails_for_the_regressed_build_naming_conversation_turn_and_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(
        capsys,
        "run",
        str(DEMO),
        "--build",
        "regressed",
        "--offline",
        "--no-history",
        "--report-dir",
        str(tmp_path),
    )
    assert code == 1, out + err
    failing = out.split("failing cases (1):", 1)[1]
    assert "refund-annual-team" in failing
    assert "knowledge-retention: fails from turn 2:" in failing
    assert "caught only by knowledge-retention" in failing
    markdown = (tmp_path / "support-chat-regressed.md").read_text(encoding="utf-8")
    assert "## Transcripts of failing conversations: 1" in markdown
    assert "Could you remind me which plan you are on" in markdown
    html = (tmp_path / "support-chat-regressed.html").read_text(encoding="utf-8")
    assert "<h2>Transcripts of failing conversations: 1</h2>" in html
    document = json.loads((tmp_path / "support-chat-regressed.json").read_text(encoding="utf-8"))
    records = {r["id"]: r for r in document["metadata"]["conversations"]}
    assert records["refund-annual-team"]["checks"]["knowledge-retention"]["turn"] == 2
    assert records["refund-annual-team"]["stopped"] == "stop-condition"
    assert records["sso-persona"]["stopped"] == "user-ended"  # the recorded user said [END]


def test_the_demo_reports_are_byte_identical_for_any_concurrency(tmp_path: Path) -> None:
    suite = load_suite(DEMO)
    outputs = []
    for concurrency in (1, 3, 8):
        run = run_suite(suite, build="regressed", concurrency=concurrency)
        (report,) = run.reports
        outputs.append(
            (
                render_report(report, "json"),
                render_report(report, "markdown"),
                render_report(report, "html"),
            )
        )
    assert outputs[0] == outputs[1] == outputs[2]


def write_suite(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


APP = """\
    application:
      function: app.py:answer
"""


def test_a_conversation_with_no_turns_is_an_error_with_file_line_and_conversation(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text("def answer(m, t):\n    return 'ok'\n", encoding="utf-8")
    path = write_suite(
        tmp_path,
        APP
        + """\
    conversations:
      - id: empty-one
        turns: []
      - id: nothing-at-all
    strategies: [contains]
    """,
    )
    code, out, err = cli(capsys, "run", str(path), "--no-history")
    assert code == 2 and out == ""
    assert f"{path}:5" in err and "conversation 'empty-one' has no turns" in err
    assert "conversation 'nothing-at-all' has no turns" in err


def test_the_loader_reports_every_mistake_of_the_conversation_part(tmp_path: Path) -> None:
    path = write_suite(
        tmp_path,
        APP
        + """\
    conversations:
      - id: a
        turns: ["", {text: hi, expected-fact: [x]}]
        persona: someone
        max-turns: 0
      - id: a
        persona: a customer
      - turns: [hi]
    turn-strategies: [contains-fact]
    strategies: [contains]
    """,
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    text = str(info.value)
    for expected in (
        "give scripted 'turns' or a 'persona', not both",
        "a scripted turn is the user's message and cannot be empty",
        "unknown key 'expected-fact' in the turn; did you mean 'expected-facts'?",
        "max-turns",
        "duplicate conversation id 'a'",
        "missing 'id'",
        "needs 'user-model'",
        "unknown check 'contains-fact'",
    ):
        assert expected in text, expected


def test_a_live_application_sees_one_thread_per_conversation_and_its_errors_name_the_turn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """\
            SEEN = {}

            def answer(message, thread_id):
                SEEN.setdefault(thread_id, []).append(message)
                if message == "crash":
                    raise ValueError("the ledger is locked")
                return f"{thread_id}: {len(SEEN[thread_id])}"
            """
        ),
        encoding="utf-8",
    )
    path = write_suite(
        tmp_path,
        APP
        + """\
    conversations:
      - id: calm
        turns: [one, two]
      - id: stormy
        turns: [one, crash, three]
    strategies:
      - llm-judge: {prompt: knowledge-retention, name: knowledge-retention}
    """,
    )
    run = run_suite(load_suite(path))
    (report,) = run.reports
    records = report.metadata["conversations"]
    assert [t["assistant"] for t in records[0]["turns"]] == ["calm: 1", "calm: 2"]
    assert records[1]["error"] == {"turn": 2, "message": "ValueError: the ledger is locked"}
    error = report.row(1).results["knowledge-retention"]
    assert error.is_error and report.row(0).results["knowledge-retention"].passed
    code, out, _ = cli(capsys, "run", str(path), "--no-history", "--no-report")
    assert code == 1  # an application error fails the run, gate or no gate
    assert "conversation 'stormy', turn 2: ValueError: the ledger is locked" in out


def test_an_empty_user_reply_in_a_suite_exits_2_naming_conversation_and_turn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text("def answer(m, t):\n    return 'ok'\n", encoding="utf-8")
    (tmp_path / "users.py").write_text(
        textwrap.dedent(
            """\
            from evalmark.models import ScriptedChat

            def make():
                return ScriptedChat(["hello", ""], model_id="customer")
            """
        ),
        encoding="utf-8",
    )
    path = write_suite(
        tmp_path,
        APP
        + """\
    conversations:
      - id: quiet-customer
        persona: a customer who goes quiet
    user-model: {model-id: customer, cassette: users.jsonl, model: users.py:make}
    strategies:
      - llm-judge: {prompt: task-completion, name: task-completion}
    """,
    )
    code, out, err = cli(capsys, "run", str(path), "--no-history", "--record-mode", "rewrite")
    assert code == 2 and out == ""
    assert "conversation 'quiet-customer', turn 2" in err and "empty" in err
    with pytest.raises(ConversationError, match="quiet-customer', turn 2"):
        run_suite(load_suite(path), mode="rewrite")


AGENT = """\
def answer(message, thread_id):
    if "invoice" in message:
        return {"content": "Found it.", "tool_calls": [{"name": "lookup_invoice",
                "arguments": {"number": 7}}]}
    if "refund" in message:
        return {"content": "Refunded.", "tool_calls": [{"name": "issue_refund", "arguments": {}}]}
    return "Hello."
"""

TRAJECTORY_SUITE = """\
application:
  model-id: billing-agent
  function: agent.py:answer
  builds: {main: agent.jsonl}
conversations:
  - id: refund-flow
    turns: [hi, find invoice 7, refund it]
    expected-tool-calls: [{name: lookup_invoice, arguments: {number: 7}}, {name: issue_refund}]
  - id: wrong-tool
    turns: [refund it]
    expected-tool-calls: [{name: close_account}]
trajectory: {mode: strict}
strategies:
  - llm-judge: {prompt: task-completion, name: task-completion}
"""


def test_the_trajectory_check_judges_the_tool_calls_recorded_over_each_conversation(
    tmp_path: Path,
) -> None:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    path = write_suite(tmp_path, TRAJECTORY_SUITE)
    recorded = run_suite(load_suite(path), mode="rewrite")
    (tmp_path / "agent.py").write_text("def answer(m, t):\n    raise AssertionError\n", "utf-8")
    (tmp_path / "suite.yaml").write_text(
        TRAJECTORY_SUITE.replace("  function: agent.py:answer\n", ""), encoding="utf-8"
    )
    replayed = run_suite(load_suite(path))
    for run in (recorded, replayed):
        (report,) = run.reports
        verdicts = [row.results["trajectory"].passed for row in report.rows()]
        assert verdicts == [True, False]
        turns = report.metadata["conversations"][0]["turns"]
        assert turns[1]["tool-calls"] == [{"name": "lookup_invoice", "arguments": {"number": 7}}]
    assert render_report(replayed.reports[0], "json") == render_report(recorded.reports[0], "json")


def test_the_trajectory_check_wants_expected_tool_calls_on_every_conversation(
    tmp_path: Path,
) -> None:
    text = TRAJECTORY_SUITE.replace(
        "    expected-tool-calls: [{name: close_account}]\n", ""
    ).replace("{mode: strict}", "{mode: strikt}")
    path = write_suite(tmp_path, text)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    message = str(info.value)
    assert "conversation 'wrong-tool' has no 'expected-tool-calls'" in message
    assert "unknown mode 'strikt'; did you mean 'strict'?" in message


def test_an_unrecorded_persona_reply_exits_2_naming_conversation_and_turn(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    copy = tmp_path / "support-chat"
    shutil.copytree(DEMO, copy)
    suite = copy / "suite.yaml"
    text = suite.read_text(encoding="utf-8")
    suite.write_text(text.replace("You are polite and brief.", "You are curt."), "utf-8")
    code, out, err = cli(capsys, "run", str(copy), "--offline", "--no-history", "--no-report")
    assert code == 2 and out == ""
    assert "conversation 'sso-persona', turn 2: the simulated user failed: CassetteMiss" in err


def test_the_suite_schema_accepts_the_demo_and_rejects_conversation_mistakes() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from evalmark.suite import suite_file_schema

    validator = jsonschema.Draft202012Validator(suite_file_schema())
    document = yaml.safe_load((DEMO / "suite.yaml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(document)) == []
    first = document["conversations"][0]
    for mistake in (
        {**document, "conversations": []},
        {**document, "conversations": [{**first, "turns": []}]},
        {**document, "conversations": [{**first, "max-turns": 0}]},
        {**document, "user-model": {"model-id": "x"}},
        {**document, "trajectory": {"mode": "strikt"}},
    ):
        assert list(validator.iter_errors(mistake)), mistake
