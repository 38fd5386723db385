"""Single flight: callers that miss the same recording at once (threads, tasks, or both) make
one live call; the others wait for its recording and replay it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalmark import Sample, Scorer
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.models import record_replay
from evalmark.models._modes import MODE_ENV
from evalmark.report import render_report
from evalmark.strategies import ExactMatch

# Long enough for a second caller to reach the model when nothing stops it; a caller that
# single flight holds back never arrives, and the model goes on after this.
RACE_SECONDS = 0.5


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


class CountingModel:
    """A chat and embedding model that counts its calls. Inside a call it waits at a barrier
    for a second caller, so without single flight two racing callers are both inside it."""

    model_id = "counting"

    def __init__(self, *, fail_first: bool = False, parties: int = 2) -> None:
        self.calls: list[str] = []
        self.barrier = threading.Barrier(parties)
        self.entered = threading.Event()  # a caller is inside the model
        self.fail_first = fail_first
        self._lock = threading.Lock()

    def _meet(self) -> None:
        self.entered.set()
        with contextlib.suppress(threading.BrokenBarrierError):
            self.barrier.wait(RACE_SECONDS)

    def _answer(self, messages: Sequence[Any]) -> str:
        question = str(messages[-1]["content"])
        with self._lock:
            self.calls.append(question)
            first = len(self.calls) == 1
        if first and self.fail_first:
            raise ConnectionError("the live model dropped the first call")
        return "answer to " + question

    def chat(self, messages: Sequence[Any], **params: Any) -> str:
        self._meet()
        return self._answer(messages)

    async def achat(self, messages: Sequence[Any], **params: Any) -> str:
        await asyncio.to_thread(self._meet)
        return self._answer(messages)


class CountingEmbedding(CountingModel):
    """:class:`CountingModel` as an embedding model: a text's vector is (its length, 1)."""

    chat = None  # type: ignore[assignment]

    def embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        self._meet()
        with self._lock:
            self.embedded = [*getattr(self, "embedded", []), *texts]
        return np.array([[len(text), 1.0] for text in texts], dtype=np.float32)


QUESTION = [{"role": "user", "content": "What is the refund window?"}]


def _entries(cassette: Path) -> int:
    return len(cassette.read_text("utf-8").splitlines()) - 1  # the first line is the header


def test_two_threads_missing_one_recording_make_one_live_call(tmp_path: Path) -> None:
    model = CountingModel()
    recorder = record_replay(model, tmp_path / "c.jsonl", "record-missing")
    with ThreadPoolExecutor(2) as pool:
        replies = list(pool.map(lambda _: recorder.chat(QUESTION).text, range(2)))
    assert model.calls == ["What is the refund window?"]
    assert replies == ["answer to What is the refund window?"] * 2
    assert _entries(tmp_path / "c.jsonl") == 1
    usage = recorder.usage()
    assert (usage.recorded, usage.replayed) == (1, 1)


def test_two_tasks_in_one_loop_make_one_live_call(tmp_path: Path) -> None:
    model = CountingModel()
    recorder = record_replay(model, tmp_path / "c.jsonl", "record-missing")

    async def both() -> list[str]:
        replies = await asyncio.gather(recorder.achat(QUESTION), recorder.achat(QUESTION))
        return [reply.text for reply in replies]

    assert asyncio.run(both()) == ["answer to What is the refund window?"] * 2
    assert len(model.calls) == 1 and _entries(tmp_path / "c.jsonl") == 1


def test_a_thread_and_a_task_share_one_live_call(tmp_path: Path) -> None:
    model = CountingModel()
    recorder = record_replay(model, tmp_path / "c.jsonl", "record-missing")

    async def task_and_thread() -> tuple[str, str]:
        in_thread = asyncio.to_thread(lambda: recorder.chat(QUESTION).text)
        replies = await asyncio.gather(recorder.achat(QUESTION), in_thread)
        return replies[0].text, replies[1]

    first, second = asyncio.run(task_and_thread())
    assert first == second == "answer to What is the refund window?"
    assert len(model.calls) == 1 and _entries(tmp_path / "c.jsonl") == 1


