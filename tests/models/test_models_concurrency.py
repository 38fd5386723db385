"""Concurrent recorders, in threads and in processes, lose no entry."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from evalmark.models import ScriptedChat, chat_from_callable, record_replay
from evalmark.models.modes import MODE_ENV

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


def test_eight_threads_sharing_one_recorder_number_identical_calls(tmp_path: Path) -> None:
    cassette = tmp_path / "shared.jsonl"
    recorder = record_replay(
        chat_from_callable(_answer, model_id="m"), cassette, mode="record-missing"
    )
    question = [{"role": "user", "content": "same"}]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: recorder.chat(question), range(40)))
    assert sorted(e["index"] for e in _recorded(cassette)) == list(range(40))


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
    assert len(entries) == 30
    assert sorted(e["index"] for e in entries) == sorted(list(range(6)) * 5)
    assert asyncio.run(run("replay")) == recorded
