"""``register_code_strategies``: the code kinds join the strategy registry, a kind of that name
registered before is kept, and calling it again changes nothing."""

from __future__ import annotations

import pytest

import evalmark.strategies._registry as registry
from evalmark.code import register_code_strategies
from evalmark.code._kinds import CODE_KINDS
from evalmark.strategies._registry import StrategyKind


def test_the_code_kinds_are_registered_once_and_a_kind_already_there_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = {kind.name for kind in CODE_KINDS}
    mine = StrategyKind("json-syntax", "mine", lambda options, judge: None, {}, None)
    kinds = {name: kind for name, kind in registry._kinds.items() if name not in names}
    kinds["json-syntax"] = mine
    monkeypatch.setattr(registry, "_kinds", kinds)
    monkeypatch.setattr(registry, "_entry_points_loaded", True)  # no entry points: only ours

    register_code_strategies()
    after = dict(registry._kinds)
    assert after["json-syntax"] is mine
    assert {kind.name: kind for kind in CODE_KINDS if kind.name != "json-syntax"}.items() <= (
        after.items()
    )
    register_code_strategies()
    assert dict(registry._kinds) == after