def test_a_blocking_call_in_the_loop_of_the_leading_task_does_not_hang(tmp_path: Path) -> None:
    model = CountingModel()
    recorder = record_replay(model, tmp_path / "c.jsonl", "record-missing")
    replies: list[str] = []

    async def lead_then_block() -> None:
        leader = asyncio.create_task(recorder.achat(QUESTION))
        for _ in range(6000):  # until the task leads and awaits the model (at most a minute)
            if model.entered.is_set():
                break
            await asyncio.sleep(0.01)
        replies.append(recorder.chat(QUESTION).text)  # blocks this loop: must not wait
        replies.append((await leader).text)

    runner = threading.Thread(target=asyncio.run, args=(lead_then_block(),), daemon=True)
    runner.start()
    runner.join(60)  # about RACE_SECONDS; a blocking call that waited would never end
    assert not runner.is_alive(), "the blocking call waited for a task it was blocking"
    assert replies == ["answer to What is the refund window?"] * 2
    assert len(model.calls) == 2 and _entries(tmp_path / "c.jsonl") == 1


def test_a_waiter_calls_the_model_itself_when_the_leader_fails(tmp_path: Path) -> None:
    model = CountingModel(fail_first=True)
    recorder = record_replay(model, tmp_path / "c.jsonl", "record-missing")

    def ask(_: int) -> str:
        try:
            return recorder.chat(QUESTION).text
        except ConnectionError as exc:
            return f"error: {exc}"

    with ThreadPoolExecutor(2) as pool:
        replies = sorted(pool.map(ask, range(2)))
    assert replies == [
        "answer to What is the refund window?",
        "error: the live model dropped the first call",
    ]
    assert len(model.calls) == 2 and _entries(tmp_path / "c.jsonl") == 1


def test_overlapping_embedding_batches_embed_each_text_once(tmp_path: Path) -> None:
    model = CountingEmbedding()
    recorder = record_replay(model, tmp_path / "e.jsonl", "record-missing")
    batches = [["alpha", "beta", "gamma"], ["gamma", "beta", "delta"]]
    with ThreadPoolExecutor(2) as pool:
        rows = list(pool.map(recorder.embed, batches))
    assert sorted(model.embedded) == ["alpha", "beta", "delta", "gamma"]
    assert rows[0][2].tolist() == rows[1][0].tolist() == [5.0, 1.0]
    assert rows[1][2].tolist() == [5.0, 1.0] and rows[1][1].tolist() == [4.0, 1.0]
    assert _entries(tmp_path / "e.jsonl") == 4


def test_overlapping_async_embedding_batches_embed_each_text_once(tmp_path: Path) -> None:
    model = CountingEmbedding()
    recorder = record_replay(model, tmp_path / "e.jsonl", "record-missing")

    async def both() -> None:
        await asyncio.gather(recorder.aembed(["one", "two"]), recorder.aembed(["two", "one"]))

    asyncio.run(both())
    assert sorted(model.embedded) == ["one", "two"]


def test_any_concurrency_records_the_same_bytes_and_report(tmp_path: Path) -> None:
    questions = [f"Question {i % 3}?" for i in range(9)]  # each asked by three samples
    samples = [
        Sample(name=f"s{i}", parameters=[q], expected_output="answer to " + q)
        for i, q in enumerate(questions)
    ]
    outcomes = set()
    for concurrency in (1, 2, DEFAULT_CONCURRENCY, 9):
        cassette = tmp_path / f"c{concurrency}.jsonl"
        model = CountingModel(parties=concurrency)
        recorder = record_replay(model, cassette, "record-missing")

        def answer(question: str, recorder: Any = recorder) -> str:
            return str(recorder.chat([{"role": "user", "content": question}]).text)

        report = Scorer(concurrency).evaluate(samples, answer, ExactMatch(), name="run")
        assert report.failed == 0 and report.errors == 0
        assert sorted(model.calls) == sorted(set(questions)), concurrency
        outcomes.add((cassette.read_bytes(), render_report(report, "json")))
    assert len(outcomes) == 1


def test_scorer_defaults_to_the_shared_concurrency() -> None:
    assert Scorer().concurrency == DEFAULT_CONCURRENCY
