"""Properties of the conversation face's async scorer and its simulation record, over generated
scripts: ``ascore_conversations`` gives the report ``score_conversations`` gives, and a
``Simulation`` of an application that raises at a turn keeps the turns before it and names
that turn (counted from 1) and the error."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import SimulatedUser, simulate
from evalmark.conversation import ConversationCase, ScriptedTurn, Simulation, ascore_conversations
from evalmark.conversation._report import score_conversations
from evalmark.conversation._simulate import StopReason
from evalmark.report import render_report
from evalmark.strategies import Contains, ContainsFacts

WORDS = st.sampled_from(["refund", "plan", "hello", "30 days", "é", "\u202e", "名"])
SCRIPTS = st.lists(st.lists(WORDS, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=5)


def reply(message: str, thread_id: str) -> str:
    """An application that repeats the message and sometimes states the fact."""
    return f"{message} in 30 days" if len(message) % 2 else message


def cases_of(scripts: list[list[str]]) -> list[ConversationCase]:
    """One scored case per script, every turn expecting the fact "30 days"."""
    cases = []
    for i, script in enumerate(scripts):
        turns = [ScriptedTurn(m, expected_facts=("30 days",)) for m in script]
        played = simulate(reply, SimulatedUser.scripted(turns), name=f"c{i}", thread_id=f"c{i}")
        cases.append(ConversationCase(played, turns, ("t",) if i % 2 else ()))
    return cases


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(SCRIPTS, min_size=1, max_size=4), st.integers(1, 8))
def test_the_async_scorer_gives_the_report_of_the_sync_one(
    scripts: list[list[str]], concurrency: int
) -> None:
    cases = cases_of(scripts)
    checks = {"turn_strategies": [ContainsFacts()], "conversation_strategies": [Contains("days")]}
    once = score_conversations(cases, concurrency=1, **checks)
    awaited = asyncio.run(ascore_conversations(cases, concurrency=concurrency, **checks))
    assert render_report(awaited, "json") == render_report(once, "json")


@settings(max_examples=examples(60), deadline=None)
@given(SCRIPTS, st.integers(0, 6))
def test_a_simulation_stopped_by_an_error_keeps_the_turns_before_it(
    script: list[str], failing_turn: int
) -> None:
    def app(message: str, thread_id: str) -> str:
        if len(app_calls) == failing_turn:
            raise RuntimeError(f"broke on {message!r}")
        app_calls.append(message)
        return "ok"

    app_calls: list[str] = []
    played = simulate(app, SimulatedUser.scripted(script), max_turns=10, name="c")
    assert isinstance(played, Simulation)
    if failing_turn >= len(script):  # the script ends first
        assert played.error is None and played.error_turn is None
        assert [t.input for t in played.turns] == script
        assert played.stopped is not StopReason.APP_ERROR
        return
    assert played.stopped is StopReason.APP_ERROR
    assert [t.input for t in played.turns] == script[:failing_turn] == app_calls
    assert played.error == f"RuntimeError: broke on {script[failing_turn]!r}"
    assert played.error_turn == failing_turn + 1  # turns count from 1
