"""Properties of cassettes: keys stable under dict order and equal for equal requests, secrets of
a known format never on disk wherever they are put, and a state machine that records, replays,
rewrites and prunes a cassette (from several threads too) against a model of what it must hold.
"""

from __future__ import annotations

import json
import random as random_module
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from budget import examples
from evalmark.cli import main
from evalmark.errors import CassetteMiss
from evalmark.models import ScriptedChat, chat_from_callable, record_replay
from evalmark.models._canonical import request_key
from evalmark.models._cassette_file import read_cassette
from evalmark.models._modes import MODE_ENV
from evalmark.models._store import append_usage

TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"]), max_size=8
)  # a lone surrogate is refused, see test_models_cassette
KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-100, 100) | st.floats(-1, 1) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
MESSAGES = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant"]), "content": TEXT}
    ),
    min_size=1,
    max_size=3,
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


def reordered(value: Any, random: random_module.Random) -> Any:
    """``value`` with the keys of every mapping in a shuffled order."""
    if isinstance(value, dict):
        keys = list(value)
        random.shuffle(keys)
        return {k: reordered(value[k], random) for k in keys}
    if isinstance(value, list):
        return [reordered(v, random) for v in value]
    return value


@settings(max_examples=examples(100), deadline=None)
@given(MESSAGES, st.dictionaries(KEYS, VALUES, max_size=4), st.randoms())
def test_a_cassette_key_is_stable_under_dict_order(
    messages: list[dict[str, Any]], params: dict[str, Any], random: random_module.Random
) -> None:
    request = {"model": "m", "messages": messages, "params": params}
    key = request_key(request)
    assert request_key(reordered(request, random)) == key
    assert request_key(json.loads(json.dumps(request))) == key, "equal requests, equal keys"
    changed = {**request, "messages": [*messages, {"role": "user", "content": "more"}]}
    assert request_key(changed) != key


@settings(max_examples=examples(40), deadline=None)
@given(MESSAGES, st.dictionaries(KEYS, VALUES, max_size=3), st.randoms())
@example(
    messages=[{"role": "system", "content": ""}], params={"m": None}, random=random_module.Random(0)
)
def test_a_call_with_its_parameters_in_another_order_replays(
    messages: list[dict[str, Any]], params: dict[str, Any], random: random_module.Random
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cassette = Path(folder) / "c.jsonl"
        live = chat_from_callable(lambda m, /, **p: f"reply to {len(m)}", model_id="m")
        reply = record_replay(live, cassette, "record-missing").chat(messages, **params)
        replayer = record_replay(ScriptedChat([]), cassette, "replay", model_id="m")
        again = replayer.chat(reordered(messages, random), **reordered(params, random))
        assert again == reply


SECRETS = st.one_of(
    st.text(alphabet="abcdefghijkmnopqrstuvwxyzABCDEFGH0123456789", min_size=20, max_size=30).map(
        lambda s: "sk-" + s
    ),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16).map(
        lambda s: "AKIA" + s
    ),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=36, max_size=36).map(
        lambda s: "ghp_" + s
    ),
)
PLACES = st.sampled_from(["message", "system", "param", "nested", "list", "reply"])


@settings(max_examples=examples(40), deadline=None)
@given(SECRETS, st.lists(PLACES, min_size=1, max_size=3, unique=True), TEXT)
def test_a_secret_of_a_known_format_is_never_on_disk_wherever_it_is_put(
    secret: str, places: list[str], filler: str
) -> None:
    def answer(messages: list[dict[str, Any]], **params: Any) -> str:
        return f"noted {secret} ok" if "reply" in places else "noted"

    messages = [
        {"role": "system", "content": f"{filler} {secret}" if "system" in places else "be brief"},
        {"role": "user", "content": f"use {secret} now" if "message" in places else filler},
    ]
    params: dict[str, Any] = {"temperature": 0}
    if "param" in places:
        params["user"] = secret
    if "nested" in places:
        params["metadata"] = {"note": {"deep": f"x {secret}"}}
    if "list" in places:
        params["stop"] = ["a", secret]
    with tempfile.TemporaryDirectory() as folder:
        cassette = Path(folder) / "c.jsonl"
        recorder = record_replay(
            chat_from_callable(answer, model_id="m"), cassette, "record-missing"
        )
        recorder.chat(messages, **params)
        stored = cassette.read_bytes()
        assert secret.encode() not in stored
        assert secret[4:].encode() not in stored
        for leftover in Path(folder).iterdir():
            assert secret.encode() not in leftover.read_bytes(), leftover.name


