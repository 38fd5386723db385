"""Replay that survives reruns: the same logical call replays the same recording however often,
in whatever order, in whichever process makes it (issue 13, item 1)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from evalmark import Evaluation, Sample, Scorer
from evalmark.models import (
    RuleJudge,
    ScriptedChat,
    call_context,
    chat_from_callable,
    record_replay,
)
from evalmark.models._cassette_file import read_cassette
from evalmark.models._modes import MODE_ENV
from evalmark.models._prompts import RELEVANCY
from evalmark.report import render_report
from evalmark.strategies import Contains, ExactMatch, LLMJudge
from evalmark.strategies._base import strategy_name

pytest_plugins = ["pytester"]

QUESTIONS = [f"What is fact number {i}?" for i in range(5)]
SAMPLES = [
    Sample(name=f"s{i}", parameters=[q], expected_output=f"fact {i}")
    for i, q in enumerate(QUESTIONS)
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


def _live_app(log: list[str]) -> Callable[..., str]:
    def live(messages: list[dict[str, Any]], **params: Any) -> str:
        question = str(messages[-1]["content"])
        log.append(question)
        return f"fact {QUESTIONS.index(question)}"

    return live


def _recorded_app(cassette: Path, mode: str | None, log: list[str]) -> Callable[[str], str]:
    chat = record_replay(chat_from_callable(_live_app(log), model_id="app"), cassette, mode)

    def answer(question: str) -> str:
        return chat.chat([{"role": "user", "content": question}]).text

    return answer


def _offline_app(cassette: Path) -> Callable[[str], str]:
    def refuse(messages: list[dict[str, Any]], **params: Any) -> str:
        raise AssertionError("replay must not call the application")

    chat = record_replay(chat_from_callable(refuse, model_id="app"), cassette, "replay")

    def answer(question: str) -> str:
        return chat.chat([{"role": "user", "content": question}]).text

    return answer


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A build of the app recorded by one evaluation run."""
    cassette = tmp_path / "app.jsonl"
    log: list[str] = []
    answer = _recorded_app(cassette, "record-missing", log)
    report = Scorer().evaluate(SAMPLES, answer, ExactMatch())
    assert report.failed == 0 and sorted(log) == sorted(QUESTIONS)
    return cassette


def test_two_runs_in_one_process_replay_the_same_recordings(recorded: Path) -> None:
    answer = _offline_app(recorded)
    evaluation = Evaluation(SAMPLES).evaluate(answer).using(ExactMatch(), Contains())
    first, second = evaluation.run(), evaluation.run()
    assert first.failed == second.failed == 0
    assert render_report(first, "json") == render_report(second, "json")
    third = Scorer(concurrency=4).evaluate(SAMPLES, answer, ExactMatch())
    assert third.failed == 0 and third.errors == 0


def test_two_strategies_and_a_reversed_order_replay(recorded: Path) -> None:
    answer = _offline_app(recorded)
    for strategy in (ExactMatch(), Contains()):  # as @strategy_test(A(), B()) does
        assert Scorer().evaluate(SAMPLES, answer, strategy).failed == 0
    reversed_run = Scorer().evaluate(list(reversed(SAMPLES)), answer, ExactMatch())
    assert reversed_run.failed == 0 and reversed_run.errors == 0
    shuffled = [SAMPLES[i] for i in (3, 0, 4, 2, 1)] * 1
    assert Scorer(concurrency=3).evaluate(shuffled, answer, ExactMatch()).failed == 0


def test_a_prompt_asked_by_two_samples_is_one_recording(tmp_path: Path) -> None:
    cassette = tmp_path / "app.jsonl"
    log: list[str] = []
    twice = [
        Sample(name="a", parameters=[QUESTIONS[0]], expected_output="fact 0"),
        Sample(name="b", parameters=[QUESTIONS[0]], expected_output="fact 0"),
    ]
    answer = _recorded_app(cassette, "record-missing", log)
    assert Scorer().evaluate(twice, answer, ExactMatch()).failed == 0
    assert log == [QUESTIONS[0]]
    assert len(cassette.read_text("utf-8").splitlines()) == 2
    assert Scorer().evaluate(twice, _offline_app(cassette), ExactMatch()).failed == 0


