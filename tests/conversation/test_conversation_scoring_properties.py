"""Properties of scoring conversations over generated scripts and verdicts: a per-turn check
passes a conversation exactly when every judged turn passes, with the mean score and the first
failing turn named; each turn's sample carries that turn's scripted expectations and the
conversation before it; and an empty conversation passes with nothing to judge."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import EvaluationResult, SimulatedUser, simulate
from evalmark.conversation import ConversationCase, ScriptedTurn
from evalmark.conversation._scoring import _combine_turns, turn_sample
from evalmark.conversation._simulate import messages_of

RESULTS = st.lists(st.tuples(st.booleans(), st.floats(0, 1), st.text(max_size=5)), max_size=8).map(
    lambda rows: [
        (i + 1, EvaluationResult(ok, score, why)) for i, (ok, score, why) in enumerate(rows)
    ]
)


@settings(max_examples=examples(100), deadline=None)
@given(RESULTS)
def test_a_conversation_passes_a_turn_check_exactly_when_every_judged_turn_passes(
    results: list[tuple[int, EvaluationResult]],
) -> None:
    combined = _combine_turns(results)
    assert combined.passed == all(r.passed for _, r in results)
    if not results:
        assert combined.score == 1.0 and combined.metadata == {"turns": 0}
        return
    assert combined.score == sum(r.score for _, r in results) / len(results)
    assert combined.metadata["turns"] == len(results)
    failing = [n for n, r in results if not r.passed]
    if failing:
        assert combined.metadata["turn"] == failing[0]
        assert combined.explanation.startswith(f"turn {failing[0]}: ")


SCRIPTS = st.lists(
    st.builds(
        ScriptedTurn,
        st.sampled_from(["hi", "price?", "refund", "名"]),
        st.none() | st.sampled_from(["hello", "30 days"]),
        st.lists(st.sampled_from(["a", "b"]), max_size=2).map(tuple),
        st.lists(st.sampled_from(["c", "d"]), max_size=2).map(tuple),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=examples(60), deadline=None)
@given(SCRIPTS, st.lists(st.sampled_from(["vip", "smoke"]), max_size=2, unique=True).map(tuple))
def test_each_turn_sample_holds_its_scripted_expectations_and_the_conversation_before_it(
    script: list[ScriptedTurn], tags: tuple[str, ...]
) -> None:
    simulation = simulate(
        lambda m, t: f"re {m}", SimulatedUser.scripted(script), max_turns=10, name="c"
    )
    case = ConversationCase(simulation, script=script, tags=tags)
    for number, turn in enumerate(simulation.turns, start=1):
        sample = turn_sample(case, number)
        planned = script[number - 1]
        assert sample.name == f"c turn {number}"
        assert sample.parameters[0] == turn.input == planned.text
        assert sample.expected_output == (planned.expected_output or "")
        assert sample.expected_facts == planned.expected_facts
        assert sample.context == planned.context
        assert sample.tags == tags
        assert sample.metadata["conversation"] == messages_of(simulation.turns[: number - 1])
        assert (sample.metadata["turn"], sample.metadata["conversation-id"]) == (number, "c")
