"""The strategy registry: the one list of strategy kinds that suites, their schema and the
command line read; extensible with ``register_strategy`` and entry points."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalmark.models._prompts import PROMPTS
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._kinds import check_text
from evalmark.strategies._registry import (
    STRATEGY_KINDS,
    StrategyKind,
    build_strategy,
    get_strategy_kind,
    register_strategy,
    unregister_strategy,
)
from evalmark.suite import suite_file_schema
from evalmark.suite._loader import load_suite
from evalmark.suite._model import STRATEGY_KINDS as SUITE_KINDS
from evalmark.suite._runner import run_suite

registry = importlib.import_module("evalmark.strategies._registry")


class StartsWith:
    def __init__(self, prefix: str, name: str) -> None:
        self.prefix = prefix
        self.name = name

    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        return EvaluationResult.from_bool(str(output).startswith(self.prefix))


@pytest.fixture
def starts_with() -> Any:
    kind = register_strategy(
        "starts-with",
        lambda options, judge: StartsWith(options.get("prefix", ""), options["name"]),
        summary="the output starts with the prefix",
        options={"prefix": check_text},
    )
    yield kind
    unregister_strategy("starts-with")


def test_suites_read_the_registry_itself() -> None:
    assert SUITE_KINDS is STRATEGY_KINDS
    assert list(STRATEGY_KINDS)[:3] == ["exact-match", "contains", "contains-facts"]


def test_the_judged_kinds_are_the_judge_prompts() -> None:
    judged = {kind.prompt for kind in STRATEGY_KINDS.values() if kind.judged}
    # llm-judge takes its prompt from the catalog as an option (evalmark.prompts).
    assert judged == set(PROMPTS) | {"catalog"}
    assert get_strategy_kind("rubric").accepted.keys() == {
        "name",
        "repeats",
        "reducer",
        "min-grade",
    }
    assert "repeats" not in get_strategy_kind("token-f1").accepted


def test_a_kind_builds_its_strategy_with_its_name() -> None:
    assert build_strategy("token-f1", {"threshold": 0.42}).threshold == 0.42
    assert build_strategy("token-f1").name == "token-f1"
    assert build_strategy("contains", {"name": "has-it"}).name == "has-it"


def test_unknown_kinds_list_the_known_ones() -> None:
    with pytest.raises(KeyError, match="no strategy kind named 'tokenf1'; the known kinds are"):
        get_strategy_kind("tokenf1")
    assert "tokenf1" not in STRATEGY_KINDS


def test_registering_twice_needs_replace(starts_with: StrategyKind) -> None:
    with pytest.raises(ValueError, match="already registered; pass replace=True"):
        register_strategy("starts-with", lambda options, judge: None)
    replaced = register_strategy(
        "starts-with", lambda o, j: StartsWith("x", o["name"]), summary="x", replace=True
    )
    assert STRATEGY_KINDS["starts-with"] is replaced
    with pytest.raises(TypeError, match="the factory must be a function"):
        register_strategy("broken", None)
    with pytest.raises(ValueError, match="non-empty name"):
        register_strategy(" ", lambda o, j: None)


def test_a_registered_kind_works_in_a_suite_file_and_its_schema(
    starts_with: StrategyKind, tmp_path: Path
) -> None:
    (tmp_path / "samples.yaml").write_text(
        "- {name: one, parameters: [a], expected-output: 'yes a'}\n"
        "- {name: two, parameters: [b], expected-output: 'yes b'}\n",
        encoding="utf-8",
    )
    (tmp_path / "app.py").write_text("def answer(q):\n    return 'yes ' + q\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(
        textwrap.dedent(
            """\
            name: custom
            samples: samples.yaml
            application: {function: "app.py:answer"}
            strategies:
              - starts-with: {prefix: "yes", name: polite}
            gate: {pass-rate: 1.0}
            """
        ),
        encoding="utf-8",
    )
    suite = load_suite(tmp_path)
    run = run_suite(suite)
    assert run.passed and run.reports[0].strategies == ("polite",)
    kinds = str(suite_file_schema())
    assert "starts-with" in kinds and "the output starts with the prefix" in kinds


def test_a_suite_option_the_kind_does_not_accept_is_refused(
    starts_with: StrategyKind, tmp_path: Path
) -> None:
    (tmp_path / "samples.yaml").write_text(
        "- {name: one, parameters: [a], expected-output: a}\n", encoding="utf-8"
    )
    (tmp_path / "suite.yaml").write_text(
        "name: s\nsamples: samples.yaml\napplication: {function: 'x:y'}\n"
        "strategies:\n  - starts-with: {prefx: 'yes'}\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="did you mean 'prefix'"):
        load_suite(tmp_path)


def test_entry_points_add_kinds_on_first_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = StrategyKind("from-plugin", "a plug-in check", lambda o, j: StartsWith("", o["name"]))
    entry = SimpleNamespace(name="from-plugin", value="plugin:KIND", load=lambda: kind)
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [entry] if group == registry.ENTRY_POINT_GROUP else [],
    )
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    try:
        assert get_strategy_kind("from-plugin") is kind
        assert "from-plugin" in list(STRATEGY_KINDS)
    finally:
        unregister_strategy("from-plugin")


def test_a_broken_entry_point_says_which(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> Any:
        raise ImportError("no module named plugin")

    entry = SimpleNamespace(name="broken", value="plugin:KIND", load=fail)
    monkeypatch.setattr(registry, "entry_points", lambda group: [entry])
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    with pytest.raises(
        RuntimeError, match=r"strategy entry point .broken. \(plugin:KIND\) failed to load"
    ):
        get_strategy_kind("broken")