def test_judge_repeats_replay_by_repeat_across_runs_and_run_indexes(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    verdicts = iter(["VERDICT: yes", "VERDICT: no", "VERDICT: yes"] * len(SAMPLES))
    recorder = record_replay(ScriptedChat(list(verdicts)), cassette, "record-missing")
    judge = LLMJudge("relevancy", recorder, repeats=3, reducer="majority", name="rel")
    outputs = [f"fact {i}" for i in range(len(SAMPLES))]
    recorded_report = render_report(Scorer().evaluate_outputs(SAMPLES, outputs, judge), "json")
    replayer = record_replay(ScriptedChat([]), cassette, "replay")
    again = LLMJudge("relevancy", replayer, repeats=3, reducer="majority", name="rel")
    for run_index in (0, 1, 5):
        report = Scorer(run_index=run_index, concurrency=2).evaluate_outputs(
            SAMPLES, outputs, again
        )
        assert render_report(report, "json") == recorded_report
    assert replayer.usage().unused == ()


def test_a_second_recording_run_records_nothing_new(recorded: Path) -> None:
    log: list[str] = []
    before = recorded.read_bytes()
    answer = _recorded_app(recorded, "record-missing", log)
    for _ in range(2):
        assert Scorer().evaluate(SAMPLES, answer, ExactMatch()).failed == 0
    assert log == [] and recorded.read_bytes() == before


def test_the_same_call_in_different_contexts_is_the_same_recording(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    prompt = RELEVANCY.render(question="Is the sky blue?", response="Yes, it is blue.")
    recorder = record_replay(RuleJudge(), cassette, "record-missing")
    with call_context(run_index=0, sample="a", check="relevancy"):
        first = recorder.chat(prompt)
    replayer = record_replay(RuleJudge(), cassette, "replay")  # replay never calls the model
    for run_index, sample, check in [(3, "b", "x"), (0, "a", "relevancy"), (9, "", "")]:
        with call_context(run_index=run_index, sample=sample, check=check):
            assert replayer.chat(prompt) == first
    assert replayer.chat(prompt) == first


# --------------------------------------------------------------------------- pytest sessions

_INSTALLED = any(ep.name == "evalmark" for ep in metadata.entry_points(group="pytest11"))
PLUGIN = [] if _INSTALLED else ["-p", "evalmark.pytest._plugin"]

APP = """
import os
from evalmark.models import chat_from_callable, record_replay

HERE = os.path.dirname(os.path.abspath(__file__))


def _live(messages, **params):
    question = messages[-1]["content"]
    with open(os.path.join(HERE, "live.log"), "a") as log:
        log.write(question + "\\n")
    return "answer to " + question


_chat = record_replay(chat_from_callable(_live, model_id="app"), os.path.join(HERE, "app.jsonl"))


def answer(question):
    return _chat.chat([{"role": "user", "content": question}]).text
"""

SAMPLES_YAML = "".join(
    f"- name: q{i}\n  parameters: [question {i}]\n  expected-output: answer to question {i}\n"
    for i in range(8)
)

TESTS = """
import pytest
from app import answer
from evalmark import load_samples
from evalmark.pytest import strategy_test
from evalmark.strategies import Contains, ExactMatch

QUESTIONS = [f"question {i}" for i in range(8)]


@pytest.mark.parametrize("question", QUESTIONS)
def test_each(question):
    assert answer(question) == "answer to " + question


def test_reused_prompt_one():
    assert answer("question 0") == "answer to question 0"


def test_reused_prompt_two():
    assert answer("question 0") == "answer to question 0"


@strategy_test(ExactMatch(), Contains())
def test_strategies(scorer, strategy):
    samples = load_samples("samples.yaml")
    forward = scorer.evaluate(samples, answer, strategy)
    backward = scorer.evaluate(list(reversed(list(samples))), answer, strategy)
    assert forward.failed == backward.failed == 0
    assert forward.errors == backward.errors == 0
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(app=APP, test_app=TESTS)
    pytester.makefile(".yaml", samples=SAMPLES_YAML)
    return pytester


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]


def _session(project: pytest.Pytester, *args: str, ci: bool = False) -> pytest.RunResult:
    env_ci = os.environ.pop("CI", None)
    if ci:
        os.environ["CI"] = "true"
    try:
        return project.runpytest_subprocess(
            *PLUGIN, "-p", "no:cacheprovider", "-p", "xdist", *args, timeout=240
        )
    finally:
        os.environ.pop("CI", None)
        if env_ci is not None:
            os.environ["CI"] = env_ci


def test_xdist_rewrite_loses_nothing_and_replay_survives_any_rerun(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    cassette = project.path / "app.jsonl"
    log = project.path / "live.log"
    stale = {
        "key": "0" * 64,
        "kind": "chat",
        "index": 0,
        "request": {"kind": "chat", "model": "app", "messages": [], "params": {}},
        "response": {"text": "stale"},
    }
    header = '{"format":"evalmark-cassette","version":1,"key_version":1}'
    cassette.write_text(f"{header}\n{json.dumps(stale)}\n", "utf-8")
    for attempt in range(2):
        result = _session(project, "-n", "2", "--evalmark-record-mode=rewrite")
        result.assert_outcomes(passed=12)
        entries = _entries(cassette)
        asked = sorted(e["request"]["messages"][0]["content"] for e in entries)
        assert asked == sorted(f"question {i}" for i in range(8)), f"attempt {attempt}"
        assert all(e["index"] == 0 for e in entries)
        # the next rewrite run must start afresh again: give it a stale entry to drop
        lines = cassette.read_text("utf-8").splitlines()
        cassette.write_text("\n".join([lines[0], json.dumps(stale), *lines[1:]]) + "\n", "utf-8")
    cassette.write_text(
        "\n".join(line for line in cassette.read_text("utf-8").splitlines() if "stale" not in line)
        + "\n",
        "utf-8",
    )
    log.unlink()
    for args, ci in ((("-n", "2"), False), ((), True), (("-n", "2"), True)):
        replayed = _session(project, *args, ci=ci)
        replayed.assert_outcomes(passed=12)
    assert not log.exists(), "replay never called the live application"


def test_the_committed_support_build_replays_twice_under_two_strategies_in_any_order() -> None:
    from evalmark import load_samples
    from evalmark.suite._application import load_application

    support = Path(__file__).resolve().parents[2] / "golden" / "support"
    answer = load_application(support / "suite.yaml", "healthy")
    samples = list(load_samples(support / "samples.yaml"))
    recorded = {
        e.request["messages"][-1]["content"]: e.response["text"]
        for e in read_cassette(support / "builds" / "healthy.jsonl").entries
    }
    for strategy in (Contains(), ExactMatch()):
        verdicts = []
        for order, concurrency in ((samples, 1), (samples[::-1], 3), (samples, 2)):
            report = Scorer(concurrency=concurrency).evaluate(order, answer, strategy)
            assert report.errors == 0
            name = strategy_name(strategy)
            verdicts.append({s.name: report.result(s.name, name).passed for s in samples})
        assert verdicts[0] == verdicts[1] == verdicts[2]
    assert [answer(*s.parameters) for s in samples] == [recorded[s.parameters[0]] for s in samples]
