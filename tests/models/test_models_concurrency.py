"""Concurrent recorders, in threads and in processes, lose no entry."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from evalmark.models import ScriptedChat, chat_from_callable, record_replay
from evalmark.models._modes import MODE_ENV

CALLS_PER_WORKER = 12


def _answer(messages: list[dict[str, Any]], **params: Any) -> str:
    return "answer to " + str(messages[-1]["content"])


def _record(worker: int, cassette: str) -> None:
    recorder = record_replay(
        chat_from_callable(_answer, model_id="m"), cassette, mode="record-missing"
    )
    for call in range(CALLS_PER_WORKER):
        recorder.chat([{"role": "user", "content": f"worker {worker} call {call}"}])
        recorder.chat([{"role": "user", "content": "shared question"}])


def _recorded(cassette: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in cassette.read_text("utf-8").splitlines()[1:]]


def _check(cassette: Path, workers: int) -> None:
    entries = _recorded(cassette)
    asked = {e["request"]["messages"][0]["content"] for e in entries}
    assert asked >= {
        f"worker {w} call {c}" for w in range(workers) for c in range(CALLS_PER_WORKER)
    }
    own = [e for e in entries if e["request"]["messages"][0]["content"] != "shared question"]
    assert len(own) == workers * CALLS_PER_WORKER
    for entry in own:
        assert (
            entry["response"]["text"] == "answer to " + entry["request"]["messages"][0]["content"]
        )
    slots = [(e["key"], e["index"]) for e in entries]
    assert slots == sorted(set(slots))
    replayer = record_replay(ScriptedChat([]), cassette, mode="replay", model_id="m")
    for entry in own:
        assert replayer.chat(entry["request"]["messages"]).text == entry["response"]["text"]
    assert not list(cassette.parent.glob("*.tmp")), "no temporary file left behind"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def test_eight_threads_with_separate_recorders_lose_nothing(tmp_path: Path) -> None:
    cassette = tmp_path / "threads.jsonl"
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(_record, range(8), [str(cassette)] * 8))
    _check(cassette, 8)


def test_eight_threads_sharing_one_recorder_record_identical_calls_once(tmp_path: Path) -> None:
    cassette = tmp_path / "shared.jsonl"
    recorder = record_replay(
        chat_from_callable(_answer, model_id="m"), cassette, mode="record-missing"
    )
    question = [{"role": "user", "content": "same"}]
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: recorder.chat(question).text, range(40)))
    assert replies == ["answer to same"] * 40
    assert [e["index"] for e in _recorded(cassette)] == [0]


def test_four_processes_lose_nothing(tmp_path: Path) -> None:
    cassette = tmp_path / "processes.jsonl"
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_record, args=(w, str(cassette))) for w in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
        assert process.exitcode == 0
    _check(cassette, 4)


def test_asyncio_gather_records_every_call_once(tmp_path: Path) -> None:
    import asyncio

    cassette = tmp_path / "async.jsonl"

    async def answer(messages: list[dict[str, Any]], **params: Any) -> str:
        await asyncio.sleep(0.001)
        return "answer to " + str(messages[-1]["content"])

    async def run(mode: str) -> list[str]:
        model = record_replay(chat_from_callable(answer, model_id="m"), cassette, mode=mode)
        questions = [[{"role": "user", "content": f"q{i % 5}"}] for i in range(30)]
        replies = await asyncio.gather(*(model.achat(q) for q in questions))
        return sorted(reply.text for reply in replies)

    recorded = asyncio.run(run("record-missing"))
    entries = _recorded(cassette)
    assert sorted(e["request"]["messages"][0]["content"] for e in entries) == [
        f"q{i}" for i in range(5)
    ]
    assert {e["index"] for e in entries} == {0}
    assert asyncio.run(run("replay")) == recorded


THREADS = 8
CALLS_PER_THREAD = 25


def _rewrite_worker(worker: int, cassette: str, buffered: bool, start: Any) -> None:
    """One process of the rewrite run: 8 threads, each with its own recorder (as separate
    tests would have), recording distinct questions and one shared question."""
    start.wait(60)

    def thread(number: int) -> None:
        recorder = record_replay(chat_from_callable(_answer, model_id="m"), cassette, "rewrite")

        def calls() -> None:
            for call in range(CALLS_PER_THREAD):
                question = f"process {worker} thread {number} call {call}"
                recorder.chat([{"role": "user", "content": question}])
                recorder.chat([{"role": "user", "content": "shared question"}])

        if buffered:
            with recorder.buffered():
                calls()
        else:
            calls()

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(thread, range(THREADS)))


@pytest.mark.parametrize("buffered", [False, True], ids=["direct", "buffered"])
def test_four_processes_of_eight_threads_rewriting_lose_nothing(
    tmp_path: Path, buffered: bool
) -> None:
    cassette = tmp_path / "rewrite.jsonl"
    stale = record_replay(chat_from_callable(_answer, model_id="m"), cassette, "record-missing")
    stale.chat([{"role": "user", "content": "stale question from an older run"}])
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    processes = [
        context.Process(target=_rewrite_worker, args=(w, str(cassette), buffered, start))
        for w in range(4)
    ]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(180)
        assert process.exitcode == 0
    asked = sorted(e["request"]["messages"][0]["content"] for e in _recorded(cassette))
    expected = sorted(
        [
            f"process {w} thread {t} call {c}"
            for w in range(4)
            for t in range(THREADS)
            for c in range(CALLS_PER_THREAD)
        ]
        + ["shared question"]
    )
    assert asked == expected, f"{len(set(expected) - set(asked))} of {len(expected)} lost"
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob("*.tmp"))


def _rewrite_with_run_id(cassette: str, run_id: str, started: Any, release: Any) -> None:
    import os

    os.environ["EVALMARK_RUN_ID"] = run_id
    recorder = record_replay(chat_from_callable(_answer, model_id="m"), cassette, "rewrite")
    recorder.chat([{"role": "user", "content": f"from run {run_id}"}])
    started.set()
    release.wait(60)


def test_a_rewrite_by_another_run_at_the_same_time_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalmark.errors import CassetteError

    cassette = tmp_path / "c.jsonl"
    context = multiprocessing.get_context("spawn")
    started, release = context.Event(), context.Event()
    other = context.Process(
        target=_rewrite_with_run_id, args=(str(cassette), "run-a", started, release)
    )
    other.start()
    try:
        assert started.wait(60)
        monkeypatch.setenv("EVALMARK_RUN_ID", "run-b")
        mine = record_replay(chat_from_callable(_answer, model_id="m"), cassette, "rewrite")
        with pytest.raises(CassetteError, match=r"being rewritten by another run \(run id run-a"):
            mine.chat([{"role": "user", "content": "from run b"}])
    finally:
        release.set()
        other.join(60)
    assert other.exitcode == 0
    assert [e["response"]["text"] for e in _recorded(cassette)] == ["answer to from run run-a"]
