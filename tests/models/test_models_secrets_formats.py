"""Secrets that hide in JSON inside strings (tool-call arguments) and in formats beyond the
first ones: Anthropic, Google and AWS keys, JSON web tokens, credentials in URL queries and
Azure's ``api-key`` header (issue 33, item 10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalmark.models import (
    ChatReply,
    ChatToolCall,
    ScriptedChat,
    chat_from_callable,
    openai_chat,
    record_replay,
)
from evalmark.models._modes import MODE_ENV
from evalmark.models._secrets import REDACTED, SecretRedactor, SecretScanner

PASSWORD = "hunter2-Qz8vLw3"  # no format knows it: only its field name gives it away


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]


def _arguments(**values: Any) -> str:
    return json.dumps(values)  # as OpenAI sends them: a JSON text with ", " and ": "


def test_a_password_in_tool_call_arguments_is_redacted_in_request_and_reply(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "c.jsonl"
    sent = _arguments(user="ann", password=PASSWORD, options={"token": PASSWORD + "x"})

    def model(messages: list[dict[str, Any]], **params: Any) -> ChatReply:
        call = ChatToolCall(id="c2", name="login", arguments=sent)
        return ChatReply(text="", tool_calls=(call,))

    history = [
        {"role": "user", "content": "log me in"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "login", "arguments": sent}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "failed, try again"},
    ]
    recorder = record_replay(chat_from_callable(model, model_id="m"), cassette, "record-missing")
    reply = recorder.chat(history)
    text = cassette.read_text("utf-8")
    assert PASSWORD not in text
    (entry,) = _entries(cassette)
    stored_request = entry["request"]["messages"][1]["tool_calls"][0]["function"]["arguments"]
    expected = {"user": "ann", "password": REDACTED, "options": {"token": REDACTED}}
    assert json.loads(stored_request) == expected
    assert stored_request.startswith('{"user": "ann", ')  # spaced as it came
    assert reply.tool_calls is not None
    assert json.loads(reply.tool_calls[0].arguments) == expected
    reasons = {(r["path"], r["reason"]) for r in entry["redacted"]}
    assert ("request.messages[1].tool_calls[0].function.arguments.password", "field name") in (
        reasons
    )
    assert any(path.startswith("response.tool_calls[0].arguments") for path, _ in reasons)
    # the cassette replays for a later password too: the request was redacted before hashing
    later = json.loads(json.dumps(history).replace(PASSWORD, "another-password-9"))
    replayer = record_replay(ScriptedChat([]), cassette, "replay", model_id="m")
    assert replayer.chat(later).tool_calls == reply.tool_calls


def test_json_texts_without_secrets_are_kept_byte_for_byte() -> None:
    arguments = '{"city":"Paris",  "units":"metric"}'
    value = {"messages": [{"role": "user", "content": arguments}], "n": [1, "[not json"]}
    redacted, found = SecretRedactor().redact(value, "request")
    assert redacted is value and found == []


@pytest.mark.parametrize(
    ("text", "secret", "label"),
    [
        (
            "key sk-ant-api03-Xy7_abcdefghijklmnopqrstuvwxyz0123 here",
            "sk-ant-api03-Xy7_abcdefghijklmnopqrstuvwxyz0123",
            "Anthropic API key",
        ),
        (
            "maps AIzaSyD4x9Qm2LkP7rT0vW3yZ6bC8eF1gH5jK2l ok",
            "AIzaSyD4x9Qm2LkP7rT0vW3yZ6bC8eF1gH5jK2l",
            "Google API key",
        ),
        ("id AKIAIOSFODNN7EXAMPLE.", "AKIAIOSFODNN7EXAMPLE", "AWS access key id"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_Xg",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_Xg",
            "JSON web token",
        ),
        (
            "GET https://api.example.com/v1/x?q=paris&key=Zk29fLq0wPz7&page=2",
            "Zk29fLq0wPz7",
            "credential in a URL query",
        ),
        ("see /v1/x?api_key=Zk29fLq0wPz7", "Zk29fLq0wPz7", "credential in a URL query"),
        ("wss://h/s?access_token=Zk29fLq0wPz7#x", "Zk29fLq0wPz7", "credential in a URL query"),
        ("u?a=1&X-Amz-Signature=9f8e7d6c5b4a", "9f8e7d6c5b4a", "credential in a URL query"),
        ("u?token=Zk29fLq0wPz7", "Zk29fLq0wPz7", "credential in a URL query"),
    ],
)
def test_more_credential_formats_are_found_and_redacted(text: str, secret: str, label: str) -> None:
    assert SecretScanner().first_hit(text) is not None
    value = {"messages": [{"role": "user", "content": text}]}
    redacted, found = SecretRedactor().redact(value, "request")
    content = redacted["messages"][0]["content"]
    assert secret not in content and REDACTED in content
    assert [r.reason for r in found] == [label]
    if label == "credential in a URL query":  # the parameter's name stays
        assert content.replace(REDACTED, secret) == text


@pytest.mark.parametrize(
    "text",
    [
        "the design=balanced option",
        "?max_tokens=100&keyboard=us",
        "https://example.com/?monkey=banana",
        "?key=[REDACTED]",
        "a JWT starts with eyJ",
    ],
)
def test_ordinary_text_is_not_taken_for_a_credential(text: str) -> None:
    assert SecretScanner().first_hit(text) is None


class _AzureClient:
    """An Azure OpenAI-style client: the key travels in an ``api-key`` header."""

    def __init__(self, key: str) -> None:
        self.api_key = None
        self.default_headers = {"api-key": key}
        self.chat = self
        self.completions = self

    def create(self, **arguments: Any) -> dict[str, Any]:
        question = arguments["messages"][-1]["content"]
        return {"choices": [{"message": {"content": f"echo {question}"}, "finish_reason": "stop"}]}


def test_an_azure_api_key_header_is_a_secret(tmp_path: Path) -> None:
    key = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"  # Azure keys: 32 hex digits, no prefix
    cassette = tmp_path / "c.jsonl"
    recorder = record_replay(openai_chat(_AzureClient(key), "gpt-4o"), cassette, "record-missing")
    recorder.chat([{"role": "user", "content": f"my key is {key}"}], extra_headers={"api-key": key})
    text = cassette.read_text("utf-8")
    assert key not in text
    (entry,) = _entries(cassette)
    assert entry["request"]["messages"][0]["content"] == f"my key is {REDACTED}"
    assert entry["response"]["text"] == f"echo my key is {REDACTED}"
