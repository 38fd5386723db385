"""Benchmark of cassette replay: recorded chat calls per second, load time, and recording cost.

    .venv/bin/python bench/cassette.py [--calls 10000] [--record 1000]

Builds a cassette of ``--calls`` distinct recorded chat calls (questions and answers from
``workload.text_pairs``), then measures: the time to load it (the first call reads and parses
the file), replaying every call through ``record_replay`` in replay mode, and calling a
``ScriptedChat`` directly with the same messages (the floor: no key, no lookup). Also measures
recording ``--record`` fresh calls in record-missing mode (a ``ScriptedChat`` as the live
model), where every new entry is merged into the file under its lock and written atomically,
and recording every call inside ``recorder.buffered()`` (one write at the end).
Goal: replay at 50,000 calls/s or more. Also prints the rate of the ``HashEmbedding`` fake.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evalmark.models import ChatReply, HashEmbedding, ScriptedChat, record_replay
from evalmark.models._canonical import chat_request, key_of, normalize
from evalmark.models._cassette_file import Entry, serialize, write_cassette
from workload import text_pairs

SYSTEM = {"role": "system", "content": "You are a helpful support assistant. Answer briefly."}
PARAMS = {"temperature": 0, "max_tokens": 256}


def conversations(n: int) -> tuple[list[list[dict[str, str]]], list[str]]:
    """``n`` distinct two-message conversations and their answers."""
    questions, answers = text_pairs(n, seed=7)
    messages = [[SYSTEM, {"role": "user", "content": f"#{i} {q}"}] for i, q in enumerate(questions)]
    return messages, answers


def build(path: Path, messages: list[list[dict[str, str]]], answers: list[str]) -> None:
    """Write a cassette holding one recording per conversation."""
    entries = []
    for conversation, answer in zip(messages, answers, strict=True):
        request = normalize(chat_request("bench-model", conversation, PARAMS))
        entries.append(Entry(key_of(request), "chat", 0, request, {"text": answer}))
    write_cassette(path, serialize(entries))


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>12,.0f} calls/s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--record", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=5, help="timed passes; the best is kept")
    args = parser.parse_args()
    os.environ.pop("CI", None)
    messages, answers = conversations(args.calls)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.jsonl"
        build(path, messages, answers)
        size = path.stat().st_size

        replayer = record_replay(ScriptedChat([]), path, mode="replay", model_id="bench-model")
        start = time.perf_counter()
        replayer.chat(messages[0], **PARAMS)
        load = time.perf_counter() - start

        replay = direct = replay_cpu = direct_cpu = float("inf")
        for _ in range(args.rounds):
            start, start_cpu = time.perf_counter(), time.process_time()
            for conversation in messages:
                replayer.chat(conversation, **PARAMS)
            replay = min(replay, time.perf_counter() - start)
            replay_cpu = min(replay_cpu, time.process_time() - start_cpu)

            scripted = ScriptedChat([ChatReply(text=a) for a in answers])
            start, start_cpu = time.perf_counter(), time.process_time()
            for conversation in messages:
                scripted.chat(conversation, **PARAMS)
            direct = min(direct, time.perf_counter() - start)
            direct_cpu = min(direct_cpu, time.process_time() - start_cpu)
        assert replayer.usage().unused == ()

        texts = [message[-1]["content"] for message in messages]
        start = time.perf_counter()
        HashEmbedding().embed(texts)
        hashed = time.perf_counter() - start

        fresh = Path(folder) / "record.jsonl"
        live = ScriptedChat([ChatReply(text=a) for a in answers[: args.record]])
        recorder = record_replay(live, fresh, mode="record-missing", model_id="bench-model")
        start = time.perf_counter()
        for conversation in messages[: args.record]:
            recorder.chat(conversation, **PARAMS)
        record = time.perf_counter() - start

        batched = Path(folder) / "buffered.jsonl"
        live = ScriptedChat([ChatReply(text=a) for a in answers])
        recorder = record_replay(live, batched, mode="record-missing", model_id="bench-model")
        start = time.perf_counter()
        with recorder.buffered():
            for conversation in messages:
                recorder.chat(conversation, **PARAMS)
        buffered = time.perf_counter() - start

    print(
        f"cassette: {args.calls:,} chat entries, {size / 1e6:.1f} MB; best of {args.rounds} passes"
    )
    print(f"load (read, parse, index on first call): {load * 1e3:8.1f} ms")
    print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"replay via record_replay:     {rate(args.calls, replay)}  wall")
    print(f"                              {rate(args.calls, replay_cpu)}  per CPU second")
    print(f"ScriptedChat called directly: {rate(args.calls, direct)}  wall")
    print(f"                              {rate(args.calls, direct_cpu)}  per CPU second")
    print(
        f"ratio replay / direct (wall): {direct / replay:.2f} (replay costs {replay / direct:.1f}x)"
    )
    goal = "meets" if args.calls / replay >= 50_000 else "MISSES"
    print(f"goal 50,000 calls/s (wall): {goal}")
    print(f"HashEmbedding(dim=256), {len(texts):,} texts: {len(texts) / hashed:>10,.0f} texts/s")
    print(f"record-missing, {args.record:,} fresh calls (one fsynced write each):")
    print(f"                           {rate(args.record, record)}")
    print(f"record-missing inside recorder.buffered(), {args.calls:,} calls, one write:")
    print(f"                           {rate(args.calls, buffered)}")


if __name__ == "__main__":
    main()
