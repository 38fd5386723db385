"""Cassettes: round trips, keys, modes, misses, secrets, file errors, usage."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evalmark.errors import CassetteFormatError, CassetteMiss
from evalmark.models import (
    ChatReply,
    ChatToolCall,
    HashEmbedding,
    Message,
    ScriptedChat,
    Usage,
    call_context,
    chat_from_callable,
    embedding_model,
    record_replay,
)
from evalmark.models._canonical import request_key
from evalmark.models._cassette_file import FORMAT_NAME, read_cassette
from evalmark.models._modes import MODE_ENV, RecordMode, resolve_mode
from evalmark.models._secrets import redact_pattern

USER = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_chat_round_trip_keeps_every_reply_field(tmp_path: Path) -> None:
    cassette = tmp_path / "chat.jsonl"
    reply = ChatReply(
        text="Paris — «la capitale»",
        tool_calls=(ChatToolCall(id="c1", name="lookup", arguments='{"q": "France"}'),),
        usage=Usage(prompt_tokens=7, completion_tokens=3, total_tokens=10),
        finish_reason="stop",
    )
    live = ScriptedChat([reply])
    recorder = record_replay(live, cassette, mode="record-missing")
    assert recorder.chat(USER, temperature=0) == reply
    replayer = record_replay(ScriptedChat([]), cassette, mode="replay")
    assert replayer.chat(USER, temperature=0) == reply
    assert "«la capitale»" in cassette.read_text("utf-8"), "UTF-8 is written as is, not escaped"


def test_file_layout_is_header_then_entries_sorted_by_key_and_index(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat(list("abcdef")), cassette, mode="record-missing")
    for question in ("q1", "q2", "q1", "q3", "q1", "q2"):
        recorder.chat([{"role": "user", "content": question}])
    header, *entries = _lines(cassette)
    assert header == {"format": FORMAT_NAME, "version": 1, "key_version": 1}
    assert [list(e) for e in entries] == [["key", "kind", "index", "request", "response"]] * 3
    slots = [(e["key"], e["index"]) for e in entries]
    assert slots == sorted(slots)
    assert all(e["key"] == request_key(e["request"]) for e in entries)
    assert cassette.read_bytes().endswith(b"\n")


def test_identical_calls_are_one_call_recorded_once_and_replayed_any_number_of_times(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "app.jsonl"
    live_calls: list[str] = []

    def app(messages: list[dict[str, Any]], **params: Any) -> str:
        live_calls.append(messages[-1]["content"])
        return "re: " + messages[-1]["content"]

    recorder = record_replay(chat_from_callable(app, model_id="app"), cassette, "record-missing")
    asked = [f"prompt {i % 5}" for i in range(16)]  # 5 prompts, 16 calls
    for question in asked:
        assert recorder.chat([{"role": "user", "content": question}]).text == "re: " + question
    assert len(live_calls) == 5 and len(_lines(cassette)) == 1 + 5
    replayer = record_replay(ScriptedChat([]), cassette, model_id="app")
    for question in asked * 3:  # the 6th, 17th, 48th identical call all replay
        assert replayer.chat([{"role": "user", "content": question}]).text == "re: " + question
    assert replayer.usage().reused == 0 and replayer.usage().replayed == 48


def test_repeats_of_a_call_context_are_samples_replayed_in_any_order(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorder = record_replay(ScriptedChat(list("12345")), cassette, mode="record-missing")
    for repeat in range(5):
        with call_context(sample="s", check="c", repeat=repeat):
            assert recorder.chat(USER, temperature=0.7).text == str(repeat + 1)
    assert sorted(e["index"] for e in _lines(cassette)[1:]) == [0, 1, 2, 3, 4]
    replayer = record_replay(ScriptedChat([]), cassette)
    for order in (range(5), reversed(range(5)), [3, 0, 4, 1, 2]):
        for repeat in order:
            with call_context(sample="other", check="x", run_index=7, repeat=repeat):
                assert replayer.chat(USER, temperature=0.7).text == str(repeat + 1)
    assert replayer.chat(USER, temperature=0.7).text == "1", "no context: sample 0"


@pytest.mark.parametrize(
    ("policy", "expected"),
    [("repeat", ["1", "2", "3", "3", "3", "3"]), ("cycle", ["1", "2", "3", "1", "2", "3"])],
)
def test_beyond_recorded_policy_answers_repeats_that_were_not_recorded(
    tmp_path: Path, policy: str, expected: list[str]
) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorder = record_replay(ScriptedChat(list("123")), cassette, mode="record-missing")
    for repeat in range(3):
        with call_context(repeat=repeat):
            recorder.chat(USER)
    replayer = record_replay(ScriptedChat([]), cassette, beyond_recorded=policy)
    answers = []
    for repeat in range(6):
        with call_context(repeat=repeat):
            answers.append(replayer.chat(USER).text)
    assert answers == expected
    assert replayer.usage().reused == 3 and replayer.beyond_recorded == policy


def test_beyond_recorded_error_misses_with_the_policy_in_its_hint(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorder = record_replay(ScriptedChat(list("12")), cassette, mode="record-missing")
    for repeat in range(2):
        with call_context(repeat=repeat):
            recorder.chat(USER)
    replayer = record_replay(ScriptedChat([]), cassette, beyond_recorded="error")
    with pytest.raises(CassetteMiss) as caught, call_context(repeat=4):
        replayer.chat(USER)
    first, *rest = str(caught.value).splitlines()
    assert first.startswith("no recording of sample 4: to record it, run once")
    assert "beyond_recorded='repeat'" in first
    assert caught.value.sample_index == 4 and caught.value.recorded == 2
    assert "2 sample(s) recorded for this key (indexes 0, 1)" in "\n".join(rest)
    with pytest.raises(ValueError, match="beyond_recorded must be one of repeat, cycle, error"):
        record_replay(ScriptedChat([]), cassette, beyond_recorded="loop")


def test_record_missing_records_a_repeat_beyond_the_recorded_ones(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    recorder = record_replay(ScriptedChat(list("abc")), cassette, mode="record-missing")
    with call_context(repeat=0):
        assert recorder.chat(USER).text == "a"
    with call_context(repeat=2):
        assert recorder.chat(USER).text == "b", "a missing repeat is recorded, not reused"
    with call_context(repeat=2):
        assert recorder.chat(USER).text == "b"
    assert sorted(e["index"] for e in _lines(cassette)[1:]) == [0, 2]
    replayer = record_replay(ScriptedChat([]), cassette)
    with call_context(repeat=1):
        assert replayer.chat(USER).text == "a", "a gap replays the sample below it"


def test_embedding_round_trip_is_bit_exact(tmp_path: Path) -> None:
    cassette = tmp_path / "emb.jsonl"
    tiny = np.float32(1e-45)  # a subnormal
    special = np.array(
        [[0.1, -0.0, tiny, 3.4028235e38], [1 / 3, -2.5, 7e-8, 1.0]], dtype=np.float32
    )
    live = embedding_model(lambda texts: special[: len(texts)], model_id="fixed")
    recorder = record_replay(live, cassette, mode="record-missing")
    first = recorder.embed(["a", "b"])
    replayed = record_replay(embedding_model(lambda t: 1 / 0, model_id="fixed"), cassette)
    again = replayed.embed(["b", "a", "b"])
    assert again.dtype == np.float32 and again.shape == (3, 4)
    assert again[1].tobytes() == special[0].tobytes()
    assert again[0].tobytes() == special[1].tobytes() == again[2].tobytes()
    assert first.tobytes() == special.tobytes()
    entry = _lines(cassette)[1]
    assert entry["response"]["dtype"] == "float32-le" and entry["response"]["shape"] == [4]


def test_embedding_records_only_missing_texts_in_one_batch(tmp_path: Path) -> None:
    cassette = tmp_path / "emb.jsonl"
    batches: list[list[str]] = []
    inner = HashEmbedding(dim=16)

    def embed(texts: list[str]) -> Any:
        batches.append(texts)
        return inner.embed(texts)

    recorder = record_replay(embedding_model(embed, model_id="h"), cassette, mode="record-missing")
    recorder.embed(["x", "y"])
    out = recorder.embed(["y", "z", "x", "z"])
    assert batches == [["x", "y"], ["z"]]
    np.testing.assert_array_equal(out, inner.embed(["y", "z", "x", "z"]))


def test_async_chat_and_embed_record_and_replay(tmp_path: Path) -> None:
    cassette = tmp_path / "async.jsonl"

    async def answer(messages: list[dict[str, Any]], **params: Any) -> str:
        await asyncio.sleep(0)
        return "async " + str(messages[-1]["content"])

    async def run(mode: str) -> tuple[str, bytes]:
        chat = record_replay(chat_from_callable(answer, model_id="a"), cassette, mode=mode)
        emb = record_replay(HashEmbedding(dim=8), cassette, mode=mode)
        reply = await chat.achat([Message(role="user", content="hi")])
        rows = await emb.aembed(["hi"])
        return reply.text, rows.tobytes()

    recorded = asyncio.run(run("record-missing"))
    assert recorded[0] == "async hi"
    assert asyncio.run(run("replay")) == recorded


def test_key_ignores_dict_order_transport_settings_and_int_float_spelling() -> None:
    a = {"model": "m", "messages": [{"role": "user", "content": "x"}], "params": {"t": 1, "s": 2}}
    b = {"params": {"s": 2.0, "t": 1}, "messages": [{"content": "x", "role": "user"}], "model": "m"}
    assert request_key(a) == request_key(b)
    assert request_key(a) != request_key({**a, "params": {"t": 1, "s": 3}})


def test_recorded_key_covers_every_generation_parameter_but_no_transport(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat(list("abcd")), cassette, mode="record-missing")
    recorder.chat(USER, temperature=0.2, api_key="k1", timeout=3, max_retries=1)
    replayer = record_replay(ScriptedChat([]), cassette)
    assert replayer.chat(USER, temperature=0.2, api_key="k2", base_url="http://x").text == "a"
    with pytest.raises(CassetteMiss):
        replayer.chat(USER, temperature=0.2, top_p=0.9)
    text = cassette.read_text("utf-8")
    assert "api_key" not in text and "timeout" not in text and "k1" not in text


_KEY_SCRIPT = """
import sys
from evalmark.models._canonical import request_key
print(request_key({"z": [1, 2.0, {"b": "é", "a": None}], "a": 0.1}))
"""


def test_key_is_the_same_in_another_process() -> None:
    expected = request_key({"a": 0.1, "z": [1, 2, {"a": None, "b": "é"}]})
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", _KEY_SCRIPT],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"},
            timeout=120,
        )
        assert out.stdout.strip() == expected


def test_miss_message_names_everything_needed_to_fix_it(tmp_path: Path) -> None:
    cassette = tmp_path / "judge.jsonl"
    record_replay(ScriptedChat(["Paris"]), cassette, mode="record-missing").chat(
        USER, temperature=0
    )
    replayer = record_replay(ScriptedChat([]), cassette)
    asked = [{"role": "user", "content": "What is the capital of Spain?"}]
    with pytest.raises(CassetteMiss) as caught:
        replayer.chat(asked, temperature=0.5)
    message = str(caught.value)
    assert str(cassette) in message and "exists, 1 entry" in message
    assert "mode replay (the default)" in message
    assert caught.value.key in message and "sample index 0" in message
    assert "no sample is recorded for this key" in message
    assert "messages[0].content: asked 'What is the capital of Spain?'" in message
    assert "params.temperature: asked 0.5, recorded 0" in message
    assert "EVALMARK_RECORD_MODE=record-missing" in message
    assert not isinstance(caught.value, ConnectionError | OSError)


def test_miss_on_a_missing_file_says_it_does_not_exist(tmp_path: Path) -> None:
    replayer = record_replay(ScriptedChat([]), tmp_path / "none.jsonl")
    with pytest.raises(CassetteMiss, match="does not exist yet"):
        replayer.chat(USER)
    assert not (tmp_path / "none.jsonl").exists()


def test_mode_resolution_order() -> None:
    assert resolve_mode(None, {}).mode is RecordMode.REPLAY
    assert resolve_mode(None, {MODE_ENV: "record-missing"}).mode is RecordMode.RECORD_MISSING
    assert resolve_mode(None, {MODE_ENV: "rewrite", "CI": "true"}).mode is RecordMode.REPLAY
    assert resolve_mode(None, {MODE_ENV: "rewrite", "CI": "false"}).mode is RecordMode.REWRITE
    assert resolve_mode("off", {MODE_ENV: "rewrite", "CI": "1"}).mode is RecordMode.OFF
    assert resolve_mode("record_missing", {}).mode is RecordMode.RECORD_MISSING
    with pytest.raises(ValueError, match="unknown record mode 'record'; use one of replay"):
        resolve_mode(None, {MODE_ENV: "record"})


def test_env_var_sets_the_mode_and_ci_forces_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "c.jsonl"
    monkeypatch.setenv(MODE_ENV, "record-missing")
    assert record_replay(ScriptedChat(["a"]), cassette).chat(USER).text == "a"
    monkeypatch.setenv("CI", "true")
    ci = record_replay(ScriptedChat(["b"]), cassette)
    assert ci.mode is RecordMode.REPLAY
    assert ci.chat(USER).text == "a"
    other = [{"role": "user", "content": "Another question?"}]
    with pytest.raises(CassetteMiss) as caught:
        ci.chat(other)
    assert str(caught.value).startswith(
        "no recording of this request: to record it, outside CI (CI forces replay), run once"
    )
    forced = record_replay(ScriptedChat(["b"]), cassette, mode="record-missing")
    assert forced.chat(other).text == "b"


def test_rewrite_starts_afresh_and_off_bypasses(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    record_replay(ScriptedChat(["old", "old2"]), cassette, mode="record-missing").chat(USER)
    record_replay(ScriptedChat(["other"]), cassette, mode="record-missing").chat(
        [{"role": "user", "content": "unrelated"}]
    )
    rewriter = record_replay(ScriptedChat(["new", "second"]), cassette, mode="rewrite")
    assert rewriter.chat(USER).text == "new"
    assert [e["response"]["text"] for e in _lines(cassette)[1:]] == ["new"]
    assert rewriter.chat([{"role": "user", "content": "next"}]).text == "second"
    assert sorted(e["response"]["text"] for e in _lines(cassette)[1:]) == ["new", "second"]
    before = cassette.read_bytes()
    off = record_replay(ScriptedChat(["live"]), cassette, mode="off")
    assert off.chat([{"role": "user", "content": "other"}]).text == "live"
    assert cassette.read_bytes() == before


def test_errors_from_the_real_model_are_not_recorded(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    calls = []

    def flaky(messages: list[dict[str, Any]], **params: Any) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise TimeoutError("provider timed out")
        return "ok"

    recorder = record_replay(chat_from_callable(flaky, model_id="f"), cassette, "record-missing")
    with pytest.raises(TimeoutError):
        recorder.chat(USER)
    assert not cassette.exists()
    assert recorder.chat(USER).text == "ok"
    assert [e["index"] for e in _lines(cassette)[1:]] == [0]


def test_redactors_apply_before_hashing_so_redacted_cassettes_match(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    redact = [redact_pattern(r"sk-[A-Za-z0-9]{16,}", "<KEY>")]
    seen: list[str] = []

    def model(messages: list[dict[str, Any]], **params: Any) -> str:
        seen.append(messages[0]["content"])
        return "done"

    recorder = record_replay(
        chat_from_callable(model, model_id="m"), cassette, "record-missing", redact=redact
    )
    recorder.chat([{"role": "user", "content": "use sk-AAAAAAAAAAAAAAAAAAAA"}])
    assert seen == ["use sk-AAAAAAAAAAAAAAAAAAAA"], "the real model still gets the real text"
    assert "<KEY>" in cassette.read_text("utf-8") and "sk-A" not in cassette.read_text("utf-8")
    replayer = record_replay(ScriptedChat([]), cassette, model_id="m", redact=redact)
    assert (
        replayer.chat([{"role": "user", "content": "use sk-BBBBBBBBBBBBBBBBBBBB"}]).text == "done"
    )


def _write(path: Path, *lines: str, newline: bool = True) -> Path:
    path.write_text("\n".join(lines) + ("\n" if newline else ""), "utf-8")
    return path


HEADER = '{"format":"evalmark-cassette","version":1,"key_version":1}'


def test_corrupt_line_names_file_and_line(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    record_replay(ScriptedChat(["a"]), good, mode="record-missing").chat(USER)
    entry = good.read_text("utf-8").splitlines()[1]
    bad = _write(tmp_path / "bad.jsonl", HEADER, entry, '{"key": "abc", "kind": "chat"')
    with pytest.raises(CassetteFormatError, match=r"bad\.jsonl:3: not valid JSON.*corrupt"):
        read_cassette(bad)
    truncated = _write(tmp_path / "t.jsonl", HEADER, entry[:40], newline=False)
    with pytest.raises(CassetteFormatError, match=r"t\.jsonl:2: .*truncated"):
        read_cassette(truncated)
    missing_field = _write(tmp_path / "m.jsonl", HEADER, '{"key":"k","kind":"chat","index":0}')
    with pytest.raises(CassetteFormatError, match=r"m\.jsonl:2: invalid cassette entry.*request"):
        read_cassette(missing_field)
    conflict = _write(tmp_path / "g.jsonl", HEADER, "<<<<<<< HEAD", entry)
    with pytest.raises(CassetteFormatError, match=r"g\.jsonl:2: git conflict marker"):
        read_cassette(conflict)
    duplicate = _write(tmp_path / "d.jsonl", HEADER, entry, entry)
    with pytest.raises(CassetteFormatError, match=r"d\.jsonl:3: duplicate entry .*line 2"):
        read_cassette(duplicate)
    replayer = record_replay(ScriptedChat([]), bad)
    with pytest.raises(CassetteFormatError, match=r"bad\.jsonl:3"):
        replayer.chat(USER)


def test_unknown_versions_and_foreign_files_are_refused(tmp_path: Path) -> None:
    future = _write(tmp_path / "f.jsonl", '{"format":"evalmark-cassette","version":2}')
    with pytest.raises(CassetteFormatError, match=r"format version 2 is unknown.*upgrade evalmark"):
        read_cassette(future)
    keys = _write(
        tmp_path / "k.jsonl", '{"format":"evalmark-cassette","version":1,"key_version":9}'
    )
    with pytest.raises(CassetteFormatError, match="key version 9 is unknown"):
        read_cassette(keys)
    foreign = _write(tmp_path / "v.jsonl", '{"interactions": []}')
    with pytest.raises(CassetteFormatError, match="not an evalmark cassette"):
        read_cassette(foreign)


def test_usage_reports_entries_never_used(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat(list("abc")), cassette, mode="record-missing")
    for question in ("q1", "q2", "q3"):
        recorder.chat([{"role": "user", "content": question}])
    replayer = record_replay(ScriptedChat([]), cassette)
    replayer.chat([{"role": "user", "content": "q2"}])
    usage = replayer.usage()
    assert usage.replayed == 1 and len(usage.used) == 1 and len(usage.unused) == 2
    assert set(usage.used) | set(usage.unused) == {
        (e["key"], e["index"]) for e in _lines(cassette)[1:]
    }


def test_tool_calls_convert_to_test_case_tool_calls() -> None:
    call = ChatToolCall(id="c1", name="lookup", arguments='{"q": "France", "n": 2}')
    converted = call.to_tool_call()
    assert (converted.name, converted.arguments, converted.id) == (
        "lookup",
        {"q": "France", "n": 2},
        "c1",
    )
    with pytest.raises(ValueError, match=r"'lookup' .* not valid JSON"):
        ChatToolCall(id="c2", name="lookup", arguments='{"q": ').to_tool_call()
    with pytest.raises(ValueError, match="must be a JSON object, got list"):
        ChatToolCall(id="c3", name="lookup", arguments="[1]").to_tool_call()


def test_fakes_and_adapters_satisfy_the_protocols() -> None:
    from evalmark.models import ChatModel, EmbeddingModel, NoisyJudge, RuleJudge
    from evalmark.models._fakes import EchoChat

    chats = [ScriptedChat([]), EchoChat(), RuleJudge(), NoisyJudge(RuleJudge(), 0.1, seed=0)]
    chats.append(chat_from_callable(lambda messages, **params: "x"))
    assert all(isinstance(model, ChatModel) for model in chats)
    embedders = [HashEmbedding(), embedding_model(lambda texts: [[0.0]] * len(texts))]
    assert all(isinstance(model, EmbeddingModel) for model in embedders)
    recorded = record_replay(EchoChat(), "unused.jsonl", mode="off")
    assert isinstance(recorded, ChatModel) and not isinstance(recorded, EmbeddingModel)


def test_a_recording_run_and_a_replaying_run_see_equal_replies(tmp_path: Path) -> None:
    from evalmark.models import RuleJudge
    from evalmark.models._prompts import GROUNDEDNESS

    cassette = tmp_path / "judge.jsonl"
    prompt = GROUNDEDNESS.render(context="The sky is blue.", response="The sky is blue.")
    assert RuleJudge().chat(prompt).metadata == {"overlap": 1.0}
    recorded = record_replay(RuleJudge(), cassette, mode="record-missing").chat(prompt)
    replayed = record_replay(RuleJudge(), cassette, mode="replay").chat(prompt)
    assert recorded == replayed and recorded.metadata == {}


def test_a_malformed_response_is_reported_with_file_and_line_when_replayed(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "c.jsonl"
    record_replay(ScriptedChat(["a"]), cassette, mode="record-missing").chat(USER)
    header, entry = cassette.read_text("utf-8").splitlines()
    broken = json.loads(entry)
    broken["response"] = {"text": 42}
    cassette.write_text(f"{header}\n{json.dumps(broken)}\n", "utf-8")
    with pytest.raises(CassetteFormatError, match=r"c\.jsonl:2: invalid chat response"):
        record_replay(ScriptedChat([]), cassette).chat(USER)
    broken["response"] = ["not", "an", "object"]
    cassette.write_text(f"{header}\n{json.dumps(broken)}\n", "utf-8")
    with pytest.raises(CassetteFormatError, match=r"c\.jsonl:2: .*response must be a JSON object"):
        read_cassette(cassette)


@pytest.mark.parametrize(
    "refused",
    [
        ChatReply(text="", refusal="I can't help with that."),
        ChatReply(text="partial", finish_reason="content_filter"),
    ],
)
def test_refused_replies_are_returned_but_never_recorded(
    tmp_path: Path, refused: ChatReply
) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat([refused, "fine"]), cassette, mode="record-missing")
    assert recorder.chat(USER) == refused and refused.refused
    assert not cassette.exists()
    assert recorder.chat(USER).text == "fine"
    assert [e["index"] for e in _lines(cassette)[1:]] == [0]


def test_buffered_recording_writes_once_and_replays_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evalmark.models._store as store_module
    from evalmark.models._cassette_file import write_cassette as real_write

    writes: list[int] = []

    def counting_write(path: Path, data: bytes) -> None:
        writes.append(len(data))
        real_write(path, data)

    monkeypatch.setattr(store_module, "write_cassette", counting_write)
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(
        chat_from_callable(lambda messages, **params: "re: " + messages[-1]["content"]),
        cassette,
        mode="record-missing",
        model_id="m",
    )
    with recorder.buffered():
        for i in range(50):
            recorder.chat([{"role": "user", "content": f"q{i}"}])
        with recorder.buffered():
            recorder.chat([{"role": "user", "content": "nested"}])
        assert not cassette.exists() and writes == []
        assert recorder.usage().recorded == 51
    assert len(writes) == 1 and len(_lines(cassette)) == 52
    with pytest.raises(RuntimeError), recorder.buffered():
        recorder.chat([{"role": "user", "content": "before the error"}])
        raise RuntimeError("boom")
    assert len(writes) == 2 and len(_lines(cassette)) == 53, "written even when the block fails"
    replayer = record_replay(ScriptedChat([]), cassette, model_id="m")
    assert replayer.chat([{"role": "user", "content": "q7"}]).text == "re: q7"


def test_a_lone_surrogate_in_a_request_and_a_reply_is_kept_escaped(tmp_path: Path) -> None:
    cassette = tmp_path / "odd.jsonl"
    half = "half an emoji \ud83d"  # its second half cut off
    recorder = record_replay(ScriptedChat([half]), cassette, mode="record-missing")
    recorder.chat([{"role": "user", "content": "say " + half}])
    assert "half an emoji \\\\ud83d" in cassette.read_text(encoding="utf-8")
    replayer = record_replay(ScriptedChat([]), cassette, mode="replay")
    for _ in range(2):  # every replay gives the same text, which any writer can hold
        reply = replayer.chat([{"role": "user", "content": "say " + half}])
        assert reply.text == "half an emoji \\ud83d"
