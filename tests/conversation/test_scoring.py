"""Scoring conversations: per-turn, whole-conversation and trajectory checks, the turn named in
failures, application errors, and reports byte-identical for any concurrency."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any

import pytest

from evalmark.conversation import ConversationCase, ScriptedTurn, simulate_many
from evalmark.conversation._report import score_conversations
from evalmark.conversation._scoring import turn_sample
from evalmark.conversation._simulate import Plan, simulate
from evalmark.conversation._users import SimulatedUser
from evalmark.engine._run import run_sync
from evalmark.gates import require_budget
from evalmark.models import RuleJudge, ScriptedChat
from evalmark.report import render_report
from evalmark.samples._case import ToolCall
from evalmark.samples._samples import Sample
from evalmark.strategies._llm_judge import LLMJudge
from evalmark.strategies._registry import get_strategy_kind
from evalmark.strategies._trajectory import TrajectoryMatch


def contains_facts() -> Any:
    return get_strategy_kind("contains-facts").build({"name": "contains-facts"}, None)


def retention() -> LLMJudge:
    return LLMJudge("knowledge-retention", RuleJudge())


def forgetful_app(message: str, thread_id: str) -> str:
    if message.startswith("refund"):
        return "Refunds take 30 days. Could you remind me which plan you are on?"
    if message.startswith("price"):
        return "It is $29 a month."
    return "Noted."


SCRIPT = (
    ScriptedTurn("I am on the Team plan"),
    ScriptedTurn("refund please", expected_facts=("30 days",)),
    ScriptedTurn("price?", expected_facts=("$290",)),
)


def case(name: str = "c1", app: Any = forgetful_app) -> ConversationCase:
    user = SimulatedUser.scripted(SCRIPT)
    return ConversationCase(simulate(app, user, name=name), SCRIPT, ("billing",))


def needs_facts(label: str, sample: Sample) -> bool:
    return bool(sample.expected_facts)


def test_turn_samples_carry_the_turn_its_expectations_and_the_history() -> None:
    sample = turn_sample(case(), 2)
    assert sample.name == "c1 turn 2" and sample.parameters[0] == "refund please"
    assert sample.expected_facts == ("30 days",) and sample.tags == ("billing",)
    assert sample.metadata["turn"] == 2 and sample.metadata["conversation-id"] == "c1"
    assert sample.metadata["conversation"] == [
        {"role": "user", "content": "I am on the Team plan"},
        {"role": "assistant", "content": "Noted."},
    ]


def test_per_turn_checks_name_the_first_failing_turn_and_whole_checks_locate_it() -> None:
    report = score_conversations(
        [case()],
        turn_strategies=[contains_facts()],
        conversation_strategies=[retention()],
        turn_filter=needs_facts,
    )
    (row,) = report.rows()
    assert row.name == "c1" and not row.passed and row.tags == ("billing",)
    facts = row.results["contains-facts"]
    assert not facts.passed and facts.explanation.startswith("turn 3: ")
    assert facts.metadata["turn"] == 3 and facts.metadata["turns"] == 2
    kept = row.results["knowledge-retention"]
    assert not kept.passed and kept.metadata["turn"] == 2
    assert kept.explanation.startswith("fails from turn 2: ")
    (record,) = report.metadata["conversations"]
    assert [t["checks"].keys() for t in record["turns"]] == [
        set(),
        {"contains-facts"},
        {"contains-facts"},
    ]
    assert record["turns"][1]["checks"]["contains-facts"]["verdict"] == "pass"
    assert record["checks"]["knowledge-retention"]["turn"] == 2


def test_without_a_filter_every_turn_is_judged() -> None:
    report = score_conversations([case()], turn_strategies=[contains_facts()])
    result = report.row(0).results["contains-facts"]
    assert result.is_error and result.explanation.startswith("turn 1: ")  # no facts on turn 1


def test_a_passing_conversation_passes_every_check() -> None:
    def good(message: str, thread_id: str) -> str:
        return {"refund please": "Within 30 days.", "price?": "$290 a year."}.get(message, "Ok.")

    report = score_conversations(
        [case(app=good)],
        turn_strategies=[contains_facts()],
        conversation_strategies=[retention(), LLMJudge("task-completion", RuleJudge())],
        turn_filter=needs_facts,
    )
    row = report.row(0)
    assert row.passed and row.results["contains-facts"].explanation == "2 of 2 judged turns passed"
    assert report.metadata["conversations"][0]["passed"] is True


def test_trajectory_checks_judge_the_tool_calls_of_the_whole_conversation() -> None:
    def agent(message: str, thread_id: str) -> dict[str, Any]:
        tool = "lookup_invoice" if "invoice" in message else "issue_refund"
        return {"content": "done", "tool_calls": [{"name": tool, "arguments": {}}]}

    user = SimulatedUser.scripted(["find invoice 7", "refund it"])
    expected = (ToolCall("lookup_invoice"), ToolCall("issue_refund"))
    cases = [
        ConversationCase(simulate(agent, user, name="ok"), expected_tool_calls=expected),
        ConversationCase(
            simulate(agent, user, name="wrong"), expected_tool_calls=(ToolCall("close_account"),)
        ),
    ]
    report = score_conversations(
        cases,
        trajectory_strategies=[
            TrajectoryMatch(mode="strict", arguments="ignore", name="trajectory")
        ],
    )
    assert report.strategies == ("trajectory",)
    verdicts = [row.results["trajectory"].passed for row in report.rows()]
    assert verdicts == [True, False]
    record = report.metadata["conversations"][0]
    assert record["turns"][0]["tool-calls"] == [{"name": "lookup_invoice", "arguments": {}}]


def test_an_application_error_is_an_error_row_naming_conversation_and_turn() -> None:
    def broken(message: str, thread_id: str) -> str:
        if message.startswith("refund"):
            raise RuntimeError("billing service timed out")
        return "Noted."

    report = score_conversations([case("outage", broken)], conversation_strategies=[retention()])
    result = report.row(0).results["knowledge-retention"]
    assert result.is_error and result.error is not None and result.error.kind == "function"
    assert result.error.message == (
        "conversation 'outage', turn 2: RuntimeError: billing service timed out"
    )
    record = report.metadata["conversations"][0]
    assert record["stopped"] == "app-error"
    assert record["error"] == {"turn": 2, "message": "RuntimeError: billing service timed out"}


def test_checks_need_names_of_their_own_and_at_least_one_check() -> None:
    with pytest.raises(ValueError, match="share the name knowledge-retention"):
        score_conversations([case()], conversation_strategies=[retention(), retention()])
    with pytest.raises(ValueError, match="at least one check"):
        score_conversations([case()])


def test_many_conversations_give_byte_identical_reports_for_any_concurrency() -> None:
    async def jittery(message: str, thread_id: str) -> str:
        # Completion order differs from call order: later conversations often finish first.
        await asyncio.sleep(random.random() / 500)
        number = int(thread_id.split("-")[1])
        if message.startswith("refund") and number % 3 == 0:
            return "Refunds take 30 days. Could you remind me which plan you are on?"
        return {"refund please": "30 days.", "price?": "$290."}.get(message, "Noted.")

    plans = [Plan(f"conv-{n}", SimulatedUser.scripted(SCRIPT), 3) for n in range(24)]

    def run(concurrency: int) -> tuple[str, str, str]:
        simulations = run_sync(simulate_many(jittery, plans, concurrency=concurrency))
        assert [s.name for s in simulations] == [p.name for p in plans]
        cases = [ConversationCase(s, SCRIPT) for s in simulations]
        report = score_conversations(
            cases,
            turn_strategies=[contains_facts()],
            conversation_strategies=[retention()],
            turn_filter=needs_facts,
            concurrency=concurrency,
        )
        return (
            render_report(report, "json"),
            render_report(report, "markdown"),
            render_report(report, "html"),
        )

    first = run(1)
    for concurrency in (2, 8, 24):
        assert run(concurrency) == first
    document = json.loads(first[0])
    failing = [r["id"] for r in document["metadata"]["conversations"] if not r["passed"]]
    assert failing == [f"conv-{n}" for n in range(0, 24, 3)]


def test_simulate_many_wants_distinct_names() -> None:
    plans = [
        Plan("same", SimulatedUser.scripted(["a"])),
        Plan("same", SimulatedUser.scripted(["b"])),
    ]
    with pytest.raises(Exception, match="repeated: same"):
        run_sync(simulate_many(forgetful_app, plans))


def test_simulate_many_runs_conversations_at_once_within_the_limit() -> None:
    lock = threading.Lock()
    state = {"now": 0, "most": 0}

    def slow(message: str, thread_id: str) -> str:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)  # long enough for the others to enter, even on a busy machine
        with lock:
            state["now"] -= 1
        return "ok"

    plans = [Plan(f"c{n}", SimulatedUser.scripted(["a", "b"]), 2) for n in range(16)]
    simulations = run_sync(simulate_many(slow, plans, concurrency=4))
    assert [s.name for s in simulations] == [p.name for p in plans]
    assert all(s.thread_id == s.name for s in simulations)
    assert 2 <= state["most"] <= 4


HISTORY_PROMPT = """---
name: fits-the-conversation
group: conversation
title: Fits the conversation
summary: Does the reply fit the conversation before it?
system: You review chat replies.
variables:
  conversation:
    description: the conversation before the reply
    type: conversation
  inputs:
    description: the newest user message
  outputs:
    description: the reply
