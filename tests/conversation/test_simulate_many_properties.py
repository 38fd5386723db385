"""Property of simulating many conversations: plans with a repeated name are refused naming
every repeated name before any conversation is played."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark import SimulatedUser
from evalmark.conversation import simulate_many
from evalmark.conversation._simulate import Plan
from evalmark.engine._run import run_sync
from evalmark.errors import ConversationError


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "名"]), min_size=2, max_size=6), st.integers(1, 4))
def test_plans_with_a_repeated_name_are_refused_before_any_is_played(
    names: list[str], concurrency: int
) -> None:
    calls: list[str] = []

    def app(message: str, thread_id: str) -> str:
        calls.append(thread_id)
        return "ok"

    plans = [Plan(n, SimulatedUser.scripted(["hi"])) for n in names]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if not repeated:
        done = run_sync(simulate_many(app, plans, concurrency=concurrency))
        assert [s.name for s in done] == names and sorted(calls) == sorted(names)
        return
    with pytest.raises(ConversationError) as caught:
        run_sync(simulate_many(app, plans, concurrency=concurrency))
    assert calls == []
    assert str(caught.value).endswith(", ".join(repeated))
