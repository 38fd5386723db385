"""Round-trip properties of cassettes over generated prompts, replies, texts and secrets: replay
returns what was recorded for any messages in any order; the file is sorted, so the order of
recording does not change its bytes; embeddings replay bit for bit; a listed secret is never on
disk; every cassette written verifies; a corrupted line is a typed error naming the line.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from budget import examples
from evalmark.cli import main
from evalmark.errors import CassetteFormatError, CassetteMiss
from evalmark.models import (
    HashEmbedding,
    ScriptedChat,
    call_context,
    chat_from_callable,
    embedding_model,
    record_replay,
)
from evalmark.models._cassette_file import read_cassette
from evalmark.models._modes import MODE_ENV

TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=10)
PROMPTS = st.lists(TEXT, min_size=1, max_size=6, unique=True)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


@contextmanager
def cassette_path() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder) / "c.jsonl"


def ask(prompt: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt}]


def replying(replies: dict[str, str]) -> Any:
    """A live model answering each prompt from ``replies``."""
    return chat_from_callable(lambda m, /, **p: replies[m[-1]["content"]], model_id="m")


def record(path: Path, replies: dict[str, str], order: list[str]) -> None:
    model = record_replay(replying(replies), path, "record-missing")
    for prompt in order:
        model.chat(ask(prompt))


@settings(max_examples=examples(40), deadline=None)
@given(PROMPTS, st.data(), st.randoms())
def test_replay_returns_what_was_recorded_in_any_order(
    prompts: list[str], data: Any, random: Any
) -> None:
    replies = {p: data.draw(TEXT) for p in prompts}
    with cassette_path() as path:
        record(path, replies, prompts)
        order = list(prompts)
        random.shuffle(order)
        replayer = record_replay(ScriptedChat([]), path, "replay", model_id="m")
        for prompt in order:
            assert replayer.chat(ask(prompt)).text == replies[prompt]


@settings(max_examples=examples(40), deadline=None)
@given(PROMPTS, TEXT)
def test_replaying_a_call_that_was_never_recorded_is_a_cassette_miss(
    prompts: list[str], other: str
) -> None:
    assume(other not in prompts)
    with cassette_path() as path:
        record(path, {p: "r" for p in prompts}, prompts)
        replayer = record_replay(ScriptedChat([]), path, "replay", model_id="m")
        with pytest.raises(CassetteMiss):
            replayer.chat(ask(other))


@settings(max_examples=examples(30), deadline=None)
@given(PROMPTS, st.randoms())
def test_the_order_of_recording_does_not_change_the_file(prompts: list[str], random: Any) -> None:
    replies = {p: f"reply {i}" for i, p in enumerate(prompts)}
    shuffled = list(prompts)
    random.shuffle(shuffled)
    with cassette_path() as one, cassette_path() as two:
        record(one, replies, prompts)
        record(two, replies, shuffled)
        assert one.read_bytes() == two.read_bytes()


@settings(max_examples=examples(30), deadline=None)
@given(PROMPTS)
def test_the_file_holds_one_sorted_entry_per_distinct_call(prompts: list[str]) -> None:
    with cassette_path() as path:
        record(path, {p: "r" for p in prompts}, prompts + prompts)
        entries = read_cassette(path).entries
        assert len(entries) == len(prompts)
        lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")  # not at U+0085
        assert json.loads(lines[0])["format"] == "evalmark-cassette"
        keys = [json.loads(line)["key"] for line in lines[1:]]
        assert keys == sorted(keys)


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=5), st.integers(1, 32))
def test_embeddings_replay_bit_for_bit(texts: list[str], dim: int) -> None:
    live = HashEmbedding(dim=dim)
    with cassette_path() as path:
        recorded = record_replay(live, path, "record-missing").embed(texts)
        replayer = record_replay(
            embedding_model(lambda t: [[0.0] * dim for _ in t], model_id=live.model_id),
            path,
            "replay",
        )
        again = replayer.embed(texts)
    assert np.array_equal(np.asarray(recorded), np.asarray(again))


@settings(max_examples=examples(40), deadline=None)
@given(
    st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=12, max_size=20),
    st.sampled_from(["system", "user", "param", "reply"]),
    TEXT,
)
def test_a_listed_secret_is_never_on_disk(secret: str, place: str, filler: str) -> None:
    def answer(messages: list[dict[str, Any]], /, **params: Any) -> str:
        return f"ok {secret}" if place == "reply" else "ok"

    messages = [
        {"role": "system", "content": f"{filler} {secret}" if place == "system" else "be brief"},
        {"role": "user", "content": f"use {secret}" if place == "user" else filler},
    ]
    params = {"user": secret} if place == "param" else {}
    with cassette_path() as path:
        model = record_replay(
            chat_from_callable(answer, model_id="m"), path, "record-missing", secrets=[secret]
        )
        model.chat(messages, **params)
        assert secret not in path.read_text(encoding="utf-8")


@settings(max_examples=examples(30), deadline=None)
@given(PROMPTS, st.integers(1, 4))
def test_each_repeat_replays_its_own_recording(prompts: list[str], repeats: int) -> None:
    counter = iter(range(10_000))

    def answer(messages: list[dict[str, Any]], /, **params: Any) -> str:
        return f"{messages[-1]['content']}#{next(counter)}"

    with cassette_path() as path:
        live = record_replay(chat_from_callable(answer, model_id="m"), path, "record-missing")
        seen: dict[tuple[str, int], str] = {}
        for prompt in prompts:
            for repeat in range(repeats):
                with call_context(repeat=repeat):
                    seen[prompt, repeat] = live.chat(ask(prompt)).text
        replayer = record_replay(ScriptedChat([]), path, "replay", model_id="m")
        for (prompt, repeat), text in sorted(seen.items(), reverse=True):
            with call_context(repeat=repeat):
                assert replayer.chat(ask(prompt)).text == text


@settings(max_examples=examples(20), deadline=None)
@given(PROMPTS)
def test_every_recorded_cassette_verifies_and_lists(prompts: list[str]) -> None:
    with cassette_path() as path:
        record(path, {p: p[::-1] for p in prompts}, prompts)
        assert main(["cassette", "verify", str(path)]) == 0
        assert main(["cassette", "ls", str(path)]) == 0


@settings(max_examples=examples(40), deadline=None)
@given(PROMPTS, st.data())
def test_a_corrupted_line_is_a_typed_error_naming_it(prompts: list[str], data: Any) -> None:
    with cassette_path() as path:
        record(path, {p: "r" for p in prompts}, prompts)
        lines = [line + "\n" for line in path.read_text(encoding="utf-8").rstrip("\n").split("\n")]
        at = data.draw(st.integers(1, len(lines) - 1))
        cut = data.draw(st.integers(1, len(lines[at].rstrip("\n")) - 1))
        lines[at] = lines[at][:cut] + "\n"
        path.write_text("".join(lines), encoding="utf-8")
        with pytest.raises(CassetteFormatError, match=f":{at + 1}"):
            read_cassette(path)