score: bool
rule: {kind: absent, block: conversation, lexicon: forgetful, roles: [assistant]}
---
Before: {{conversation}}
Message: {{inputs}}
Reply: {{outputs}}
"""


def test_a_per_turn_judge_can_read_the_conversation_so_far() -> None:
    from evalmark.models._prompts.files import parse_prompt

    judge = ScriptedChat(
        {
            "Could you remind me": '{"reasoning": "forgot", "score": false}',
            ".": '{"reasoning": "fine", "score": true}',
        }
    )
    check = LLMJudge(parse_prompt(HISTORY_PROMPT), judge, mode="prompted")
    score_conversations([case()], turn_strategies=[check])
    prompts = [call.messages[-1]["content"] for call in judge.calls]
    assert len(prompts) == 3
    turn_three = next(p for p in prompts if "Message: <<<BEGIN INPUTS>>>\nprice?" in p)
    assert "[user] I am on the Team plan" in turn_three
    assert "[assistant] Refunds take 30 days. Could you remind me" in turn_three


def test_token_counts_of_each_turn_sum_per_conversation_for_budget_gates() -> None:
    from evalmark.models._values import ChatReply, Usage

    def app(message: str, thread_id: str) -> ChatReply:
        # A long question costs more: 10 tokens in per word, 5 out.
        words = len(message.split())
        return ChatReply(text="noted", usage=Usage(10 * words, 5, 10 * words + 5))

    short = simulate(app, SimulatedUser.scripted(["hi", "thanks"]), name="short")
    long = simulate(
        app, SimulatedUser.scripted(["one two three four", "five six seven eight"]), name="long"
    )
    cases = [ConversationCase(short), ConversationCase(long)]
    report = score_conversations(cases, turn_strategies=[contains_facts()])
    totals = {row.name: row.usage.total_tokens for row in report.rows() if row.usage}
    assert totals == {"short": 2 * 15, "long": 2 * 45}
    require_budget(report, tokens=90, total_tokens=120)
    with pytest.raises(AssertionError, match=r"tokens per case is 90, above the budget 50"):
        require_budget(report, tokens=50)
