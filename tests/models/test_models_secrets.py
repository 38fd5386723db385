"""Secrets: the scanner's patterns and word boundaries, credential field names, and redaction of
what a cassette would write, by field name, configured value and format (issue 14, item 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.errors import CassetteError
from evalmark.models import (
    HashEmbedding,
    ScriptedChat,
    chat_from_callable,
    openai_chat,
    record_replay,
)
from evalmark.models._modes import MODE_ENV
from evalmark.models._secrets import (
    BUILTIN_PATTERNS,
    REDACTED,
    SecretRedactor,
    SecretScanner,
    redact_pattern,
    sensitive_name,
)

REFERENCE = [(label, re.compile(source)) for label, source in BUILTIN_PATTERNS]

fragments = st.sampled_from(
    ["sk-", "Bearer ", "AKIA", "ghp_", "xoxb-", "ASIA", "risk-", "x", "_", "é", " ", "-", "7"]
)
chunks = st.text(alphabet="abcdefghijKLMNOPQRST0123456789_-", min_size=0, max_size=24)
texts = st.lists(st.one_of(fragments, chunks), max_size=12).map("".join)


def _reference_label(text: str) -> str | None:
    for label, pattern in REFERENCE:
        if pattern.search(text):
            return label
    return None


@given(texts)
def test_scanner_finds_what_the_reference_patterns_find(text: str) -> None:
    hit = SecretScanner().first_hit(text)
    assert (hit[0] if hit else None) == _reference_label(text)
    if hit is not None:  # the quick test that skips redaction never skips a real match
        data = text.encode()
        assert not SecretRedactor().clean(data, text) and SecretRedactor().leak(data)


def test_words_that_merely_contain_a_prefix_are_not_secrets() -> None:
    scanner = SecretScanner()
    assert scanner.first_hit("our risk-management-framework-2024 document") is None
    assert scanner.first_hit("the task-abcdefghijklmnopqrstuvw id") is None
    assert scanner.first_hit("use sk-abcdefghijklmnopqrstuvw now") is not None


def test_user_patterns_and_redaction() -> None:
    scanner = SecretScanner([r"ACME-\d{6}"])
    assert scanner.first_hit("ticket ACME-123456") == ("user pattern 'ACME-\\\\d{6}'", "ACME-1…")
    redact = redact_pattern(r"ACME-\d{6}", "<TICKET>")
    request = {"messages": [{"role": "user", "content": "ticket ACME-123456"}], "n": 1}
    assert redact(request) == {"messages": [{"role": "user", "content": "ticket <TICKET>"}], "n": 1}


@pytest.mark.parametrize("source", ["?", "(", "[a-", "x{2,1}"])
def test_a_user_pattern_that_is_not_a_regex_is_a_typed_error_naming_it(source: str) -> None:
    with pytest.raises(CassetteError, match=re.escape(repr(source))):
        SecretScanner([source])
    with pytest.raises(CassetteError, match=r"re\.escape"):
        record_replay(ScriptedChat(["x"]), Path("unused.jsonl"), secret_patterns=[source])
    with pytest.raises(CassetteError, match=re.escape(repr(source))):
        redact_pattern(source)


# --------------------------------------------------------------------------- redaction in cassettes

HEADER = '{"format":"evalmark-cassette","version":1,"key_version":1}'
UNKNOWN = "zq8Hf2LmN0pQ7rS4tU1vW9xY3"  # a key of a format no pattern knows


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)
    monkeypatch.delenv("EVALMARK_CASSETTE_USAGE", raising=False)


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]


def _echo(messages: list[dict[str, Any]], **params: Any) -> str:
    return "you said: " + str(messages[-1]["content"])


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "api-key",
        "apiKey",
        "X-API-Key",
        "x-api-key",
        "apikey",
        "Authorization",
        "proxy-authorization",
        "access_token",
        "refresh_token",
        "token",
        "x-auth-token",
        "client_secret",
        "clientSecret",
        "secret",
        "password",
        "db_password",
        "passwd",
        "Cookie",
        "aws_secret_access_key",
        "credentials",
        "secret_key_id",
    ],
)
def test_credential_field_names(name: str) -> None:
    assert sensitive_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "max_tokens",
        "max_completion_tokens",
        "prompt_tokens",
        "token_budget",
        "keywords",
        "key_points",
        "monkeys",
        "temperature",
        "content",
        "role",
        "author",
        "tokenizer",
        "",
    ],
)
def test_ordinary_field_names(name: str) -> None:
    assert not sensitive_name(name)


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"extra_body": {"api_key": UNKNOWN}}, "request.params.extra_body.api_key"),
        ({"extra_body": {"headers": {"api-key": UNKNOWN}}}, "request.params.extra_body.headers"),
        ({"metadata": {"auth": {"password": UNKNOWN}}}, "request.params.metadata.auth"),
        ({"client_secret": UNKNOWN}, "request.params.client_secret"),
        ({"extra_body": {"keys": [{"apiKey": UNKNOWN}]}}, "request.params.extra_body.keys[0]"),
        ({"Authorization": 12345678901}, "request.params.Authorization"),
        (
            {"extra_body": {"headers": {"x-api-key": [UNKNOWN, "second"]}}},
            "request.params.extra_body.headers.x-api-key",
        ),
    ],
)
def test_values_under_credential_names_are_redacted_and_the_entry_says_where(
    tmp_path: Path, extra: dict[str, Any], path: str
) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(chat_from_callable(_echo, model_id="m"), cassette, "record-missing")
    reply = recorder.chat(USER_ASKS_NOTHING, max_tokens=64, **extra)
    text = cassette.read_text("utf-8")
    assert UNKNOWN not in text and "12345678901" not in text
    (entry,) = _entries(cassette)
    assert entry["request"]["params"]["max_tokens"] == 64, "max_tokens is not a credential"
    assert [r["reason"] for r in entry["redacted"]] == ["field name"]
    assert entry["redacted"][0]["path"].startswith(path)
    assert REDACTED in text and reply.text == "you said: hello"
    replayer = record_replay(ScriptedChat([]), cassette, "replay", model_id="m")
    rotated = json.loads(json.dumps(extra).replace(UNKNOWN, "another-key-after-rotation"))
    rotated = json.loads(json.dumps(rotated).replace("12345678901", "99"))
    assert replayer.chat(USER_ASKS_NOTHING, max_tokens=64, **rotated).text == "you said: hello"


USER_ASKS_NOTHING = [{"role": "user", "content": "hello"}]


def test_a_credential_header_value_is_redacted_where_the_reply_echoes_it(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(chat_from_callable(_echo, model_id="m"), cassette, "record-missing")
    question = [{"role": "user", "content": f"my header was {UNKNOWN}"}]
    reply = recorder.chat(question, extra_headers={"api-key": UNKNOWN})
    assert UNKNOWN not in cassette.read_text("utf-8")
    assert reply.text == f"you said: my header was {REDACTED}", "the caller sees what is stored"
    (entry,) = _entries(cassette)
    assert {(r["path"], r["reason"]) for r in entry["redacted"]} == {
        ("request.messages[0].content", "configured secret"),
        ("response.text", "configured secret"),
    }


class _Client:
    """An OpenAI-style client: chat.completions.create, an api_key and default headers."""

    def __init__(self, api_key: str, headers: dict[str, str] | None = None) -> None:
        self.api_key = api_key
        self.default_headers = {"Authorization": f"Bearer {api_key}", **(headers or {})}
        self.chat = self
        self.completions = self

    def create(self, **arguments: Any) -> dict[str, Any]:
        question = arguments["messages"][-1]["content"]
        return {"choices": [{"message": {"content": f"echo {question}"}, "finish_reason": "stop"}]}


@pytest.mark.parametrize(
    ("key", "echoed"),
    [
        (UNKNOWN, UNKNOWN),
        ("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "proj-Ab3dEf6hIj9kLm2nOp5qRs8t"),
        ("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "Ab3dEf6hIj9kLm2nOp5qRs8t"),
        ("sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t."),
        ("gsk_unknown_provider_0123456789abcdef", "unknown_provider_0123456789abcdef"),
    ],
)
def test_the_clients_own_key_is_redacted_wherever_it_reappears_prefix_or_not(
    tmp_path: Path, key: str, echoed: str
) -> None:
    cassette = tmp_path / "c.jsonl"
    model = openai_chat(_Client(key), "gpt-test", temperature=0)
    recorder = record_replay(model, cassette, "record-missing")
    recorder.chat([{"role": "user", "content": f"the key is {echoed}"}])
    text = cassette.read_text("utf-8")
    core = key.split("-")[-1].split("_")[-1]
    assert key not in text and echoed not in text and core not in text
    (entry,) = _entries(cassette)
    assert {r["path"] for r in entry["redacted"]} == {
        "request.messages[0].content",
        "response.text",
    }
    replayer = record_replay(openai_chat(_Client(key), "gpt-test", temperature=0), cassette)
    replayed = replayer.chat([{"role": "user", "content": f"the key is {echoed}"}]).text
    assert replayed == "echo the key is " + echoed.replace(echoed.strip("key: ."), REDACTED)


def test_a_header_configured_on_the_client_is_a_secret_too(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    client = _Client("short", headers={"api-key": UNKNOWN, "x-request-source": "tests-abcdef"})
    recorder = record_replay(openai_chat(client, "m"), cassette, "record-missing")
    recorder.chat([{"role": "user", "content": f"{UNKNOWN} and tests-abcdef"}])
    text = cassette.read_text("utf-8")
    assert UNKNOWN not in text and "tests-abcdef" in text, "only credential headers are secrets"


@pytest.mark.parametrize(
    ("secret", "label"),
    [
        ("sk-proj-abcdefghijklmnop1234", "OpenAI-style API key"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30", "HTTP bearer token"),
        ("AKIAIOSFODNN7EXAMPLE", "AWS access key id"),
        ("ghp_0123456789abcdefghijABCDEFGHIJ", "GitHub token"),
        ("xoxb-1234567890-abcdefghij", "Slack token"),
    ],
)
def test_known_formats_in_prompts_and_replies_are_redacted_before_hashing(
    tmp_path: Path, secret: str, label: str
) -> None:
    cassette = tmp_path / "c.jsonl"
    seen: list[str] = []

    def model(messages: list[dict[str, Any]], **params: Any) -> str:
        seen.append(messages[-1]["content"])
        return f"noted {secret}"

    recorder = record_replay(chat_from_callable(model, model_id="m"), cassette, "record-missing")
    question = [{"role": "system", "content": "x"}, {"role": "user", "content": f"use {secret}"}]
    recorder.chat(question)
    assert seen == [f"use {secret}"], "the real model still gets the real text"
    text = cassette.read_text("utf-8")
    assert secret.split()[-1] not in text
    (entry,) = _entries(cassette)
    assert ("request.messages[1].content", label) in {
        (r["path"], r["reason"]) for r in entry["redacted"]
    }
    assert ("response.text", label) in {(r["path"], r["reason"]) for r in entry["redacted"]}
    replayer = record_replay(ScriptedChat([]), cassette, "replay", model_id="m")
    other = secret[:-4] + "WXYZ"  # another key of the same format hashes to the same request
    assert replayer.chat([question[0], {"role": "user", "content": f"use {other}"}]).text == (
        f"noted {REDACTED}" if label != "HTTP bearer token" else f"noted Authorization: {REDACTED}"
    )


def test_user_patterns_and_given_secrets_are_redacted(tmp_path: Path) -> None:
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(
        chat_from_callable(_echo, model_id="m"),
        cassette,
        "record-missing",
        secret_patterns=[r"ACME-\d{6}"],
        secrets=["my-private-value-42"],
    )
    recorder.chat([{"role": "user", "content": "ticket ACME-123456 for my-private-value-42"}])
    text = cassette.read_text("utf-8")
    assert "ACME-123456" not in text and "my-private-value-42" not in text
    (entry,) = _entries(cassette)
    reasons = {r["reason"] for r in entry["redacted"]}
    assert reasons == {"configured secret", "user pattern 'ACME-\\\\d{6}'"}
    with pytest.raises(TypeError, match="list of values"):
        record_replay(ScriptedChat([]), cassette, secrets="one-value")  # type: ignore[arg-type]


def test_embedding_inputs_are_redacted_too(tmp_path: Path) -> None:
    cassette = tmp_path / "e.jsonl"
    recorder = record_replay(HashEmbedding(dim=4), cassette, "record-missing", secrets=[UNKNOWN])
    recorder.embed([f"text with {UNKNOWN}", "plain"])
    assert UNKNOWN not in cassette.read_text("utf-8")
    replayer = record_replay(HashEmbedding(dim=4), cassette, "replay", secrets=[UNKNOWN])
    assert replayer.embed([f"text with {UNKNOWN}"]).shape == (1, 4)


secret_texts = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789", min_size=12)
places = st.sampled_from(["prompt", "reply", "field", "header", "nested"])


@settings(max_examples=40, deadline=None)
@given(secret=secret_texts, where=st.lists(places, min_size=1, max_size=3))
def test_a_configured_secret_never_reaches_the_file_wherever_it_is_put(
    tmp_path_factory: pytest.TempPathFactory, secret: str, where: list[str]
) -> None:
    cassette = tmp_path_factory.mktemp("prop") / "c.jsonl"

    def model(messages: list[dict[str, Any]], **params: Any) -> str:
        return f"reply {secret}!" if "reply" in where else "reply"

    prompt = f"prompt {secret} end" if "prompt" in where else "prompt"
    params: dict[str, Any] = {}
    if "field" in where:
        params["extra_body"] = {"api_key": secret}
    if "nested" in where:
        params["metadata"] = {"list": [{"note": f"x{secret}y"}]}
    if "header" in where:
        params["extra_headers"] = {"x-api-key": secret}
    recorder = record_replay(
        chat_from_callable(model, model_id="m"), cassette, "record-missing", secrets=[secret]
    )
    recorder.chat([{"role": "user", "content": prompt}], **params)
    assert secret not in cassette.read_text("utf-8")


def test_the_last_check_refuses_a_line_that_still_holds_a_secret() -> None:
    redactor = SecretRedactor(values=["31415926535897"])
    assert redactor.leak(b'{"usage":{"prompt_tokens":31415926535897}}') == "configured secret"
    assert redactor.leak(b'{"text":"sk-abcdefghijklmnopqrstu"}') == (
        "OpenAI-style API key (sk-abc…)"
    )
    assert redactor.leak(b'{"text":"[REDACTED]"}') is None
    assert SecretRedactor([r"ACME-\d{6}"]).leak(b'{"text":"ACME-123456"}') is not None


def test_a_hand_edited_cassette_with_a_credential_field_fails_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalmark.cli import main

    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(chat_from_callable(_echo, model_id="m"), cassette, "record-missing")
    recorder.chat(USER_ASKS_NOTHING, extra_body={"api_key": UNKNOWN})
    assert main(["cassette", "verify", str(cassette)]) == 0
    capsys.readouterr()
    cassette.write_text(cassette.read_text("utf-8").replace(REDACTED, UNKNOWN), "utf-8")
    assert main(["cassette", "verify", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert "request.params.extra_body.api_key is a credential field" in out
    assert UNKNOWN not in out