PROMPTS = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon"])


def ask(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


class CassetteMachine(RuleBasedStateMachine):
    """A cassette and the replies it must hold, one per prompt (each recorded once)."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.path = Path(self.folder.name) / "c.jsonl"
        self.model: dict[str, str] = {}
        self.version = 0  # the live model's answers change when it is rewritten
        self.rewritten = False

    def live(self) -> Any:
        version = self.version

        def answer(messages: list[dict[str, Any]], **params: Any) -> str:
            return f"{messages[-1]['content']} v{version}"

        return chat_from_callable(answer, model_id="m")

    def teardown(self) -> None:
        self.folder.cleanup()

    @rule(prompt=PROMPTS)
    def record_missing(self, prompt: str) -> None:
        reply = record_replay(self.live(), self.path, "record-missing").chat(ask(prompt))
        expected = self.model.setdefault(prompt, f"{prompt} v{self.version}")
        assert reply.text == expected

    @rule(prompts=st.lists(PROMPTS, min_size=2, max_size=6), threads=st.integers(2, 4))
    def record_from_threads(self, prompts: list[str], threads: int) -> None:
        recorder = record_replay(self.live(), self.path, "record-missing")
        got: dict[int, str] = {}
        barrier = threading.Barrier(threads)

        def work(worker: int) -> None:
            barrier.wait(timeout=10)
            for i in range(worker, len(prompts), threads):
                got[i] = recorder.chat(ask(prompts[i])).text

        pool = [threading.Thread(target=work, args=(w,)) for w in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join(timeout=30)
        for prompt in prompts:
            self.model.setdefault(prompt, f"{prompt} v{self.version}")
        assert got == {i: self.model[p] for i, p in enumerate(prompts)}

    @rule(prompt=PROMPTS)
    def replay(self, prompt: str) -> None:
        replayer = record_replay(ScriptedChat([]), self.path, "replay", model_id="m")
        if prompt in self.model:
            assert replayer.chat(ask(prompt)).text == self.model[prompt]
        else:
            with pytest.raises(CassetteMiss):
                replayer.chat(ask(prompt))

    @precondition(lambda self: not self.rewritten)
    @rule(prompts=st.lists(PROMPTS, min_size=1, max_size=3, unique=True))
    def rewrite(self, prompts: list[str]) -> None:
        # once per run: a rewrite starts the file afresh (later rewriters of the run add to it)
        self.version += 1
        recorder = record_replay(self.live(), self.path, "rewrite")
        for prompt in prompts:
            assert recorder.chat(ask(prompt)).text == f"{prompt} v{self.version}"
        self.model = {p: f"{p} v{self.version}" for p in prompts}
        self.rewritten = True

    @precondition(lambda self: bool(self.model))
    @rule(data=st.data())
    def prune(self, data: st.DataObject) -> None:
        keep = data.draw(st.sets(st.sampled_from(sorted(self.model))), label="kept prompts")
        entries = read_cassette(self.path).entries
        used = [(e.key, e.index) for e in entries if e.request["messages"][-1]["content"] in keep]
        usage = Path(self.folder.name) / "usage.jsonl"
        usage.write_bytes(b"")  # a run that used no entry leaves an empty usage file
        append_usage(usage, str(self.path), used)
        code = main(["cassette", "prune", str(self.path), "--usage", str(usage)])
        if keep:
            assert code == 0
            self.model = {p: r for p, r in self.model.items() if p in keep}
        else:
            assert code == 2, "prune refuses to empty a cassette"

    @invariant()
    def holds_what_the_model_holds(self) -> None:
        if not self.path.exists():
            assert not self.model
            return
        entries = read_cassette(self.path).entries
        stored = {e.request["messages"][-1]["content"]: e.response["text"] for e in entries}
        assert stored == self.model
        assert len({(e.key, e.index) for e in entries}) == len(entries), "an entry twice"
        assert [(e.key, e.index) for e in entries] == sorted((e.key, e.index) for e in entries)


CassetteMachine.TestCase.settings = settings(
    max_examples=examples(20), stateful_step_count=12, deadline=None
)
TestCassetteStore = CassetteMachine.TestCase
