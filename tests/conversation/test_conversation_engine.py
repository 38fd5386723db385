"""Conversation runs go through the engine's run (evalmark.engine): its tracer reporting, its
progress ticks, its repeats, and reports byte-identical for any concurrency."""

from __future__ import annotations

import textwrap
from pathlib import Path

from evalmark.conversation import ConversationCase, ScriptedTurn
from evalmark.conversation._report import score_conversations
from evalmark.conversation._simulate import simulate
from evalmark.conversation._users import SimulatedUser
from evalmark.models import RuleJudge
from evalmark.report import render_report
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._registry import get_strategy_kind
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite
from evalmark.telemetry import RecordingTracer, scope

SCRIPT = (
    ScriptedTurn("I am on the Team plan"),
    ScriptedTurn("refund please", expected_facts=("30 days",)),
)


def app(message: str, thread_id: str) -> str:
    return "Refunds take 30 days." if message.startswith("refund") else "Noted."


def test_a_conversation_run_reports_each_check_into_the_tracer_scope() -> None:
    cases = [
        ConversationCase(simulate(app, SimulatedUser.scripted(SCRIPT), name=n), SCRIPT, ("b",))
        for n in ("c1", "c2")
    ]
    facts = get_strategy_kind("contains-facts").build({"name": "contains-facts"}, None)
    tracer = RecordingTracer()
    with scope(tracer):
        score_conversations(
            cases,
            turn_strategies=[facts],
            turn_filter=lambda label, sample: bool(sample.expected_facts),
            conversation_strategies=[LLMJudge("knowledge-retention", RuleJudge())],
        )
    # One record per check and conversation, as a sample run reports one per check and sample.
    assert sorted((r.strategy, r.sample, r.passed, r.tags) for r in tracer.records) == [
        ("contains-facts", "c1", True, ("b",)),
        ("contains-facts", "c2", True, ("b",)),
        ("knowledge-retention", "c1", True, ("b",)),
        ("knowledge-retention", "c2", True, ("b",)),
    ]


ANSWER = """\
def answer(message, thread_id):
    # The second repeat (thread "<id>#1") of conversation "b" forgets the refund window.
    if message.startswith("refund"):
        return "Refunds take 2 weeks." if thread_id == "b#1" else "Refunds take 30 days."
    return f"Noted ({thread_id})."
"""

SUITE = """\
name: chat
application:
  function: app.py:answer
repeats: {runs: 3, k: 2}
conversations:
  - id: a
    turns: [hi, {text: refund please, expected-facts: [30 days]}]
  - id: b
    turns: [hi, {text: refund please, expected-facts: [30 days]}]
  - id: c
    turns: [hi]
turn-strategies: [contains-facts]
strategies:
  - llm-judge: {prompt: knowledge-retention, name: knowledge-retention}
"""


def write_suite(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(ANSWER, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return path


def test_a_suite_repeats_its_conversations_as_it_repeats_samples(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path))
    ticks: list[tuple[int, int]] = []
    reports = []
    for concurrency in (1, 4):
        run = run_suite(suite, concurrency=concurrency, progress=lambda *t: ticks.append(t))
        (report,) = run.reports
        reports.append(render_report(report, "json"))
    assert reports[0] == reports[1], "the report's bytes do not depend on the concurrency"
    # The progress counts conversations one at a time: 3 conversations x 3 repeats per run.
    assert ticks == [(1, 3)] * 18
    repeats = report.metadata["repeats"]
    assert (repeats["n"], repeats["k"]) == (3, 2)
    assert {name: case["passes"] for name, case in repeats["cases"].items()} == {
        "a": 3,
        "b": 2,
        "c": 3,
    }
    records = report.metadata["conversations"]
    assert records[0]["turns"][0]["assistant"] == "Noted (a#0)."  # each repeat its own thread
