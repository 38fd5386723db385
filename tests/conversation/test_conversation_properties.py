"""Properties of simulated conversations over generated scripts: the application sees each
scripted message once, in order, under one thread id; a conversation stops at the script's end
or its turn limit; many conversations come back in plan order, as one at a time gives them, at
any concurrency; and scoring them gives the same report at any concurrency and in any order."""

from __future__ import annotations

import json
import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import SimulatedUser, simulate
from evalmark.conversation import ConversationCase, ScriptedTurn, simulate_many
from evalmark.conversation._report import score_conversations
from evalmark.conversation._simulate import Plan, StopReason
from evalmark.engine._run import run_sync
from evalmark.report import render_report
from evalmark.strategies import Contains, ContainsFacts

WORDS = st.sampled_from(["refund", "price", "plan", "Team", "hello", "30 days", "é", "\u202e"])
MESSAGES = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)
SCRIPTS = st.lists(MESSAGES, min_size=1, max_size=5)


class EchoApp:
    """Answers with the message and how many it has seen in this thread (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[tuple[str, str]] = []

    def __call__(self, message: str, thread_id: str) -> str:
        with self.lock:
            self.calls.append((message, thread_id))
            seen = sum(1 for _, t in self.calls if t == thread_id)
        return f"{seen}: {message} takes 30 days"


@settings(max_examples=examples(100), deadline=None)
@given(SCRIPTS, st.integers(1, 6))
def test_the_application_sees_each_scripted_message_once_in_order(
    script: list[str], max_turns: int
) -> None:
    app = EchoApp()
    result = simulate(app, SimulatedUser.scripted(script), max_turns=max_turns, name="c")
    turns = min(len(script), max_turns)
    assert [t.input for t in result.turns] == script[:turns]
    assert app.calls == [(m, result.thread_id) for m in script[:turns]]
    assert [t.actual_output for t in result.turns] == [
        f"{i + 1}: {m} takes 30 days" for i, m in enumerate(script[:turns])
    ]
    if len(script) > max_turns:
        assert result.stopped is StopReason.MAX_TURNS
    else:
        assert result.stopped in (StopReason.USER_ENDED, StopReason.MAX_TURNS)


def outline(simulations: list[Any]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [
        (s.name, s.thread_id, [(t.input, t.actual_output) for t in s.turns]) for s in simulations
    ]


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(SCRIPTS, min_size=1, max_size=5), st.integers(1, 8))
def test_many_conversations_come_back_in_plan_order_at_any_concurrency(
    scripts: list[list[str]], concurrency: int
) -> None:
    def plans() -> list[Plan]:
        return [Plan(f"c{i}", SimulatedUser.scripted(s)) for i, s in enumerate(scripts)]

    alone = [simulate(EchoApp(), p.user, thread_id=p.name, name=p.name) for p in plans()]
    many = run_sync(simulate_many(EchoApp(), plans(), concurrency=concurrency))
    assert outline(many) == outline(alone)


def cases_of(scripts: list[list[str]]) -> list[ConversationCase]:
    cases = []
    for i, script in enumerate(scripts):
        turns = [ScriptedTurn(m, expected_facts=("30 days",)) for m in script]
        simulation = simulate(EchoApp(), SimulatedUser.scripted(turns), name=f"c{i}")
        cases.append(ConversationCase(simulation, turns, ("t",) if i % 2 else ()))
    return cases


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(SCRIPTS, min_size=1, max_size=4), st.randoms())
def test_scoring_conversations_does_not_depend_on_concurrency_or_order(
    scripts: list[list[str]], random: Any
) -> None:
    cases = cases_of(scripts)
    checks = {"turn_strategies": [ContainsFacts()], "conversation_strategies": [Contains("1:")]}
    first = render_report(score_conversations(cases, concurrency=1, **checks), "json")
    for concurrency in (2, 8):
        again = render_report(score_conversations(cases, concurrency=concurrency, **checks), "json")
        assert again == first
    shuffled = list(cases)
    random.shuffle(shuffled)
    rows = json.loads(render_report(score_conversations(shuffled, **checks), "json"))["samples"]
    assert sorted(rows, key=lambda r: r["name"]) == sorted(
        json.loads(first)["samples"], key=lambda r: r["name"]
    )
