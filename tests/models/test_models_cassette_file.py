"""Hostile and careless cassette files: every problem is a CassetteFormatError naming the file and
line, in reading, in replay and in ``evalmark cassette`` (issue 14, items 4, 5 and 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmark.cli import main
from evalmark.errors import CassetteFormatError, CassetteMiss
from evalmark.models import ScriptedChat, call_context, record_replay
from evalmark.models._canonical import MAX_DEPTH, too_deep
from evalmark.models._cassette_file import parse_cassette, parse_raw, read_cassette
from evalmark.models._modes import MODE_ENV

HEADER = b'{"format":"evalmark-cassette","version":1,"key_version":1}\n'
USER = [{"role": "user", "content": "What's the weather?"}]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _entry(request: bytes = b'{"kind":"chat"}', response: bytes = b'{"text":"x"}') -> bytes:
    return b'{"key":"k","kind":"chat","index":0,"request":' + request + b',"response":' + response


def _nested(depth: int, opening: bytes = b'{"a":', closing: bytes = b"}") -> bytes:
    return opening * depth + b"1" + closing * depth


@pytest.mark.parametrize(
    ("line", "part"),
    [
        (_entry(_nested(10_000)) + b"}", "request"),
        (_entry(b'{"a":' + _nested(10_000, b"[", b"]") + b"}") + b"}", "request list"),
        (_entry(response=b'{"text":"x","m":' + _nested(10_000) + b"}") + b"}", "response"),
        (_entry(_nested(MAX_DEPTH + 1)) + b"}", "just too deep"),
    ],
)
def test_an_entry_nested_too_deeply_is_a_format_error_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: bytes, part: str
) -> None:
    cassette = tmp_path / "deep.jsonl"
    cassette.write_bytes(HEADER + line + b"\n")
    pattern = r"deep\.jsonl:2: the entry is nested more than 128 levels deep"
    with pytest.raises(CassetteFormatError, match=pattern):
        read_cassette(cassette)
    with pytest.raises(CassetteFormatError, match=pattern):
        record_replay(ScriptedChat([]), cassette).chat(USER)
    assert main(["cassette", "verify", str(cassette)]) == 1
    assert "deep.jsonl:2: the entry is nested more than 128" in capsys.readouterr().out
    assert main(["cassette", "ls", str(cassette)]) == 2
    assert "deep.jsonl:2:" in capsys.readouterr().err


def test_nesting_within_the_limit_is_read(tmp_path: Path) -> None:
    cassette = tmp_path / "ok.jsonl"
    cassette.write_bytes(HEADER + _entry(_nested(MAX_DEPTH - 1)) + b"}\n")
    (entry,) = read_cassette(cassette).entries
    assert entry.request["a"]["a"]["a"]


def test_a_deep_header_and_deep_requests_of_the_caller_are_refused_clearly(tmp_path: Path) -> None:
    cassette = tmp_path / "h.jsonl"
    cassette.write_bytes(_nested(50_000, b"[", b"]") + b"\n")
    with pytest.raises(CassetteFormatError, match=r"h\.jsonl:1: the header line is not valid JSON"):
        read_cassette(cassette)
    deep: Any = "leaf"
    for _ in range(5_000):
        deep = {"a": deep}
    recorder = record_replay(ScriptedChat(["x"]), tmp_path / "new.jsonl", "record-missing")
    with pytest.raises(ValueError, match="nested more than 128 levels deep"):
        recorder.chat([{"role": "user", "content": "x", "extra": deep}])
    shallow_enough: Any = "leaf"
    for _ in range(MAX_DEPTH + 5):
        shallow_enough = [shallow_enough]
    with pytest.raises(ValueError, match="nested more than 128 levels deep"):
        recorder.chat([{"role": "user", "content": "x"}], extra_body={"a": shallow_enough})
    assert not (tmp_path / "new.jsonl").exists(), "nothing unreadable is ever written"


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (HEADER + _entry(b'{"a":"\xff"}') + b"}\n", "bad.jsonl:2: not UTF-8 (byte 0xff at col"),
        (HEADER + _entry() + b"}\n" + b'{"key":"\xc3"}\n', "bad.jsonl:3: not UTF-8 (byte 0xc3"),
        (b'{"format":"evalmark-cassette\x80"}\n', "bad.jsonl:1: not UTF-8 (byte 0x80"),
        (HEADER + _entry(b'{"a":"\xed\xa0\x80"}') + b"}\n", "bad.jsonl:2: not UTF-8 (byte 0xed"),
    ],
)
def test_invalid_utf8_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, where: str
) -> None:
    cassette = tmp_path / "bad.jsonl"
    cassette.write_bytes(data)
    with pytest.raises(CassetteFormatError, match=where.replace(".", r"\.").replace("(", r"\(")):
        read_cassette(cassette)
    with pytest.raises(CassetteFormatError, match="not UTF-8"):
        record_replay(ScriptedChat([]), cassette).chat(USER)
    assert main(["cassette", "verify", str(cassette)]) == 1
    assert where in capsys.readouterr().out


def test_a_byte_order_mark_is_accepted_and_not_written_back(tmp_path: Path) -> None:
    cassette = tmp_path / "bom.jsonl"
    record_replay(ScriptedChat(["sunny"]), cassette, "record-missing").chat(USER)
    cassette.write_bytes(b"\xef\xbb\xbf" + cassette.read_bytes().replace(b"\n", b"\r\n"))
    assert record_replay(ScriptedChat([]), cassette).chat(USER).text == "sunny"
    assert [e.response["text"] for e in read_cassette(cassette).entries] == ["sunny"]
    assert main(["cassette", "verify", str(cassette)]) == 0
    recorder = record_replay(ScriptedChat(["rain"]), cassette, "record-missing")
    recorder.chat([{"role": "user", "content": "And tomorrow?"}])
    assert not cassette.read_bytes().startswith(b"\xef\xbb\xbf")
    assert len(read_cassette(cassette).entries) == 2


def test_a_bom_in_front_of_a_foreign_file_still_says_what_is_wrong(tmp_path: Path) -> None:
    cassette = tmp_path / "v.jsonl"
    cassette.write_bytes(b'\xef\xbb\xbf{"interactions": []}\n')
    with pytest.raises(CassetteFormatError, match=r"v\.jsonl:1: not an evalmark cassette"):
        read_cassette(cassette)


_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_give_a_cassette_or_a_format_error(data: bytes) -> None:
    for payload in (data, HEADER + data, HEADER + _entry() + b"}\n" + data):
        try:
            parse_cassette(payload, "random.jsonl")
        except CassetteFormatError as exc:
            assert str(exc).startswith("random.jsonl:")


@settings(max_examples=100, deadline=None)
@given(depth=st.integers(0, 400), inner=_json, brackets=st.sampled_from(["[]", "{}"]))
def test_random_nesting_gives_an_entry_or_a_format_error(
    depth: int, inner: Any, brackets: str
) -> None:
    opening, closing = (b"[", b"]") if brackets == "[]" else (b'{"k":', b"}")
    value = opening * depth + msgspec.json.encode(inner) + closing * depth
    line = _entry(b'{"v":' + value + b"}") + b"}\n"
    try:
        contents = parse_cassette(HEADER + line, "n.jsonl")
    except CassetteFormatError as exc:
        assert str(exc).startswith("n.jsonl:2: the entry is nested more than")
        assert too_deep(value, MAX_DEPTH - 1)
    else:
        assert len(contents.entries) == 1 and not too_deep(value, MAX_DEPTH - 1)
    assert parse_raw(HEADER, "n.jsonl").entries == ()


def test_too_deep_skips_brackets_inside_strings() -> None:
    text = json.dumps({"a": "[" * 1000 + "{" * 1000, "b": ['"\\[' * 300]}).encode()
    assert not too_deep(text, 3)
    assert too_deep(b"[[[[1]]]]", 3) and not too_deep(b"[[[1]]]", 3)


# --------------------------------------------------------------------------- the miss message


def test_the_closest_recorded_request_is_the_most_similar_text(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(ScriptedChat(["noon", "sunny"]), cassette, "record-missing")
    recorder.chat([{"role": "user", "content": "What time is it?"}])
    recorder.chat([{"role": "user", "content": "What's the weather?"}])
    with pytest.raises(CassetteMiss) as caught:
        record_replay(ScriptedChat([]), cassette).chat(
            [{"role": "user", "content": "What's the weather today?"}]
        )
    message = str(caught.value)
    assert (
        'messages[0].content: asked "What\'s the weather today?", '
        'recorded "What\'s the weather?"' in message
    )
    assert "What time is it?" not in message


def test_the_hint_comes_first_and_names_the_mode_argument_when_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "c.jsonl"
    monkeypatch.setenv(MODE_ENV, "record-missing")
    with pytest.raises(CassetteMiss) as caught:
        record_replay(ScriptedChat([]), cassette, mode="replay").chat(USER)
    first = str(caught.value).splitlines()[0]
    assert first.startswith(
        "no recording of this request: to record it, pass mode='record-missing' instead of "
        "mode='replay' to record_replay"
    )
    assert f"{MODE_ENV}=record-missing" not in first and first.endswith("then commit c.jsonl.")
    monkeypatch.delenv(MODE_ENV)
    with pytest.raises(CassetteMiss) as caught:
        record_replay(ScriptedChat([]), cassette).chat(USER)
    first = str(caught.value).splitlines()[0]
    assert first.startswith(
        f"no recording of this request: to record it, run once with the real model and "
        f"{MODE_ENV}=record-missing (under pytest: --evalmark-record-mode=record-missing)"
    )


def test_a_miss_never_shows_a_secret(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    record_replay(ScriptedChat(["ok"]), cassette, "record-missing").chat(USER)
    secret = "zq8Hf2LmN0pQ7rS4tU1vW9xY3"
    with pytest.raises(CassetteMiss) as caught, call_context(repeat=0):
        record_replay(ScriptedChat([]), cassette, secrets=[secret]).chat(
            [{"role": "user", "content": f"What's the weather? {secret}"}],
            extra_body={"api_key": "abcdefgh"},
        )
    assert secret not in str(caught.value) and "abcdefgh" not in str(caught.value)
    assert "[REDACTED]" in str(caught.value)
