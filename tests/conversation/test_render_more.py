"""Failing conversations in the suite Markdown, the terminal and the styled HTML transcript:
each names the conversation, the turn and the check."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.conversation import ConversationCase, ScriptedTurn
from evalmark.conversation._report import score_conversations
from evalmark.conversation._simulate import simulate
from evalmark.conversation._users import SimulatedUser
from evalmark.models import RuleJudge
from evalmark.report import Report, SuiteReport
from evalmark.report._render.conversation import failing_turns
from evalmark.report._render.html_assets import STYLE
from evalmark.report._render.terminal import failing_turns_text
from evalmark.results._results import EvaluationResult, ResultColumn
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._registry import get_strategy_kind

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
from test_html_helpers import Node, parse

from evalmark.report import render_report

DEMO = Path(__file__).resolve().parents[2] / "golden" / "support-chat"
SCRIPT = (
    ScriptedTurn("I am on the Team plan"),
    ScriptedTurn("refund please", expected_facts=("30 days",)),
    ScriptedTurn("price?", expected_facts=("$290",)),
)


def forgetful(message: str, thread_id: str) -> str:
    if message.startswith("refund"):
        return "Refunds take 30 days. Could you remind me which plan you are on?"
    if message.startswith("price"):
        return "It is $29 a month."
    return "Noted."


def report() -> Report:
    cases = [
        ConversationCase(
            simulate(forgetful, SimulatedUser.scripted(SCRIPT), name="forgot"), SCRIPT
        ),
        ConversationCase(
            simulate(forgetful, SimulatedUser.scripted(SCRIPT[:1]), name="fine"), SCRIPT[:1]
        ),
    ]
    facts: Any = get_strategy_kind("contains-facts").build({"name": "contains-facts"}, None)
    return score_conversations(
        cases,
        turn_strategies=[facts],
        conversation_strategies=[LLMJudge("knowledge-retention", RuleJudge())],
        turn_filter=lambda label, sample: bool(sample.expected_facts),
        name="chat",
    )


def plain() -> Report:
    return Report(
        name="plain",
        sample_names=["a"],
        sample_tags=[()],
        columns={"check": ResultColumn.from_results([EvaluationResult.from_bool(False)])},
    )


def test_failing_turns_name_conversation_turn_check_and_reason() -> None:
    found = [(name, turn, check) for name, turn, check, _ in failing_turns(report())]
    # turn 2 forgot the plan (located by the whole-conversation check); turn 3 lacks "$290"
    assert found == [
        ("forgot", 2, "knowledge-retention"),
        ("forgot", 3, "contains-facts"),
    ]
    assert failing_turns(plain()) == []


def test_the_terminal_prints_one_line_per_failing_turn() -> None:
    lines = failing_turns_text(report()).splitlines()
    assert lines[0].split() == ["conversation", "turn", "check", "reason"]
    assert re.match(r"  forgot +2  knowledge-retention  fails from turn 2", lines[2])
    assert re.match(r"  forgot +3  contains-facts  .*\$290", lines[3])
    assert len(lines) == 4
    assert failing_turns_text(plain()) == ""


def test_the_suite_markdown_has_the_transcript_of_each_failing_conversation() -> None:
    text = render_report(SuiteReport([report(), plain()], name="both"), "markdown")
    section = text.split("## chat: 1 failing case", 1)[1].split("## plain:", 1)[0]
    assert "### Transcripts of failing conversations: 1" in section
    assert "#### forgot" in section and "#### fine" not in section
    turn2 = section.index("**Turn 2, user:** refund please")
    flag = section.index("> ❌ **knowledge-retention**: fails from turn 2")
    assert turn2 < flag < section.index("**Turn 3, user:** price?")
    assert "Could you remind me which plan you are on?" in section
    assert "Transcripts" not in text.split("## plain:", 1)[1]


def turns(doc: Node) -> list[Node]:
    return doc.by_id("transcripts").find_all("div", "turn")


def test_the_html_transcript_marks_the_failing_turns_and_separates_the_speakers() -> None:
    doc = parse(render_report(report(), "html"))
    shown = turns(doc)
    assert len(shown) == 3
    marked = ["failing" in (t.attrs.get("class") or "").split() for t in shown]
    assert marked == [False, True, True]
    second = shown[1]
    assert second.find_all("span", "turn-mark")[0].text == "failing turn"
    assert second.find_all("div", "user")[0].text == "refund please"
    assert "Could you remind me" in second.find_all("div", "assistant")[0].text
    flags = [p.text for p in second.find_all("p", "flag")]
    assert len(flags) == 1 and flags[0].startswith("knowledge-retention fail: fails from turn 2")
    assert not shown[0].find_all("p", "flag") and not shown[0].find_all("span", "turn-mark")


def test_every_class_of_the_conversation_sections_is_styled() -> None:
    doc = parse(render_report(report(), "html"))
    used: set[str] = set()
    for ident in ("conversations", "transcripts"):
        for node in doc.by_id(ident).iter():
            used.update((node.attrs.get("class") or "").split())
    # verdict classes (pass, fail, n, v) are styled by the tables' rules
    assert {
        "transcript",
        "turn",
        "failing",
        "msg",
        "user",
        "assistant",
        "flag",
        "turn-mark",
    } <= used
    styled = set(re.findall(r"\.([a-z][a-z-]*)", STYLE))
    assert used <= styled, used - styled


def test_evalmark_run_prints_the_failing_turn_of_the_regressed_demo(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["run", str(DEMO), "--build", "regressed", "--offline", "--no-history"]
    code = main([*args, "--report-dir", str(tmp_path), "-q"])
    out = capsys.readouterr().out
    assert code == 1
    block = out.split("failing conversation turns:\n", 1)[1].split("\n\n", 1)[0]
    rows = block.splitlines()[2:]
    assert len(rows) == 1
    assert rows[0].split()[:3] == ["refund-annual-team", "2", "knowledge-retention"]
    assert "Could you remind me" in rows[0]
